// `status --recursive` and `diff --recursive` (app-of-apps): the child Applications an app declares, each compared afresh as `status CHILD`
// compares it (never the stored .status, which may be stale), their own children after them, to any depth, through one
// snapshot per cluster for all of them (the pool `list` uses). An Application that is its own ancestor is listed with
// that error and not followed.
import type { RunContext } from '../../model/context.js';
import type { ChildStatus, StatusReport } from '../../health/report.js';

/** The child Applications a status report declares (argoproj.io Applications of the desired set; not prune candidates). */
export function childAppsOf(r: StatusReport): { namespace: string; name: string }[] {
  return r.resources
    .filter((x) => x.group === 'argoproj.io' && x.kind === 'Application' && !x.requiresPruning)
    .map((x) => ({ namespace: x.namespace, name: x.name }));
}

/** The child Applications among a diff's desired objects (argoproj.io Applications). */
export function childAppsOfObjects(
  objects: readonly { key: { group: string; kind: string; namespace: string; name: string } }[],
): { namespace: string; name: string }[] {
  return objects.filter((o) => o.key.group === 'argoproj.io' && o.key.kind === 'Application').map((o) => ({ namespace: o.key.namespace, name: o.key.name }));
}

/**
 * Compares each of `children` (the child Applications of `parent`), then theirs, depth first; `describe` is the REASON
 * text (cli/ hands in render/status.ts's). With `tree`, each child keeps its resources and live trees (`status --tree
 * --recursive` draws them under the child's node).
 */
export async function statusChildren(
  ctx: RunContext,
  parent: { namespace: string; name: string },
  children: readonly { namespace: string; name: string }[],
  describe: (r: StatusReport) => string,
  opts: { tree?: boolean; argocdNamespace?: string } = {},
): Promise<ChildStatus[]> {
  const { childAppContext, GatewayPool, withAppTarget } = await import('../session/session.js');
  const { runStatus } = await import('./status.js');
  const pool = new GatewayPool(ctx);
  const walk = async (level: readonly { namespace: string; name: string }[], chain: readonly string[]): Promise<ChildStatus[]> => {
    const out: ChildStatus[] = [];
    for (const c of level) {
      const id = `${c.namespace}/${c.name}`;
      if (chain.includes(id)) {
        out.push({ ...c, sync: 'Unknown', health: 'Unknown', error: `its own ancestor (${[...chain, id].join(' -> ')}): not followed` });
        continue;
      }
      const base = childAppContext(ctx, c.namespace);
      const childCtx: RunContext = { ...base, opts: { ...base.opts, verbose: false } };
      try {
        const args = { app: c.name, ...(opts.argocdNamespace !== undefined ? { argocdNamespace: opts.argocdNamespace } : {}) };
        const r = await withAppTarget(childCtx, 'status', args, (session) => runStatus(args, { io: ctx.io, opts: childCtx.opts, ...session }), pool);
        const reason = describe(r.report);
        const children = await walk(childAppsOf(r.report), [...chain, id]);
        out.push({
          ...c,
          sync: r.report.sync.status,
          health: r.report.health.status,
          ...(reason !== '' ? { reason } : {}),
          ...(children.length > 0 ? { children } : {}),
          ...(opts.tree === true ? { resources: r.report.resources, trees: r.report.trees } : {}),
        });
      } catch (err) {
        out.push({ ...c, sync: 'Unknown', health: 'Unknown', error: (err as Error).message });
      }
    }
    return out;
  };
  try {
    return await walk(children, [`${parent.namespace}/${parent.name}`]);
  } finally {
    pool.close();
  }
}
