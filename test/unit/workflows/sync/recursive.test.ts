// App-of-apps (sync --recursive): the children a sync applied, walked wave by wave — each child's sync, its own
// children after it, a wave's children side by side, then the wave's health — stopping at the first failure, refusing a
// cycle before any child syncs.
import { ExitCode } from '../../../../src/model/errors.js';
import type { SyncReport } from '../../../../src/workflows/sync/execute.js';
import { childrenOf, walkChildren, WAVE_BOUND, type ChildRef, type WalkDeps } from '../../../../src/workflows/sync/recursive.js';

type Step = SyncReport['steps'][number];

function report(steps: Partial<Step>[], revision = 'abc'): SyncReport {
  return {
    schemaVersion: 1,
    app: 'root',
    origin: 'repo',
    revision,
    dryRun: false,
    force: true,
    steps: steps.map((s) => ({
      group: 'argoproj.io',
      kind: 'Application',
      namespace: 'argocd',
      name: 'x',
      wave: 0,
      action: 'apply',
      outcome: 'applied',
      ...s,
    })) as Step[],
    applied: steps.length,
    healed: [],
    ignored: [],
    conflicts: [],
    failures: [],
    hooks: [],
    prune: { enabled: false, why: '', last: false, propagationPolicy: 'foreground', results: [] },
    warnings: [],
  } as unknown as SyncReport;
}

const app = (name: string, wave: number, outcome = 'applied'): Partial<Step> => ({ name, wave, outcome });

test('childrenOf: the Applications the sync applied (or left as they were), by wave, then namespace and name', () => {
  const r = report([
    app('b', 1),
    app('a', 1),
    app('z', -1),
    app('gone', 0, 'failed'),
    { group: '', kind: 'ConfigMap', name: 'cm', wave: 0 },
    { group: 'example.com', kind: 'Application', name: 'other', wave: 0 },
    app('same', 2, 'skipped'),
  ]);
  expect(childrenOf(r)).toEqual([
    { namespace: 'argocd', name: 'z', wave: -1 },
    { namespace: 'argocd', name: 'a', wave: 1 },
    { namespace: 'argocd', name: 'b', wave: 1 },
    { namespace: 'argocd', name: 'same', wave: 2 },
  ]);
});

/** A cluster of Applications: what each one's sync applies (its children) and how it stands once synced. */
function fakeDeps(
  tree: Record<string, Partial<Step>[]>,
  standing: Record<string, { sync: string; health: string; reason?: string }> = {},
  failing: Record<string, ExitCode> = {},
) {
  const calls: string[] = [];
  const deps: WalkDeps = {
    async sync(c: ChildRef) {
      calls.push(`sync ${c.name}`);
      const code = failing[c.name];
      if (code !== undefined) return { exitCode: code, error: `${c.name} broke` };
      return { exitCode: ExitCode.Ok, report: report(tree[c.name] ?? []) };
    },
    async settle(c: ChildRef) {
      calls.push(`settle ${c.name}`);
      const s = standing[c.name] ?? { sync: 'Synced', health: 'Healthy' };
      return { converged: s.sync === 'Synced' && s.health === 'Healthy', ...s };
    },
  };
  return { calls, deps };
}

test('each wave is synced (a child’s own children right after it), then waits for its children, before the next', async () => {
  const { calls, deps } = fakeDeps({ a: [app('a1', 0), app('a2', 5)] });
  const walk = await walkChildren(childrenOf(report([app('a', 0), app('b', 1), app('c', 1)])), ['argocd/root'], deps);
  expect(calls).toEqual(['sync a', 'sync a1', 'settle a1', 'sync a2', 'settle a2', 'settle a', 'sync b', 'sync c', 'settle b', 'settle c']);
  expect(walk.exitCode).toBe(ExitCode.Ok);
  expect(walk.stopped).toBeUndefined();
  expect(walk.children.map((c) => [c.name, c.outcome, c.sync, c.health, c.revision])).toEqual([
    ['a', 'synced', 'Synced', 'Healthy', 'abc'],
    ['b', 'synced', 'Synced', 'Healthy', 'abc'],
    ['c', 'synced', 'Synced', 'Healthy', 'abc'],
  ]);
  expect(walk.children[0]!.children?.map((c) => c.name)).toEqual(['a1', 'a2']);
});

test('a Degraded child of the first wave stops the walk: the second wave is not synced, exit 3', async () => {
  const { calls, deps } = fakeDeps({}, { a: { sync: 'Synced', health: 'Degraded', reason: 'Job/migrate failed' } });
  const walk = await walkChildren(childrenOf(report([app('a', 0), app('ok', 0), app('b', 1)])), ['argocd/root'], deps);
  // every child of the wave is waited for, and told, even when another one stops the walk
  expect(calls).toEqual(['sync a', 'sync ok', 'settle a', 'settle ok']);
  expect(walk.exitCode).toBe(ExitCode.Cluster);
  expect(walk.children.map((c) => [c.name, c.outcome, c.health ?? '-', c.message ?? '-'])).toEqual([
    ['a', 'unhealthy', 'Degraded', 'Job/migrate failed'],
    ['ok', 'synced', 'Healthy', '-'],
    ['b', 'not-synced', '-', '-'],
  ]);
  expect(walk.stopped).toBe('child Application argocd/a (wave 0) is Synced and Degraded: Job/migrate failed');
});

test('a wave waits for its children all at once (one --timeout for the wave), each told as it stands', async () => {
  const { calls, deps } = fakeDeps({}, { slow: { sync: 'Synced', health: 'Progressing', reason: 'not Synced and Healthy within the --timeout' } });
  // a's wait ends only once b's has begun: waited for one after the other, the walk would never end
  let bStarted: () => void = () => {};
  const bWaits = new Promise<void>((resolve) => {
    bStarted = resolve;
  });
  const settle = deps.settle.bind(deps);
  deps.settle = async (c) => {
    if (c.name === 'b') bStarted();
    if (c.name === 'a') await bWaits;
    return settle(c);
  };
  const walk = await walkChildren(childrenOf(report([app('a', 0), app('b', 0), app('slow', 0), app('next', 1)])), ['argocd/root'], deps);
  expect(calls).toEqual(['sync a', 'sync b', 'sync slow', 'settle b', 'settle slow', 'settle a']);
  expect(walk.children.map((c) => [c.name, c.outcome, c.health ?? '-'])).toEqual([
    ['a', 'synced', 'Healthy'],
    ['b', 'synced', 'Healthy'],
    ['slow', 'unhealthy', 'Progressing'],
    ['next', 'not-synced', '-'],
  ]);
  expect([walk.exitCode, walk.stopped]).toEqual([
    ExitCode.Cluster,
    'child Application argocd/slow (wave 0) is Synced and Progressing: not Synced and Healthy within the --timeout',
  ]);
});

test('a child whose sync fails or is refused stops the walk, with its exit code; one failing deeper stops its ancestors', async () => {
  // A wave's children are synced WAVE_BOUND at once: the ones running when one fails finish their sync, no other starts,
  // the wave is not waited for and the next wave is not synced.
  expect(WAVE_BOUND).toBe(4);
  const failed = fakeDeps({}, {}, { a: ExitCode.Refused });
  const wave0 = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => app(n, 0));
  const walk = await walkChildren(childrenOf(report([...wave0, app('g', 1)])), ['argocd/root'], failed.deps);
  expect(failed.calls).toEqual(['sync a', 'sync b', 'sync c', 'sync d']);
  expect([walk.exitCode, walk.children.map((c) => [c.name, c.outcome, c.health ?? '-'])]).toEqual([
    ExitCode.Refused,
    [
      ['a', 'refused', '-'],
      ['b', 'synced', '-'],
      ['c', 'synced', '-'],
      ['d', 'synced', '-'],
      ['e', 'not-synced', '-'],
      ['f', 'not-synced', '-'],
      ['g', 'not-synced', '-'],
    ],
  ]);
  expect(walk.stopped).toBe('child Application argocd/a (wave 0) was refused: a broke');

  const deep = fakeDeps({ a: [app('a1', 0)] }, {}, { a1: ExitCode.Cluster });
  const nested = await walkChildren(childrenOf(report([app('a', 0), app('b', 1)])), ['argocd/root'], deep.deps);
  expect(deep.calls).toEqual(['sync a', 'sync a1']);
  expect(nested.exitCode).toBe(ExitCode.Cluster);
  expect(nested.children.map((c) => [c.name, c.outcome])).toEqual([
    ['a', 'failed'],
    ['b', 'not-synced'],
  ]);
  expect(nested.children[0]!.children?.map((c) => [c.name, c.outcome, c.message])).toEqual([['a1', 'failed', 'a1 broke']]);
});

test('an Application that is its own ancestor is refused (exit 4) before any child of that level is synced', async () => {
  const self = fakeDeps({});
  const walk = await walkChildren(childrenOf(report([app('a', 0), app('root', 1)])), ['argocd/root'], self.deps);
  expect(self.calls).toEqual([]);
  expect(walk.exitCode).toBe(ExitCode.Refused);
  expect(walk.stopped).toBe(
    'refusing to sync the child Applications of argocd/root: argocd/root is its own ancestor (argocd/root -> argocd/root); none of them was synced',
  );

  // Two levels down: mid renders root again.
  const loop = fakeDeps({ mid: [app('root', 0)] });
  const deeper = await walkChildren(childrenOf(report([app('mid', 0)])), ['argocd/root'], loop.deps);
  expect(loop.calls).toEqual(['sync mid']);
  expect([deeper.exitCode, deeper.children[0]!.outcome]).toEqual([ExitCode.Refused, 'refused']);
  expect(deeper.stopped).toContain('argocd/root -> argocd/mid -> argocd/root');
});

test('a signal during the walk: the child in progress finishes, nothing starts after it, exit 130 (143 for SIGTERM)', async () => {
  let signal: NodeJS.Signals | undefined;
  const { calls, deps } = fakeDeps({});
  const sync = deps.sync.bind(deps);
  deps.sync = async (c) => {
    const r = await sync(c);
    if (c.name === 'a') signal = 'SIGINT'; // arrives while a's sync runs
    return r;
  };
  deps.interrupted = () => signal;
  // a to d start together (WAVE_BOUND); e would start in a's slot, after the signal
  const wave0 = ['a', 'b', 'c', 'd', 'e'].map((n) => app(n, 0));
  const walk = await walkChildren(childrenOf(report([...wave0, app('z', 1)])), ['argocd/root'], deps);
  expect(calls).toEqual(['sync a', 'sync b', 'sync c', 'sync d']);
  expect(walk.exitCode).toBe(ExitCode.Interrupted);
  expect(walk.children.map((c) => [c.name, c.outcome])).toEqual([
    ['a', 'synced'],
    ['b', 'synced'],
    ['c', 'synced'],
    ['d', 'synced'],
    ['e', 'not-synced'],
    ['z', 'not-synced'],
  ]);
  expect(walk.stopped).toBe('interrupted by SIGINT before child Application argocd/e (wave 0)');

  // While a wave waits: the wait ends, the next wave does not start.
  let term: NodeJS.Signals | undefined;
  const waiting = fakeDeps({});
  waiting.deps.settle = async (c) => {
    term = 'SIGTERM';
    return { converged: false, sync: 'Synced', health: 'Progressing', reason: `interrupted by SIGTERM (${c.name})` };
  };
  waiting.deps.interrupted = () => term;
  const stoppedWalk = await walkChildren(childrenOf(report([app('a', 0), app('b', 1)])), ['argocd/root'], waiting.deps);
  expect(stoppedWalk.exitCode).toBe(ExitCode.Terminated);
  expect(stoppedWalk.stopped).toBe('interrupted by SIGTERM while wave 0 waited for argocd/a');
  expect(stoppedWalk.children.map((c) => [c.name, c.outcome])).toEqual([
    ['a', 'unhealthy'],
    ['b', 'not-synced'],
  ]);
});
