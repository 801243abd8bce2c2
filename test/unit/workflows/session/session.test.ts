// A missing Application file or --desired path is reported as itself before any connection is
// attempted: with no kubeconfig at all, the error names the file, not the kubeconfig.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../../src/cli/app.js';
import { ExitCode, InputError } from '../../../../src/model/errors.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { makeContext } from '../../../../src/cli/context.js';
import { toGlobalOptions } from '../../../../src/cli/options.js';
import type { SessionEvent } from '../../../../src/model/context.js';
import { checkLocalSources, withControlPlane } from '../../../../src/workflows/session/session.js';
import { applicationYaml, inCluster } from '../../../support/application.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kgitops-session-'));
  writeFileSync(join(dir, 'app.yaml'), applicationYaml({ namespace: null, spec: { destination: inCluster('shop') } }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkLocalSources', () => {
  it('accepts existing paths, stdin and absent sources', async () => {
    await expect(checkLocalSources({ appFile: join(dir, 'app.yaml'), desired: dir })).resolves.toBeUndefined();
    await expect(checkLocalSources({ desired: '-' })).resolves.toBeUndefined();
    await expect(checkLocalSources({})).resolves.toBeUndefined();
  });

  it("names a missing Application file, with the reader's wording and the cause kept", async () => {
    const missing = join(dir, 'nope.yaml');
    const err = await checkLocalSources({ appFile: missing, desired: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`reading Application file ${missing}: ENOENT`);
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('names a missing --desired path', async () => {
    const missing = join(dir, 'k8s');
    await expect(checkLocalSources({ appFile: join(dir, 'app.yaml'), desired: missing })).rejects.toThrow(
      `reading manifests from ${missing}: no such file or directory`,
    );
  });
});

describe('cluster commands with no kubeconfig', () => {
  const env = { KUBECONFIG: join(tmpdir(), 'kgitops-no-such-kubeconfig'), HOME: join(tmpdir(), 'kgitops-no-such-home') };

  it.each(['diff', 'sync', 'status', 'prune'])('%s -f MISSING reports the file, exit 2', async (cmd) => {
    const m = memoryIo({ env });
    const missing = join(dir, 'missing.yaml');
    const code = await runCli([cmd, '-f', missing, '--desired', dir], m.io);
    expect(code).toBe(ExitCode.Input);
    expect(m.stderr()).toContain(`reading Application file ${missing}: ENOENT`);
    expect(m.stderr()).not.toMatch(/kubeconfig/i);
    expect(m.stdout()).toBe('');
  });

  it('with both files present, the kubeconfig is what is missing', async () => {
    const m = memoryIo({ env });
    const code = await runCli(['diff', '-f', join(dir, 'app.yaml'), '--desired', dir], m.io);
    expect(code).toBe(ExitCode.Input);
    expect(m.stderr()).toMatch(/kubeconfig/i);
  });
});

describe('what a session reports (it never prints: the caller gets events)', () => {
  // A kubeconfig whose server is never asked anything: connecting makes no request.
  const kubeconfig = () => {
    const file = join(dir, 'kubeconfig');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\n',
    );
    return file;
  };

  it('hands the connection log and the request summary to onSession, and writes nothing itself', async () => {
    const m = memoryIo({ env: {} });
    const events: SessionEvent[] = [];
    const opts = toGlobalOptions({ kubeconfig: kubeconfig(), v: '4' });
    await expect(withControlPlane({ io: m.io, opts, onSession: (e) => events.push(e) }, 'probe', async () => 'done')).resolves.toBe('done');
    expect(m.stdout()).toBe('');
    expect(m.stderr()).toBe('');
    expect(events.map((e) => e.kind)).toEqual(['log', 'requests']);
    expect(events[0]).toMatchObject({ kind: 'log', line: expect.stringMatching(/^I connecting to https:\/\/127\.0\.0\.1:9 /) });
    expect(events[1]).toMatchObject({ kind: 'requests', what: 'probe', requests: 0, retries: 0 });
  });

  it('reports no summary without -v', async () => {
    const events: SessionEvent[] = [];
    await withControlPlane(
      { io: memoryIo().io, opts: toGlobalOptions({ kubeconfig: kubeconfig() }), onSession: (e) => events.push(e) },
      'probe',
      async () => undefined,
    );
    expect(events).toEqual([]);
  });

  it('cli/ prints them on stderr, as the -v summary line has always read', async () => {
    const m = memoryIo({ env: {} });
    await withControlPlane(makeContext(m.io, toGlobalOptions({ kubeconfig: kubeconfig(), verbose: true })), 'probe', async () => undefined);
    expect(m.stderr()).toMatch(/^probe: 0 API requests, 0 retried, in \d+ ms\n$/);
    expect(m.stdout()).toBe('');
  });
});
