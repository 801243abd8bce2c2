// The Application's destination decides the cluster, against the real API server reached under two URLs (127.0.0.1
// and localhost: two kubeconfig contexts, so URL matching is exercised): the wrong context is refused with nothing
// changed, the right one is found by URL, by name and through Argo CD's cluster Secrets, an Application read from one
// context deploys to another; a source that cannot be rendered completely is refused by every command that changes
// anything; a manual sync prunes only with --prune, a partial sync never, and the watch loop as automated.prune says.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { tempDir } from '../support/temp-dir.js';
import { GitFixture } from '../support/git-source.js';
import {
  applyYaml,
  childEnv,
  createTestNamespace,
  deleteNamespace,
  kubectl,
  kubectlOk,
  kubeconfigPath,
  kvValues,
  pluginPath,
  run,
  waitFor,
  type RunResult,
} from './support/index.js';
import { applicationYaml } from '../support/application.js';

const TIMEOUT = 180_000;
const TID = 'argocd.argoproj.io/tracking-id';

let ns: string;
let root: string;
/** The API server as the test kubeconfig names it, and the same server under the other loopback name. */
let localURL: string;
let remoteURL: string;
/** Two contexts (`local`: current, `remote`), and one with `local` alone. */
let twoContexts: string;
let localOnly: string;

interface KubeconfigDoc {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: Record<string, unknown> }[];
  'current-context': string;
}

function writeKubeconfig(name: string, contexts: Record<string, string>): string {
  const base = parse(readFileSync(kubeconfigPath(), 'utf8')) as KubeconfigDoc;
  const cluster = base.clusters[0]!.cluster;
  const user = base.users[0]!.user;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: Object.entries(contexts).map(([n, server]) => ({ name: `${n}-cluster`, cluster: { ...cluster, server } })),
    users: [{ name: 'admin', user }],
    contexts: Object.keys(contexts).map((n) => ({ name: n, context: { cluster: `${n}-cluster`, user: 'admin' } })),
    'current-context': Object.keys(contexts)[0],
  };
  const path = join(root, name);
  writeFileSync(path, stringify(doc));
  return path;
}

/** The plugin with a kubeconfig of this suite (not the test cluster's own). */
function plugin(args: string[], kubeconfig = twoContexts): Promise<RunResult> {
  return run(pluginPath, [...args, '--kubeconfig', kubeconfig], { timeoutMs: 120_000 });
}

function app(name: string, destination: string, extra = '', spec = ''): string {
  const file = join(root, `${name}-${Math.random().toString(36).slice(2, 8)}.yaml`);
  // The destination's server or name, more keys of the automated policy and more of the spec: YAML as the tests write them.
  const more = (parse(spec) ?? {}) as Record<string, unknown>;
  const automated = parse(`{prune: true${extra}}`) as Record<string, unknown>;
  writeFileSync(
    file,
    applicationYaml({
      name,
      spec: { destination: { ...(parse(`{${destination}}`) as Record<string, unknown>), namespace: ns }, ...more, syncPolicy: { automated } },
    }),
  );
  return file;
}

function configMap(name: string, value: string, annotations: Record<string, string> = {}): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations: ${JSON.stringify(annotations)}\ndata:\n  v: "${value}"\n`;
}

function desiredDir(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}

/** uid and resourceVersion of every ConfigMap in the namespace (what "nothing changed" is checked against). */
async function snapshot(): Promise<Record<string, string>> {
  const list = JSON.parse(await kubectlOk(['get', 'configmaps', '-n', ns, '-o', 'json'])) as {
    items: { metadata: { name: string; uid: string; resourceVersion: string } }[];
  };
  return Object.fromEntries(list.items.map((o) => [o.metadata.name, `${o.metadata.uid}/${o.metadata.resourceVersion}`]));
}

async function exists(name: string, namespace = ns): Promise<boolean> {
  return (await kubectl(['get', 'configmap', name, '-n', namespace])).code === 0;
}

function lines(stdout: string): string[] {
  return stdout.trimEnd().split('\n');
}

beforeAll(async () => {
  ns = await createTestNamespace('destination');
  root = tempDir('destination');
  const base = parse(readFileSync(kubeconfigPath(), 'utf8')) as KubeconfigDoc;
  localURL = String(base.clusters[0]!.cluster.server);
  const u = new URL(localURL);
  remoteURL = `${u.protocol}//${u.hostname === 'localhost' ? '127.0.0.1' : 'localhost'}:${u.port}`;
  twoContexts = writeKubeconfig('two.yaml', { local: localURL, remote: remoteURL });
  localOnly = writeKubeconfig('one.yaml', { local: localURL });
}, TIMEOUT);

afterAll(async () => {
  await deleteNamespace(ns);
});

describe('the destination decides the cluster', () => {
  test(
    'an Application for the other server is refused from an explicit --context on this one, by every command; nothing changes',
    async () => {
      const file = app('elsewhere', `server: ${remoteURL}`);
      const desired = desiredDir('elsewhere-d', { 'a.yaml': configMap('elsewhere-a', '1') });
      const before = await snapshot();
      for (const cmd of [['sync', '--prune'], ['prune', '--confirm'], ['diff'], ['status'], ['sync', '--dry-run']]) {
        const res = await plugin([...cmd, '-f', file, '--desired', desired, '--context', 'local', '-o', 'kv']);
        expect({ cmd, code: res.code }).toEqual({ cmd, code: 4 });
        expect(res.stderr).toContain(
          `refusing to act on Application elsewhere: spec.destination (server ${remoteURL}): --context local (${localURL}) is another cluster; the destination is reached by remote (${remoteURL})`,
        );
        expect(res.stdout).toBe('');
      }
      expect(await snapshot()).toEqual(before);
    },
    TIMEOUT,
  );

  test(
    'a destination no context reaches is refused, naming the contexts there are; nothing changes',
    async () => {
      const file = app('nowhere', `server: ${remoteURL}`);
      const desired = desiredDir('nowhere-d', { 'a.yaml': configMap('nowhere-a', '1') });
      const before = await snapshot();
      const res = await plugin(['sync', '-f', file, '--desired', desired, '--prune'], localOnly);
      expect(res.code).toBe(4);
      expect(res.stderr).toContain(`no kubeconfig context reaches it (the kubeconfig's contexts: local (${localURL}))`);
      const named = await plugin(['sync', '-f', app('nowhere2', 'name: prod-eu'), '--desired', desired]);
      expect(named.code).toBe(4);
      expect(named.stderr).toMatch(/spec\.destination \(name prod-eu\): no kubeconfig context reaches it/);
      expect(await snapshot()).toEqual(before);
      expect(await exists('nowhere-a')).toBe(false);
    },
    TIMEOUT,
  );

  test(
    'matched by URL from the current context on the other server: sync acts there, and says which context in json, the diff header and status',
    async () => {
      const file = app('byurl', `server: ${remoteURL}/`);
      const desired = desiredDir('byurl-d', { 'a.yaml': configMap('byurl-a', '1') });
      const res = await plugin(['sync', '-f', file, '--desired', desired, '-o', 'json']);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ context: 'remote', server: remoteURL, applied: 1 });
      expect(await exists('byurl-a')).toBe(true);
      const diff = await plugin(['diff', '-f', file, '--desired', desired, '-o', 'json']);
      expect(diff.code).toBe(0);
      expect(JSON.parse(diff.stdout)).toMatchObject({ sync: 'Synced', context: 'remote', server: remoteURL });
      // The header also names the namespace the diff acts on (the destination's).
      expect((await plugin(['diff', '-f', file, '--desired', desired])).stdout.split('\n')[0]).toMatch(
        new RegExp(`^Application byurl on context remote \\(${remoteURL.replace(/[.]/g, '\\.')}\\), namespace \\S+$`),
      );
      const status = await plugin(['status', '-f', file, '--desired', desired]);
      expect(status.stdout).toMatch(new RegExp(`^Context:\\s+remote \\(${remoteURL.replace(/[.]/g, '\\.')}\\)$`, 'm'));
      expect((await plugin(['sync', '-f', file, '--desired', desired, '--context', 'remote', '-o', 'kv'])).code).toBe(0);
    },
    TIMEOUT,
  );

  test(
    '--server naming another cluster than the destination is refused; the same server is fine',
    async () => {
      const file = app('flagged', `server: ${remoteURL}`);
      const desired = desiredDir('flagged-d', { 'a.yaml': configMap('flagged-a', '1') });
      const refused = await plugin(['sync', '-f', file, '--desired', desired, '--server', localURL]);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain(`but --server ${localURL} names another cluster`);
      expect(await exists('flagged-a')).toBe(false);
      const same = await plugin(['sync', '-f', file, '--desired', desired, '--server', remoteURL, '-o', 'json']);
      expect(same.code).toBe(0);
      expect(JSON.parse(same.stdout)).toMatchObject({ context: 'remote' });
    },
    TIMEOUT,
  );

  test(
    'name: matches a context; in-cluster is the current context for an Application file',
    async () => {
      const desired = desiredDir('byname-d', { 'a.yaml': configMap('byname-a', '1') });
      const res = await plugin(['sync', '-f', app('byname', 'name: remote'), '--desired', desired, '-o', 'json']);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ context: 'remote' });
      const inCluster = await plugin(['sync', '-f', app('incluster', 'name: in-cluster'), '--desired', desired, '--context', 'remote', '-o', 'json']);
      expect(inCluster.code).toBe(0);
      expect(JSON.parse(inCluster.stdout)).toMatchObject({ context: 'remote' });
    },
    TIMEOUT,
  );

  test(
    'an Application read from context local deploys to remote, by URL and by the name of an Argo CD cluster Secret',
    async () => {
      const suffix = Math.random().toString(36).slice(2, 8);
      const secret = `kgitops-test-cluster-${suffix}`;
      const clusterName = `far-${suffix}`;
      await applyYaml(
        `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${secret}\n  namespace: argocd\n  labels: {argocd.argoproj.io/secret-type: cluster}\nstringData:\n  name: ${clusterName}\n  server: ${remoteURL}\n  config: '{"bearerToken":"not-printed-${suffix}"}'\n`,
      );
      try {
        const desired = desiredDir('incluster-app-d', { 'a.yaml': configMap('from-cluster-app', '1') });
        for (const [name, destination] of [
          ['viaurl', { server: remoteURL }],
          ['viasecret', { name: clusterName }],
        ] as const) {
          await applyYaml(applicationYaml({ name, namespace: ns, spec: { destination: { ...destination, namespace: ns } } }));
          const res = await plugin(['sync', name, '--app-namespace', ns, '--desired', desired, '--context', 'local', '-o', 'json']);
          expect({ name, code: res.code, stderr: res.stderr.includes('error:') ? res.stderr : '' }).toEqual({ name, code: 0, stderr: '' });
          expect(JSON.parse(res.stdout)).toMatchObject({ context: 'remote', server: remoteURL });
          expect(res.stdout + res.stderr).not.toContain(`not-printed-${suffix}`);
        }
        // Without the Secret, the name is no context's: refused.
        await kubectlOk(['delete', 'secret', secret, '-n', 'argocd']);
        const gone = await plugin(['sync', 'viasecret', '--app-namespace', ns, '--desired', desired]);
        expect(gone.code).toBe(4);
        expect(gone.stderr).toContain(`no Argo CD cluster Secret is named ${clusterName}`);
      } finally {
        await kubectl(['delete', 'secret', secret, '-n', 'argocd', '--ignore-not-found']);
      }
    },
    TIMEOUT,
  );
});

describe('a source rendered only in part is never synced or pruned', () => {
  let fx: GitFixture;
  beforeAll(() => {
    fx = new GitFixture();
    fx.write('first/a.yaml', configMap('first-a', '1'));
    fx.write('second/b.yaml', configMap('second-b', '1'));
    fx.write('chart/Chart.yaml', 'apiVersion: v2\nname: shop\nversion: 0.1.0\n');
    fx.write('chart/templates/d.yaml', configMap('chart-d', '1'));
    fx.write('broken/Chart.yaml', 'apiVersion: v2\nname: broken\nversion: 0.1.0\n');
    fx.write('broken/templates/d.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken-d}\ndata: {x: {{ required "x is required" .Values.x }}}\n');
    fx.commit('sources');
  });
  afterAll(() => fx.cleanup());

  test.each([
    [
      'two sources, the second a plugin',
      'multi',
      `  sources:\n  - {repoURL: REPO, path: first, targetRevision: main}\n  - {repoURL: REPO, path: second, targetRevision: main, plugin: {name: x}}\n`,
      'second-b',
      /spec\.sources\[1\]\.plugin: Config Management Plugins/,
    ],
    [
      'a Config Management Plugin',
      'cmp',
      `  source: {repoURL: REPO, path: chart, targetRevision: main, plugin: {name: x}}\n`,
      'chart-d',
      /Config Management Plugins run in Argo CD's repo-server/,
    ],
  ])(
    '%s: the objects Argo CD made from the rest keep their mark and survive sync --prune and prune --confirm',
    async (_what, name, spec, survivor, reason) => {
      const file = app(name, 'server: https://kubernetes.default.svc', '', spec.replace(/REPO/g, fx.repo));
      // What Argo CD synced from the part this tool cannot render: live, with this app's mark.
      await applyYaml(configMap(survivor, 'from-argo', { [TID]: `${name}:/ConfigMap:${ns}/${survivor}` }), { namespace: ns });
      const before = await snapshot();
      const sync = await plugin(['sync', '-f', file, '--prune', '-o', 'kv'], kubeconfigPath());
      expect(sync.code).toBe(4);
      expect(sync.stdout).toMatch(/^REFUSED=the source cannot be rendered as Argo CD would/);
      expect(sync.stdout).toMatch(reason);
      const prune = await plugin(['prune', '-f', file, '--confirm', '-o', 'kv'], kubeconfigPath());
      expect(prune.code).toBe(4);
      expect(prune.stderr).toMatch(reason);
      const diff = await plugin(['diff', '-f', file, '-o', 'kv'], kubeconfigPath());
      expect(diff.code).toBe(4);
      expect(lines(diff.stdout)[0]).toBe('SYNC=Unknown');
      expect(lines(diff.stdout)[1]).toMatch(reason);
      // status prints what it can (the live objects with the app's mark and their health), then exits 4 as diff does.
      const status = await plugin(['status', '-f', file, '-o', 'kv'], kubeconfigPath());
      expect(status.code).toBe(4);
      expect(lines(status.stdout).slice(0, 2)).toEqual(['SYNC=Unknown', 'HEALTH=Healthy']);
      expect(lines(status.stdout)).toContain(`RESOURCE=ConfigMap/${survivor} Unknown -`);
      expect(lines(status.stdout)[2]).toMatch(reason);
      // The JSON reports name the Application by its metadata.name, not by the file it was read from.
      const named = async (args: string[]) => {
        const r = await plugin([...args, '-f', file, '-o', 'json'], kubeconfigPath());
        const doc = JSON.parse(r.stdout) as { app?: string; apps?: { app: string }[] };
        return [r.code, doc.app ?? doc.apps?.[0]?.app];
      };
      expect(await named(['diff'])).toEqual([4, name]);
      expect(await named(['sync', '--dry-run'])).toEqual([4, name]);
      // (plan's --base/--head name one revision: a multi-source app is refused before its sources are read.)
      if (!spec.includes('sources:')) expect(await named(['plan', '--base', 'main', '--head', 'main'])).toEqual([4, name]);
      expect(await snapshot()).toEqual(before);
      expect(await exists(survivor)).toBe(true);
    },
    TIMEOUT,
  );

  test(
    'two sources, the second a Helm chart whose template fails: every command stops (exit 2), nothing of the first is applied, the objects Argo CD made keep their mark',
    async () => {
      const file = app(
        'brokenchart',
        'server: https://kubernetes.default.svc',
        '',
        `  sources:\n  - {repoURL: ${fx.repo}, path: first, targetRevision: main}\n  - {repoURL: ${fx.repo}, path: broken, targetRevision: main}\n`,
      );
      await applyYaml(configMap('broken-survivor', 'from-argo', { [TID]: `brokenchart:/ConfigMap:${ns}/broken-survivor` }), { namespace: ns });
      const before = await snapshot();
      for (const args of [
        ['sync', '-f', file, '--prune'],
        ['prune', '-f', file, '--confirm'],
        ['diff', '-f', file],
        ['status', '-f', file],
      ]) {
        const res = await plugin([...args, '-o', 'kv'], kubeconfigPath());
        expect({ command: args[0], code: res.code }).toEqual({ command: args[0], code: 2 });
        // status prints what it can, as argocd app get: Sync Unknown with the error, the live objects with the mark.
        if (args[0] === 'status') {
          expect(kvValues(res.stdout).SYNC).toEqual(['Unknown']);
          expect(kvValues(res.stdout).REASON?.[0]).toMatch(/helm template failed for .*:broken: .*x is required/);
          expect(kvValues(res.stdout).RESOURCE).toContain('ConfigMap/broken-survivor Unknown -');
        } else expect(res.stderr).toMatch(/helm template failed for .*:broken: .*x is required/);
      }
      expect(await snapshot()).toEqual(before);
      expect(await exists('broken-survivor')).toBe(true);
      expect(await exists('first-a')).toBe(false);
    },
    TIMEOUT,
  );
});

describe('pruning follows Argo CD: manual sync with --prune, partial syncs never, the watch loop as automated.prune says', () => {
  const a1 = configMap('split-a', '1');
  const b1 = configMap('split-b', '1');
  let file: string;
  beforeAll(async () => {
    file = app('split', 'server: https://kubernetes.default.svc');
    const res = await plugin(['sync', '-f', file, '--desired', desiredDir('split-both', { 'a.yaml': a1, 'b.yaml': b1 }), '-o', 'kv'], kubeconfigPath());
    expect(res.stdout).toBe('APPLIED=2\nPHASE=Succeeded\n');
  }, TIMEOUT);

  test(
    'sync --desired of one file of a two-object app, with automated.prune: true, deletes nothing (and --dry-run says what --prune would)',
    async () => {
      const one = desiredDir('split-one', { 'a.yaml': a1 });
      const before = await snapshot();
      const dry = await plugin(['sync', '-f', file, '--desired', one, '--dry-run', '-o', 'kv'], kubeconfigPath());
      expect(lines(dry.stdout)).toContain('PRUNE_CANDIDATE=ConfigMap/split-b');
      const res = await plugin(['sync', '-f', file, '--desired', one, '-o', 'kv'], kubeconfigPath());
      expect(res.code).toBe(0);
      expect(res.stdout).toBe('APPLIED=1\nPHASE=Succeeded\n');
      expect((await snapshot())['split-b']).toBe(before['split-b']);
    },
    TIMEOUT,
  );

  test(
    'sync --resource touches only that object',
    async () => {
      const changed = desiredDir('split-changed', { 'a.yaml': configMap('split-a', '2'), 'b.yaml': configMap('split-b', '2') });
      const before = await snapshot();
      const res = await plugin(['sync', '-f', file, '--desired', changed, '--resource', `:ConfigMap:${ns}/split-a`, '-o', 'kv'], kubeconfigPath());
      expect(res.code).toBe(0);
      const after = await snapshot();
      expect(after['split-a']).not.toBe(before['split-a']);
      expect(after['split-b']).toBe(before['split-b']);
      // Repeatable: each --resource adds an object (before, yargs kept only the last one given).
      const both = desiredDir('split-changed-both', { 'a.yaml': configMap('split-a', '3'), 'b.yaml': configMap('split-b', '3') });
      const two = await plugin(
        ['sync', '-f', file, '--desired', both, '--resource', `:ConfigMap:${ns}/split-a`, '--resource', `:ConfigMap:${ns}/split-b`, '-o', 'kv'],
        kubeconfigPath(),
      );
      expect([two.code, two.stdout]).toEqual([0, 'APPLIED=2\nPHASE=Succeeded\n']);
      const third = await snapshot();
      expect(third['split-a']).not.toBe(after['split-a']);
      expect(third['split-b']).not.toBe(after['split-b']);
    },
    TIMEOUT,
  );

  test(
    'sync --prune prunes',
    async () => {
      const res = await plugin(['sync', '-f', file, '--desired', desiredDir('split-one-again', { 'a.yaml': a1 }), '--prune', '-o', 'kv'], kubeconfigPath());
      expect(res.code).toBe(0);
      expect(lines(res.stdout)).toEqual(['APPLIED=1', 'PRUNED=ConfigMap/split-b', 'PHASE=Succeeded']);
      expect(await exists('split-b')).toBe(false);
    },
    TIMEOUT,
  );

  test(
    'sync --watch is the automated loop: it prunes as automated.prune says',
    async () => {
      const fx = new GitFixture();
      try {
        fx.write('w/a.yaml', configMap('watch-a', '1'));
        fx.write('w/b.yaml', configMap('watch-b', '1'));
        const both = fx.commit('both');
        const spec = `  source: {repoURL: ${fx.repo}, path: w, targetRevision: main}\n`;
        const watched = app('watched', 'server: https://kubernetes.default.svc', '', spec);
        expect((await plugin(['sync', '-f', watched, '-o', 'kv'], kubeconfigPath())).stdout).toBe(`APPLIED=2\nPHASE=Succeeded\nREVISION=${both}\n`);
        fx.remove('w/b.yaml');
        fx.commit('b removed');
        const child = spawn(pluginPath, ['sync', '-f', watched, '--watch', '--interval', '1s', '-o', 'kv', '--kubeconfig', kubeconfigPath()], {
          env: childEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
        try {
          await waitFor(async () => ((await exists('watch-b')) ? undefined : true), { what: 'the watch loop to prune watch-b', timeoutMs: 60_000 });
        } finally {
          child.kill('SIGTERM');
          await new Promise((r) => child.on('close', r));
        }
        expect(out).toMatch(/ACTION=prune OBJECT=ConfigMap\/watch-b/);
        expect(await exists('watch-a')).toBe(true);
      } finally {
        fx.cleanup();
      }
    },
    TIMEOUT,
  );
});
