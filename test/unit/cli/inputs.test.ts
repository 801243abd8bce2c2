// Flags become the workflows' inputs in one place (cli/inputs.ts): each mapping on its own, and through the real
// yargs definitions of diff, sync, status, prune, rollback and windows (a spy stands in for each command's run).
import { runCli } from '../../../src/cli/app.js';
import type { GitopsCommand } from '../../../src/cli/command.js';
import { diffCommand } from '../../../src/cli/commands/diff.js';
import { pruneCommand } from '../../../src/cli/commands/prune.js';
import { rollbackCommand } from '../../../src/cli/commands/rollback.js';
import { statusCommand } from '../../../src/cli/commands/status.js';
import { syncCommand } from '../../../src/cli/commands/sync.js';
import { windowsCommand } from '../../../src/cli/commands/windows.js';
import { ExitCode, InputError } from '../../../src/model/errors.js';
import {
  appStateInput,
  capabilityInput,
  liveDiffInput,
  pruneInput,
  recording,
  syncAllInput,
  syncInput,
  watchInput,
  windowsInput,
  type SourceFlags,
  type WatchFlags,
} from '../../../src/cli/inputs.js';
import { memoryIo } from '../../../src/cli/io.js';
import { CONTROL_PLANE_NAMESPACE, controlPlaneNamespace } from '../../../src/model/keys.js';

describe('appStateInput', () => {
  it('keeps what was given; an empty flag is none; the booleans only when true', () => {
    const flags: SourceFlags = {
      app: 'shop',
      appFile: '',
      desired: './k8s',
      revision: '',
      repoDir: '/clone',
      render: false,
      hardRefresh: true,
      argocdNamespace: 'argocd',
      projectFile: 'p.yaml',
      helm: '',
    };
    const input = appStateInput(flags);
    expect(input).toMatchObject({ app: 'shop', desired: './k8s', repoDir: '/clone', hardRefresh: true, argocdNamespace: 'argocd', projectFile: 'p.yaml' });
    expect(input.appFile).toBeUndefined();
    expect(input.revision).toBeUndefined();
    expect(input.helm).toBeUndefined();
    expect(input).not.toHaveProperty('render');
    expect(appStateInput({ render: true })).toHaveProperty('render', true);
  });
  it('refuses -f - with --desired -: standard input holds one of them', () => {
    expect(() => appStateInput({ appFile: '-', desired: '-' })).toThrow('-f/--app-file and --desired cannot both read standard input (-)');
    expect(appStateInput({ appFile: '-', desired: './k8s' })).toMatchObject({ appFile: '-', desired: './k8s' });
  });
  it('carries every source and rules flag into its field', () => {
    const all: Required<SourceFlags> = {
      app: 'a',
      appFile: 'f',
      desired: 'd',
      revision: 'r',
      repoDir: 'rd',
      render: true,
      hardRefresh: true,
      kustomize: 'k',
      kustomizeBuildOptions: 'kb',
      helm: 'h',
      kubeVersion: 'v1.30.0',
      apiVersions: ['v1'],
      argocdNamespace: 'an',
      projectFile: 'pf',
      argocdCm: 'cm',
      argocdCmdParamsCm: 'cp',
      luaDir: 'ld',
      revisions: ['main'],
      sourcePositions: ['2'],
      sourceNames: [],
    };
    const input = appStateInput(all);
    // A flag that is dropped on the way, or lands in another field, shows here.
    const { revisions: _r, sourcePositions: _p, sourceNames: _n, ...rest } = all;
    expect(input).toEqual({ ...rest, apiVersions: ['v1'], sourcePins: [{ revision: 'main', position: 2 }] });
  });
});

it('capabilityInput: --kube-version and --api-versions from the command line (repeated or comma-separated)', () => {
  expect(capabilityInput({})).toEqual({});
  expect(capabilityInput({ kubeVersion: '', apiVersions: [] })).toEqual({});
  expect(capabilityInput({ kubeVersion: 'v1.30.0', apiVersions: ['v1,apps/v1', 'x/v1/K'] })).toEqual({
    kubeVersion: 'v1.30.0',
    apiVersions: ['v1', 'apps/v1', 'x/v1/K'],
  });
});

it('recording: unless --no-record, and never with --desired', () => {
  expect(recording({})).toBe(true);
  expect(recording({ record: true })).toBe(true);
  expect(recording({ record: false })).toBe(false);
  expect(recording({ record: true, desired: './k8s' })).toBe(false);
});

it('liveDiffInput: the sources and --server-side', () => {
  expect(liveDiffInput({ app: 'shop' })).toMatchObject({ app: 'shop', serverSide: false });
  expect(liveDiffInput({ app: 'shop', serverSide: true })).toMatchObject({ app: 'shop', serverSide: true });
});

describe('watchInput', () => {
  const base: WatchFlags = { app: 'shop', interval: '2s', timeout: '5m', record: true };
  it('reads the interval, the timeout and the webhook secret from the flag or the environment', () => {
    expect(watchInput({ ...base, webhookAddr: ':0' }, { KGITOPS_WEBHOOK_SECRET: 'env' })).toEqual({
      source: appStateInput({ app: 'shop' }),
      interval: '2s',
      intervalMs: 2000,
      timeoutMs: 300_000,
      prune: false,
      forceConflicts: true,
      record: true,
      webhookAddr: ':0',
      webhookSecret: 'env',
    });
    expect(
      watchInput({ ...base, interval: '1m', webhookAddr: ':0', webhookSecret: 'flag', prune: true, forceConflicts: true }, { KGITOPS_WEBHOOK_SECRET: 'env' }),
    ).toMatchObject({
      intervalMs: 60_000,
      webhookSecret: 'flag',
      prune: true,
      forceConflicts: true,
    });
    expect(watchInput(base, { KGITOPS_WEBHOOK_SECRET: 'env' })).not.toHaveProperty('webhookSecret');
    expect(watchInput({ ...base, webhookAddr: '' }, { KGITOPS_WEBHOOK_SECRET: 'env' })).not.toHaveProperty('webhookAddr');
  });
  it('records each round unless --no-record or --desired', () => {
    expect(watchInput({ ...base, record: false }, {}).record).toBe(false);
    expect(watchInput({ ...base, desired: './k8s' }, {}).record).toBe(false);
  });
  it.each([
    [{ interval: '500ms' }, /at least 1s/],
    [{ interval: 'soon' }, /--interval/],
    [{ timeout: 'later' }, /--timeout/],
    [{ webhookSecret: 'x' }, /--webhook-addr/],
    [{ webhookSecret: 'x', webhookAddr: '' }, /--webhook-addr/],
  ])('refuses %j', (over, message) => {
    expect(() => watchInput({ ...base, ...over }, {})).toThrow(InputError);
    expect(() => watchInput({ ...base, ...over }, {})).toThrow(message);
  });
});

describe("through the commands' own flag definitions", () => {
  /** Runs `argv` through yargs with the command's real builder; its run hands the parsed arguments to `capture`. */
  async function parsed<T>(command: GitopsCommand, argv: string[], map: (args: never, env: Record<string, string | undefined>) => T): Promise<T> {
    let out: T | undefined;
    const m = memoryIo({ env: { KGITOPS_WEBHOOK_SECRET: 'from-env' } });
    const spy: GitopsCommand = {
      ...command,
      run: async (args, ctx) => {
        out = map(args as never, ctx.io.env);
        return ExitCode.Ok;
      },
    };
    const code = await runCli(argv, m.io, [spy]);
    expect({ code, err: m.stderr() }).toEqual({ code: ExitCode.Ok, err: '' });
    return out as T;
  }

  it("sync --watch: the defaults of its options (argocd-cm's interval, 5m, recorded) and the flags given", async () => {
    const w = await parsed(syncCommand, ['sync', 'shop', '--watch'], watchInput);
    expect(w).toEqual({
      source: appStateInput({ app: 'shop', argocdNamespace: 'argocd' }),
      timeoutMs: 300_000,
      prune: false,
      forceConflicts: true,
      record: true,
    });
    const given = await parsed(
      syncCommand,
      [
        'sync',
        '-f',
        'app.yaml',
        '--watch',
        '--interval',
        '2s',
        '--timeout',
        '1m',
        '--prune',
        '--force-conflicts',
        '--no-record',
        '--webhook-addr',
        '127.0.0.1:0',
        '--revision',
        'v2',
        '--argocd-namespace',
        'ops',
      ],
      watchInput,
    );
    expect(given).toEqual({
      source: appStateInput({ appFile: 'app.yaml', revision: 'v2', argocdNamespace: 'ops' }),
      interval: '2s',
      intervalMs: 2000,
      timeoutMs: 60_000,
      prune: true,
      forceConflicts: true,
      record: false,
      webhookAddr: '127.0.0.1:0',
      webhookSecret: 'from-env',
    });
  });

  it('diff APP: the source flags and --server-side, --api-versions split', async () => {
    const d = await parsed(
      diffCommand,
      [
        'diff',
        'shop',
        '--server-side',
        '--hard-refresh',
        '--kube-version',
        'v1.31.0',
        '--api-versions',
        'v1,apps/v1',
        '--api-versions',
        'x/v1/K',
        '--project-file',
        'p.yaml',
      ],
      liveDiffInput,
    );
    expect(d).toEqual({
      ...appStateInput({ app: 'shop', argocdNamespace: 'argocd', projectFile: 'p.yaml' }),
      hardRefresh: true,
      kubeVersion: 'v1.31.0',
      apiVersions: ['v1', 'apps/v1', 'x/v1/K'],
      serverSide: true,
    });
    expect((await parsed(diffCommand, ['diff', 'shop'], liveDiffInput)).serverSide).toBe(false);
  });

  it('a list flag takes one value each time: the APP after it stays the APP', async () => {
    const resources = (a: { app?: string; resource?: string[] }) => ({ app: a.app, resource: a.resource });
    expect(await parsed(syncCommand, ['sync', '--resource', ':ConfigMap:a', 'shop'], resources)).toEqual({ app: 'shop', resource: [':ConfigMap:a'] });
    // Repeatable: every --resource counts (docs/commands/sync.md: "repeatable, Argo CD's syntax").
    expect(await parsed(syncCommand, ['sync', 'shop', '--resource', ':ConfigMap:a', '--resource', 'apps:Deployment:b'], resources)).toEqual({
      app: 'shop',
      resource: [':ConfigMap:a', 'apps:Deployment:b'],
    });
    expect(await parsed(diffCommand, ['diff', '--api-versions', 'v1', 'shop'], liveDiffInput)).toMatchObject({ app: 'shop', apiVersions: ['v1'] });
  });

  it('status, prune and rollback: the same app state input (rollback declares only some of the source flags)', async () => {
    for (const [command, argv] of [
      [statusCommand, ['status', 'shop', '--desired', './k8s', '--render']],
      [pruneCommand, ['prune', 'shop', '--desired', './k8s', '--render']],
    ] as const) {
      expect(await parsed(command, [...argv], appStateInput)).toEqual(
        appStateInput({ app: 'shop', desired: './k8s', render: true, argocdNamespace: 'argocd' }),
      );
    }
    expect(await parsed(rollbackCommand, ['rollback', 'shop', '3', '--repo-dir', '/clone'], appStateInput)).toEqual(
      appStateInput({ app: 'shop', repoDir: '/clone', argocdNamespace: 'argocd' }),
    );
  });

  it("--argocd-namespace defaults to the namespace the workflows fall back to when none is given (list's and the dashboard's apps)", async () => {
    expect(controlPlaneNamespace(undefined)).toBe(CONTROL_PLANE_NAMESPACE);
    expect(controlPlaneNamespace('')).toBe(CONTROL_PLANE_NAMESPACE);
    expect(controlPlaneNamespace('ops')).toBe('ops');
    for (const [command, argv] of [
      [syncCommand, ['sync', 'shop']],
      [rollbackCommand, ['rollback', 'shop']],
      [diffCommand, ['diff', 'shop']],
    ] as const) {
      expect((await parsed(command, [...argv], appStateInput)).argocdNamespace).toBe(CONTROL_PLANE_NAMESPACE);
    }
  });

  it("sync APP: the options, a partial sync's --resource and -l, --timeout in ms", async () => {
    expect(await parsed(syncCommand, ['sync', 'shop'], syncInput)).toEqual({
      ...appStateInput({ app: 'shop', argocdNamespace: 'argocd' }),
      dryRun: false,
      prune: false,
      forceConflicts: true,
      resources: [],
      timeoutMs: 300_000,
    });
    // Fields are taken back by default; --no-force-conflicts is the cautious mode.
    expect((await parsed(syncCommand, ['sync', 'shop', '--no-force-conflicts'], syncInput)).forceConflicts).toBe(false);
    expect((await parsed(syncCommand, ['sync', 'shop', '--watch', '--no-force-conflicts'], watchInput)).forceConflicts).toBe(false);
    expect(
      await parsed(
        syncCommand,
        ['sync', 'shop', '--dry-run', '--prune', '--force-conflicts', '--resource', 'apps:Deployment:orders', '-l', 'tier=web', '--timeout', '90s'],
        syncInput,
      ),
    ).toEqual({
      ...appStateInput({ app: 'shop', argocdNamespace: 'argocd' }),
      dryRun: true,
      prune: true,
      forceConflicts: true,
      resources: ['apps:Deployment:orders'],
      selector: 'tier=web',
      timeoutMs: 90_000,
    });
    expect(() => syncInput({ timeout: 'soon' })).toThrow(/--timeout/);
  });

  it("sync --all: -A, -l as the Applications' selector, the options each sync gets; a --retry-limit that is no whole number of -1 or more is an input error", async () => {
    expect(await parsed(syncCommand, ['sync', '--all'], syncAllInput)).toEqual({
      allNamespaces: false,
      dryRun: false,
      prune: false,
      forceConflicts: true,
      timeoutMs: 300_000,
      record: true,
      argocdNamespace: 'argocd',
    });
    expect(
      await parsed(
        syncCommand,
        [
          'sync',
          '--all',
          '-A',
          '-l',
          'team=shop',
          '--dry-run',
          '--prune',
          '--retry-limit',
          '2',
          '--no-record',
          '--argocd-namespace',
          'ops',
          '--no-force-conflicts',
        ],
        syncAllInput,
      ),
    ).toEqual({
      allNamespaces: true,
      appSelector: 'team=shop',
      dryRun: true,
      prune: true,
      forceConflicts: false,
      timeoutMs: 300_000,
      record: false,
      retryLimit: 2,
      argocdNamespace: 'ops',
    });
    expect(() => syncAllInput({ timeout: '5m', retryLimit: 1.5 })).toThrow(new InputError('--retry-limit must be a whole number (-1 for no limit), got 1.5'));
    expect(() => syncAllInput({ timeout: '5m', retryLimit: -2 })).toThrow(InputError);
    expect(() => syncAllInput({ timeout: '5m', retryLimit: Number.NaN })).toThrow(InputError);
    expect(syncAllInput({ timeout: '5m', retryLimit: -1 })).toHaveProperty('retryLimit', -1);
  });

  it('prune APP and windows APP: the sources with --confirm, --propagation-policy, --wait and --timeout, or --all', async () => {
    const source = appStateInput({ app: 'shop', argocdNamespace: 'argocd' });
    expect(await parsed(pruneCommand, ['prune', 'shop'], pruneInput)).toEqual({ ...source, confirm: false });
    // --confirm waits for what it deleted, --timeout long (5m by default), unless --wait=false.
    expect(await parsed(pruneCommand, ['prune', 'shop', '--confirm', '--propagation-policy', 'orphan'], pruneInput)).toEqual({
      ...source,
      confirm: true,
      propagationPolicy: 'orphan',
      waitMs: 300_000,
    });
    expect(await parsed(pruneCommand, ['prune', 'shop', '--confirm', '--timeout', '20s'], pruneInput)).toEqual({ ...source, confirm: true, waitMs: 20_000 });
    expect(await parsed(pruneCommand, ['prune', 'shop', '--confirm', '--wait=false'], pruneInput)).toEqual({ ...source, confirm: true });
    expect(() => pruneInput({ app: 'shop', argocdNamespace: 'argocd', timeout: 'soon' })).toThrow(InputError);
    expect(await parsed(windowsCommand, ['windows', 'shop'], windowsInput)).toEqual({ ...source, all: false });
    expect(await parsed(windowsCommand, ['windows', 'shop', '--all'], windowsInput)).toEqual({ ...source, all: true });
  });
});
