// Whether Argo CD's status of an Application is a comparison made after the last change, of the commit the repository
// holds now: its `status.reconciledAt` no earlier than the moment just before the change, and its `status.sync.revision`
// that commit (`status.sync.revisions` the commit of each source, for a multi-source Application). A verdict read from a status that fails either is stale (an earlier comparison, or an older commit), and
// the conformance suite never reads one (support/argocd.ts waits until this says nothing).

/** The parts of an Application's status that say which comparison it is. */
export interface ComparisonStamp {
  metadata?: { annotations?: Record<string, string> };
  operation?: unknown;
  status?: { reconciledAt?: string; sync?: { status?: string; revision?: string; revisions?: string[] } };
}

/**
 * What the status must show: a comparison made at or after `sinceMs` (epoch milliseconds), of `commit`, or of a
 * multi-source Application's `commits` (one per entry of spec.sources, as `status.sync.revisions` lists them).
 */
export type Freshness = { sinceMs: number } & ({ commit: string } | { commits: readonly string[] });

/**
 * Why the status is not (yet) a comparison of `commit` made after `sinceMs`, one reason each; empty when it is.
 * `reconciledAt` is written with second precision (a truncated time), so it is compared with `sinceMs` floored to its
 * second: a comparison that started after the change can never read earlier than that.
 */
export function staleness(app: ComparisonStamp, want: Freshness): string[] {
  const out: string[] = [];
  const pending = app.metadata?.annotations?.['argocd.argoproj.io/refresh'];
  if (pending !== undefined) out.push(`refresh=${pending} still requested`);
  if (app.operation !== undefined) out.push('an operation is pending');
  const at = app.status?.reconciledAt;
  const atMs = at === undefined ? Number.NaN : Date.parse(at);
  const sinceSecond = Math.floor(want.sinceMs / 1000) * 1000;
  if (Number.isNaN(atMs)) out.push(`no reconciledAt (got ${JSON.stringify(at)})`);
  else if (atMs < sinceSecond) out.push(`reconciledAt ${at} is before the change at ${new Date(sinceSecond).toISOString()}`);
  if (!app.status?.sync?.status) out.push('no sync status');
  if ('commits' in want) {
    const revisions = app.status?.sync?.revisions ?? [];
    if (revisions.join(',') !== want.commits.join(','))
      out.push(`sync.revisions ${revisions.length > 0 ? revisions.join(',') : '(none)'} are not the commits ${want.commits.join(',')}`);
    return out;
  }
  const revision = app.status?.sync?.revision;
  if (revision !== want.commit) out.push(`sync.revision ${revision ?? '(none)'} is not the commit ${want.commit}`);
  return out;
}
