// Deletes prune candidates wave by wave (a wave's side by side), each guarded by uid and resourceVersion; collects every result.
import type { KubeGateway, PropagationPolicy } from '../kube/gateway.js';
import { KubeApiError } from '../kube/errors.js';
import type { PruneCandidate } from './plan.js';

export interface DeleteResult {
  candidate: PruneCandidate;
  outcome: 'deleted' | 'skipped' | 'gone' | 'changed' | 'failed';
  message?: string;
}

export interface DeleteOptions {
  propagationPolicy: PropagationPolicy;
  dryRun?: boolean;
}

/**
 * Deletes each candidate not marked skip, with preconditions on the uid and resourceVersion seen
 * at listing time: an object recreated or changed since is left alone (`changed`); one already gone
 * is `gone`. Candidates come in prune order (later waves first); those of one wave are deleted side
 * by side, as gitops-engine runs a wave's prune tasks in parallel (pkg/sync/sync_context.go,
 * runTasks), and a wave starts only when the previous one is done. The gateway bounds how many
 * requests are in flight. Never stops at a failure; results keep the candidates' order.
 */
export async function deleteCandidates(gw: KubeGateway, candidates: readonly PruneCandidate[], opts: DeleteOptions): Promise<DeleteResult[]> {
  const out: DeleteResult[] = [];
  for (let i = 0; i < candidates.length; ) {
    let j = i + 1;
    while (j < candidates.length && candidates[j]!.wave === candidates[i]!.wave) j++;
    out.push(...(await Promise.all(candidates.slice(i, j).map((c) => deleteOne(gw, c, opts)))));
    i = j;
  }
  return out;
}

async function deleteOne(gw: KubeGateway, candidate: PruneCandidate, opts: DeleteOptions): Promise<DeleteResult> {
  if (candidate.skip) return { candidate, outcome: 'skipped', message: candidate.skip };
  const { uid, resourceVersion } = candidate.object.metadata;
  try {
    await gw.delete(candidate.type, candidate.key.namespace, candidate.key.name, {
      preconditions: { ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}) },
      propagationPolicy: opts.propagationPolicy,
      ...(opts.dryRun ? { dryRun: true } : {}),
    });
    return { candidate, outcome: 'deleted' };
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) return { candidate, outcome: 'gone', message: 'already deleted' };
    if (err instanceof KubeApiError && err.status === 409) return { candidate, outcome: 'changed', message: 'recreated or changed since it was listed: not deleted' };
    return { candidate, outcome: 'failed', message: (err as Error).message };
  }
}
