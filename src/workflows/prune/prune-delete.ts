// Deletes prune candidates one by one, each guarded by uid and resourceVersion; collects every result.
import type { KubeGateway } from '../../kube/gateway.js';
import { KubeApiError } from '../../kube/errors.js';
import type { PruneCandidate } from '../../prune/plan.js';
import type { PropagationPolicy } from '../../model/object.js';

export interface DeleteResult {
  candidate: PruneCandidate;
  outcome: 'deleted' | 'skipped' | 'gone' | 'changed' | 'failed';
  message?: string;
}

export interface DeleteOptions {
  propagationPolicy: PropagationPolicy;
  dryRun?: boolean;
  /** Once aborted, no new delete starts: the candidates not reached are `skipped`, said so. */
  signal?: AbortSignal;
}

/** What a candidate not reached by a stopped prune is told. */
export const NOT_REACHED = 'not deleted: the prune was stopped before its turn';

/**
 * Deletes each candidate not marked skip, in order, with preconditions on the uid and
 * resourceVersion seen at listing time: an object recreated or changed since is left alone
 * (`changed`); one already gone is `gone`. Never stops at a failure.
 *
 * One at a time on purpose, where gitops-engine deletes a wave's candidates in parallel: when the
 * connection to the API server is lost, at most one delete is in flight, so the report can say
 * exactly what was deleted (test/integration/hardening/faults.test.ts stops the server mid-prune
 * and checks the cluster against the report object by object; in parallel it did not agree).
 */
export async function deleteCandidates(gw: KubeGateway, candidates: readonly PruneCandidate[], opts: DeleteOptions): Promise<DeleteResult[]> {
  const out: DeleteResult[] = [];
  for (const candidate of candidates) {
    if (candidate.skip) {
      out.push({ candidate, outcome: 'skipped', message: candidate.skip });
      continue;
    }
    if (opts.signal?.aborted) {
      out.push({ candidate, outcome: 'skipped', message: NOT_REACHED });
      continue;
    }
    const { uid, resourceVersion } = candidate.object.metadata;
    try {
      await gw.delete(candidate.type, candidate.key.namespace, candidate.key.name, {
        preconditions: { ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}) },
        propagationPolicy: opts.propagationPolicy,
        ...(opts.dryRun ? { dryRun: true } : {}),
      });
      out.push({ candidate, outcome: 'deleted' });
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) {
        out.push({ candidate, outcome: 'gone', message: 'already deleted' });
      } else if (err instanceof KubeApiError && err.status === 409) {
        out.push({ candidate, outcome: 'changed', message: 'recreated or changed since it was listed: not deleted' });
      } else {
        out.push({ candidate, outcome: 'failed', message: (err as Error).message });
      }
    }
  }
  return out;
}

/**
 * Waits until each deleted object is gone (or replaced by a new one, another uid); returns those still there at the
 * deadline. A foreground delete (Argo CD's default propagation) leaves the object Terminating until the garbage
 * collector has deleted its dependents; gitops-engine's sync waits for pruned objects so (`prunedTasksPendingDelete`),
 * and so do `sync` and `delete` here.
 */
export async function waitGone(
  gw: KubeGateway,
  deleted: readonly PruneCandidate[],
  o: { now: () => number; sleep: (ms: number) => Promise<void>; pollMs: number; deadline: number; signal?: AbortSignal },
): Promise<PruneCandidate[]> {
  let left = [...deleted];
  for (;;) {
    // Read side by side (the gateway bounds how many are in flight), kept in the order given.
    const here = await Promise.all(left.map(async (c) => (await gw.get(c.type, c.key.namespace, c.key.name))?.metadata.uid === c.object.metadata.uid));
    left = left.filter((_, i) => here[i]);
    // A stop asked for ends the wait as the time limit does: what is still there is returned.
    if (left.length === 0 || o.now() >= o.deadline || o.signal?.aborted) return left;
    await o.sleep(o.pollMs);
  }
}

/** Why a deleted object is still there when the wait for it ends: its finalizers (as listed) or its dependents. */
export function stillThereAtTheLimit(c: PruneCandidate): string {
  const finalizers = c.object.metadata.finalizers;
  const names = Array.isArray(finalizers) ? (finalizers as unknown[]).map(String) : [];
  const held = names.length > 0 ? `its finalizers ${names.join(', ')} or its dependents` : 'its dependents';
  return `deleted, but still there at the time limit (${held})`;
}
