// kubeconfig loading from temporary files: kubectl's path precedence, merge rules and context selection.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { stringify } from 'yaml';
import { kubeconfigPaths, loadKubeConfig, mergeKubeconfigs, readKubeconfigFiles, resolveKubeconfig, selectContext } from '../../../src/kube/kubeconfig.js';
import { ExitCode, InputError } from '../../../src/model/errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kg-kubeconfig-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(opts: {
  clusters?: Record<string, Record<string, unknown>>;
  users?: Record<string, Record<string, unknown>>;
  contexts?: Record<string, Record<string, unknown>>;
  current?: string;
}): Record<string, unknown> {
  const doc: Record<string, unknown> = { apiVersion: 'v1', kind: 'Config' };
  if (opts.clusters) doc.clusters = Object.entries(opts.clusters).map(([name, cluster]) => ({ name, cluster }));
  if (opts.users) doc.users = Object.entries(opts.users).map(([name, user]) => ({ name, user }));
  if (opts.contexts) doc.contexts = Object.entries(opts.contexts).map(([name, context]) => ({ name, context }));
  if (opts.current !== undefined) doc['current-context'] = opts.current;
  return doc;
}

function write(rel: string, doc: unknown): string {
  const path = join(dir, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof doc === 'string' ? doc : stringify(doc));
  return path;
}

const first = kubeconfig({
  clusters: { shared: { server: 'https://first:6443', 'certificate-authority': 'ca.crt' }, a: { server: 'https://a:6443' } },
  users: { admin: { 'client-certificate': 'certs/admin.crt', 'client-key': '/abs/admin.key', 'token-file': 'tok' } },
  contexts: { a: { cluster: 'a', user: 'admin', namespace: 'shop' }, shared: { cluster: 'shared', user: 'admin' } },
  current: 'a',
});
const second = kubeconfig({
  clusters: { shared: { server: 'https://second:6443' }, b: { server: 'https://b:6443' } },
  users: { admin: { token: 'second-token' }, bob: { token: 'bob', exec: undefined } },
  contexts: { b: { cluster: 'b', user: 'bob' }, shared: { cluster: 'b', user: 'bob' } },
  current: 'b',
});

describe('kubeconfigPaths', () => {
  it('uses --kubeconfig alone, resolved against cwd, and requires it to exist', () => {
    expect(kubeconfigPaths({ kubeconfig: 'k.yaml', env: { KUBECONFIG: '/x:/y', HOME: '/home/u' }, cwd: '/w' })).toEqual({
      paths: ['/w/k.yaml'],
      mustExist: true,
    });
  });

  it('splits KUBECONFIG on the path delimiter, drops empty entries and duplicates, keeps order', () => {
    const env = { KUBECONFIG: ['/b/c2', '', 'rel/c1', '/b/c2', '/a/c3'].join(delimiter), HOME: '/home/u' };
    expect(kubeconfigPaths({ env, cwd: '/w' })).toEqual({ paths: ['/b/c2', '/w/rel/c1', '/a/c3'], mustExist: false });
  });

  it('falls back to ~/.kube/config when KUBECONFIG is unset or empty', () => {
    expect(kubeconfigPaths({ env: { HOME: '/home/u' } }).paths).toEqual(['/home/u/.kube/config']);
    expect(kubeconfigPaths({ env: { HOME: '/home/u', KUBECONFIG: '' } }).paths).toEqual(['/home/u/.kube/config']);
  });
});

describe('mergeKubeconfigs', () => {
  it('keeps the first definition of each name and the first current-context', () => {
    const merged = mergeKubeconfigs([
      { path: '/cfg/one/config', doc: first },
      { path: '/cfg/two/config', doc: second },
    ]);
    expect(merged.clusters.map((c) => [c.name, c.value.server, c.origin])).toEqual([
      ['shared', 'https://first:6443', '/cfg/one/config'],
      ['a', 'https://a:6443', '/cfg/one/config'],
      ['b', 'https://b:6443', '/cfg/two/config'],
    ]);
    expect(merged.users.map((u) => u.name)).toEqual(['admin', 'bob']);
    expect(merged.users[0]?.value.token).toBeUndefined(); // the second file's admin is not merged in
    expect(merged.contexts.find((c) => c.name === 'shared')?.value).toEqual({ cluster: 'shared', user: 'admin' });
    expect(merged.currentContext).toBe('a');
    expect(merged.files).toEqual(['/cfg/one/config', '/cfg/two/config']);
  });

  it('takes current-context from a later file when earlier ones do not set it', () => {
    const noCurrent = kubeconfig({ clusters: { x: { server: 'https://x' } } });
    expect(
      mergeKubeconfigs([
        { path: '/a', doc: noCurrent },
        { path: '/b', doc: second },
      ]).currentContext,
    ).toBe('b');
  });

  it('resolves relative file references against the directory of the file that named them', () => {
    const merged = mergeKubeconfigs([
      { path: '/cfg/one/config', doc: first },
      {
        path: '/cfg/two/config',
        doc: kubeconfig({ users: { ex: { exec: { command: './bin/auth', args: ['x'] } }, path: { exec: { command: 'gke-auth' } } } }),
      },
    ]);
    expect(merged.clusters[0]?.value['certificate-authority']).toBe('/cfg/one/ca.crt');
    const admin = merged.users.find((u) => u.name === 'admin')?.value;
    expect(admin?.['client-certificate']).toBe('/cfg/one/certs/admin.crt');
    expect(admin?.['client-key']).toBe('/abs/admin.key');
    expect(admin?.['token-file']).toBe('/cfg/one/tok');
    expect(merged.users.find((u) => u.name === 'ex')?.value.exec).toEqual({ command: '/cfg/two/bin/auth', args: ['x'] });
    expect(merged.users.find((u) => u.name === 'path')?.value.exec).toEqual({ command: 'gke-auth' });
  });

  it('does not change its inputs', () => {
    const doc = structuredClone(first);
    mergeKubeconfigs([{ path: '/cfg/one/config', doc }]);
    expect(doc).toEqual(first);
  });

  it('rejects documents that are not kubeconfig-shaped with an InputError naming the file', () => {
    expect(() => mergeKubeconfigs([{ path: '/bad', doc: ['x'] }])).toThrow(/\/bad: the document is not a mapping/);
    expect(() => mergeKubeconfigs([{ path: '/bad', doc: { clusters: { a: 1 } } }])).toThrow(/clusters is not a list/);
    expect(() => mergeKubeconfigs([{ path: '/bad', doc: { users: [{ user: {} }] } }])).toThrow(/users\[0\] has no name/);
    expect(() => mergeKubeconfigs([{ path: '/bad', doc: { contexts: [{ name: 'c', context: 'x' }] } }])).toThrow(InputError);
  });
});

describe('selectContext', () => {
  const merged = mergeKubeconfigs([
    { path: '/cfg/one/config', doc: first },
    { path: '/cfg/two/config', doc: second },
  ]);

  it('uses current-context by default and --context when given', () => {
    const byDefault = selectContext(merged);
    expect([byDefault.name, byDefault.cluster.name, byDefault.user?.name, byDefault.namespace]).toEqual(['a', 'a', 'admin', 'shop']);
    const byFlag = selectContext(merged, 'b');
    expect([byFlag.name, byFlag.cluster.value.server, byFlag.user?.value.token, byFlag.namespace]).toEqual(['b', 'https://b:6443', 'bob', undefined]);
  });

  it('names the contexts that exist when the requested one does not', () => {
    let caught: unknown;
    try {
      selectContext(merged, 'prod');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as InputError).code).toBe(ExitCode.Input);
    expect((caught as Error).message).toBe('context "prod" does not exist (contexts in kubeconfig: a, shared, b)');
  });

  it('explains a missing current-context, a missing cluster, a cluster without server and a missing user', () => {
    const m = (doc: Record<string, unknown>) => mergeKubeconfigs([{ path: '/k', doc }]);
    expect(() => selectContext(m(kubeconfig({ contexts: { x: { cluster: 'c' } } })))).toThrow(
      'no current-context is set and --context was not given (contexts in kubeconfig: x)',
    );
    expect(() => selectContext(m(kubeconfig({ contexts: { x: { cluster: 'c' } }, current: 'x' })))).toThrow(
      'context "x" refers to cluster "c", which no kubeconfig file defines',
    );
    expect(() => selectContext(m(kubeconfig({ clusters: { c: {} }, contexts: { x: { cluster: 'c' } }, current: 'x' })))).toThrow(
      'cluster "c" (in /k) has no server defined',
    );
    expect(() =>
      selectContext(m(kubeconfig({ clusters: { c: { server: 'https://c' } }, contexts: { x: { cluster: 'c', user: 'u' } }, current: 'x' }))),
    ).toThrow('context "x" refers to user "u", which no kubeconfig file defines');
    expect(() => selectContext(mergeKubeconfigs([]), 'x')).toThrow('context "x" does not exist (no contexts in any kubeconfig file (none was found))');
  });

  it('allows a context without a user (anonymous)', () => {
    const sel = selectContext(
      mergeKubeconfigs([{ path: '/k', doc: kubeconfig({ clusters: { c: { server: 'https://c' } }, contexts: { x: { cluster: 'c' } }, current: 'x' }) }]),
    );
    expect(sel.user).toBeUndefined();
  });
});

describe('loading from temporary files', () => {
  it('merges a KUBECONFIG list, skipping files that do not exist, and returns a client-node KubeConfig', async () => {
    const one = write('one/config', first);
    const two = write('two/config', second);
    writeFileSync(join(dir, 'one', 'tok'), 'token-from-file\n');
    const env = { KUBECONFIG: [join(dir, 'missing'), one, two].join(delimiter), HOME: join(dir, 'home') };

    const { merged, selected } = await resolveKubeconfig({ env });
    expect(merged.files).toEqual([one, two]);
    expect(selected.name).toBe('a');

    const kc = await loadKubeConfig({ env, context: 'shared' });
    expect(kc.getCurrentContext()).toBe('shared');
    expect(kc.getCurrentCluster()?.server).toBe('https://first:6443');
    expect(kc.getCurrentCluster()?.caFile).toBe(join(dir, 'one', 'ca.crt'));
    const user = kc.getCurrentUser();
    expect(user?.name).toBe('admin');
    expect(user?.certFile).toBe(join(dir, 'one', 'certs', 'admin.crt'));
    expect(user?.token).toBe('token-from-file\n');
    // Only the selected context is handed to client-node (as `kubectl config view --minify`).
    expect(kc.getContexts().map((c) => c.name)).toEqual(['shared']);
  });

  it('lets --kubeconfig override KUBECONFIG, and requires that file to exist', async () => {
    const one = write('one/config', first);
    const two = write('two/config', second);
    const kc = await loadKubeConfig({ kubeconfig: two, env: { KUBECONFIG: one } });
    expect(kc.getCurrentContext()).toBe('b');
    expect(kc.getCurrentCluster()?.server).toBe('https://b:6443');

    await expect(loadKubeConfig({ kubeconfig: join(dir, 'nope'), env: { KUBECONFIG: one } })).rejects.toThrow(/reading kubeconfig .*nope: ENOENT/);
  });

  it('reads ~/.kube/config by default', async () => {
    write('home/.kube/config', second);
    const kc = await loadKubeConfig({ env: { HOME: join(dir, 'home') } });
    expect(kc.getCurrentContext()).toBe('b');
  });

  it('reports a missing context with the contexts of every merged file', async () => {
    const one = write('one/config', first);
    const two = write('two/config', second);
    await expect(loadKubeConfig({ env: { KUBECONFIG: `${one}${delimiter}${two}` }, context: 'nope' })).rejects.toThrow(
      'context "nope" does not exist (contexts in kubeconfig: a, shared, b)',
    );
  });

  it('reports unparseable YAML as an input error naming the file', async () => {
    const bad = write('bad/config', 'clusters: [\n');
    const err = await loadKubeConfig({ kubeconfig: bad, env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain(`parsing kubeconfig ${bad}`);
  });

  it('reads the first document of a file with several, as kubectl does', async () => {
    const [first] = await readKubeconfigFiles([write('multi/config', 'current-context: a\n---\ncurrent-context: b\n')], true);
    expect(first?.doc).toEqual({ 'current-context': 'a' });
  });

  it('treats an empty file as an empty kubeconfig', async () => {
    const empty = write('empty/config', '');
    await expect(loadKubeConfig({ kubeconfig: empty, env: {} })).rejects.toThrow(/no current-context is set/);
  });
});
