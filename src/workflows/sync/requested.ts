// Runs a sync requested through an Application's `operation` field (app/requested-operation.ts) as `sync APP` runs
// one (operation.ts: the one executor, the retries, the record), then clears the field as Argo CD's controller does
// once the operation is over. The loops of `sync --watch` call it for their Application; `sync --watch --all` also for
// an Application with no loop (not automated: a requested sync is the way to sync it).
import type { RequestedSync } from '../../app/requested-operation.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { RunContext } from '../../model/context.js';
import type { GatewayPool } from '../session/session.js';
import { runOperation } from './operation.js';

export interface RequestedRun {
  ok: boolean;
  message: string;
}

/** Runs `requested` on the Application `ref`, records it, and removes `operation` if it still holds that request. */
export async function runRequestedSync(
  ctx: RunContext,
  ref: { namespace: string; name: string },
  requested: RequestedSync,
  opts: { controlPlane: KubeGateway; timeoutMs: number; record: boolean; argocdNamespace?: string; pool?: GatewayPool; say: (line: string) => void },
): Promise<RequestedRun> {
  const appCtx: RunContext = { ...ctx, opts: { ...ctx.opts, appNamespace: ref.namespace } };
  let run: RequestedRun;
  try {
    const result = await runOperation(
      appCtx,
      {
        kind: 'sync',
        request: {
          app: ref.name,
          ...(opts.argocdNamespace !== undefined ? { argocdNamespace: opts.argocdNamespace } : {}),
          ...(requested.revision !== undefined ? { revision: requested.revision } : {}),
          ...(requested.runOptions ? { runOptions: requested.runOptions } : {}),
          dryRun: requested.dryRun,
          prune: requested.prune,
          forceConflicts: true,
          resources: requested.resources,
          timeoutMs: opts.timeoutMs,
        },
        ...(requested.retryLimit !== undefined ? { retryLimit: requested.retryLimit } : {}),
        record: opts.record,
        ...(requested.username !== undefined ? { initiatedBy: { username: requested.username } } : {}),
      },
      { say: opts.say, handleSignals: false, ...(opts.pool ? { pool: opts.pool } : {}) },
    );
    const phase = result.report?.phase ?? (result.exitCode === 0 ? 'Succeeded' : 'Failed');
    run = { ok: result.exitCode === 0, message: `the requested sync ended ${phase}${result.report?.revision ? ` at ${result.report.revision}` : ''}` };
  } catch (err) {
    run = { ok: false, message: `the requested sync failed: ${(err as Error).message}` };
  }
  // As Argo CD ends an operation: the request is removed (a JSON patch that tests it first, so a newer one is kept).
  try {
    const type = await opts.controlPlane.resolve('argoproj.io/v1alpha1', 'Application');
    const live = type ? await opts.controlPlane.get(type, ref.namespace, ref.name) : undefined;
    if (type && live?.operation !== undefined && JSON.stringify(live.operation) === requested.key)
      await opts.controlPlane.patch(
        type,
        ref.namespace,
        ref.name,
        [
          { op: 'test', path: '/operation', value: live.operation },
          { op: 'remove', path: '/operation' },
        ],
        'json',
        { fieldManager: ctx.opts.fieldManager },
      );
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status !== 422 && status !== 404) run = { ...run, message: `${run.message}; the request could not be removed: ${(err as Error).message}` };
  }
  return run;
}
