// The conformance suite's test of a current Argo CD status (test/conformance/support/current.ts): a verdict is read only
// from a comparison made after the last change, of the repository's commit. The waiting itself runs against Argo CD's
// controller (npm run conformance).
import { staleness } from '../../conformance/support/current.js';

const COMMIT = '3f2a9c1e0b7d4a6f8e5c2b1a09d8c7b6a5f4e3d2';
const OLD = '0123456789abcdef0123456789abcdef01234567';
/** 10:00:05.700 UTC: a change made late in its second. */
const SINCE = Date.parse('2026-12-04T10:00:05.700Z');

const status = (reconciledAt: string | undefined, revision: string | undefined, more: Record<string, unknown> = {}) => ({
  status: { ...(reconciledAt ? { reconciledAt } : {}), sync: { status: 'Synced', ...(revision ? { revision } : {}) } },
  ...more,
});

describe('staleness', () => {
  it('accepts a comparison of the commit made in the second of the change or later (reconciledAt is truncated)', () => {
    expect(staleness(status('2026-12-04T10:00:05Z', COMMIT), { sinceMs: SINCE, commit: COMMIT })).toEqual([]);
    expect(staleness(status('2026-12-04T10:00:06Z', COMMIT), { sinceMs: SINCE, commit: COMMIT })).toEqual([]);
  });

  it('refuses a comparison from the second before the change', () => {
    expect(staleness(status('2026-12-04T10:00:04Z', COMMIT), { sinceMs: SINCE, commit: COMMIT })).toEqual([
      'reconciledAt 2026-12-04T10:00:04Z is before the change at 2026-12-04T10:00:05.000Z',
    ]);
  });

  it('refuses a comparison of another commit, or of none', () => {
    expect(staleness(status('2026-12-04T10:00:09Z', OLD), { sinceMs: SINCE, commit: COMMIT })).toEqual([`sync.revision ${OLD} is not the commit ${COMMIT}`]);
    expect(staleness(status('2026-12-04T10:00:09Z', undefined), { sinceMs: SINCE, commit: COMMIT })).toEqual([
      `sync.revision (none) is not the commit ${COMMIT}`,
    ]);
  });

  it("a multi-source Application's comparison names each source's commit, in spec.sources order", () => {
    const multi = (revisions: string[] | undefined) => ({
      status: { reconciledAt: '2026-12-04T10:00:09Z', sync: { status: 'Synced', ...(revisions ? { revisions } : {}) } },
    });
    expect(staleness(multi([COMMIT, OLD]), { sinceMs: SINCE, commits: [COMMIT, OLD] })).toEqual([]);
    expect(staleness(multi([OLD, COMMIT]), { sinceMs: SINCE, commits: [COMMIT, OLD] })).toEqual([
      `sync.revisions ${OLD},${COMMIT} are not the commits ${COMMIT},${OLD}`,
    ]);
    expect(staleness(multi(undefined), { sinceMs: SINCE, commits: [COMMIT] })).toEqual([`sync.revisions (none) are not the commits ${COMMIT}`]);
  });

  it('refuses a status still waiting for its refresh or its operation, or with no comparison at all', () => {
    const pending = status('2026-12-04T10:00:09Z', COMMIT, { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'hard' } }, operation: {} });
    expect(staleness(pending, { sinceMs: SINCE, commit: COMMIT })).toEqual(['refresh=hard still requested', 'an operation is pending']);
    expect(staleness({}, { sinceMs: SINCE, commit: COMMIT })).toEqual([
      'no reconciledAt (got undefined)',
      'no sync status',
      `sync.revision (none) is not the commit ${COMMIT}`,
    ]);
  });
});
