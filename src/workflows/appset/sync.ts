// `appset sync`: writes the Applications an ApplicationSet generates as Argo CD's ApplicationSet controller writes them:
// created, updated and deleted as its applicationsSync policy allows, owned by the live ApplicationSet (when it is in
// the cluster), one write at a time, each guarded by the live Application's uid or resourceVersion. The plan is the
// core's (appset/sync-plan.ts); this reads the cluster (the ApplicationSet, one LIST of its namespace's Applications)
// and carries the plan out, reporting each write.
import { type AppSetAction, type ApplicationsSyncPolicy, appSetSyncSettings, planAppSetSync } from '../../appset/sync-plan.js';
import { finalizersAfter } from '../../prune/delete-plan.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { RunContext } from '../../model/context.js';
import { describeError, InputError, RefusedError } from '../../model/errors.js';
import type { KubeObject } from '../../model/object.js';
import { type AppSetGenerateRequest, expandAppSet } from './generate.js';
import type { SyncAllReport, SyncAllRequest } from '../sync/sync-all.js';

/** The field manager of the writes: the ApplicationSet controller's own. */
const APPSET_FIELD_MANAGER = 'argocd-applicationset-controller';

export interface AppSetSyncRequest extends AppSetGenerateRequest {
  /** Plan only: nothing is written. */
  dryRun: boolean;
  /** How long finishing a deleted Application's deletion (its objects, delete hooks, finalizers) may take. */
  timeoutMs: number;
  /** Then sync every generated Application (--recursive), as `sync --all` syncs them; not with a dry run. */
  recursive?: Omit<SyncAllRequest, 'allNamespaces' | 'appSelector' | 'dryRun'>;
}

export interface AppSetSyncResult {
  /** `namespace/name`. */
  app: string;
  action: AppSetAction;
  /** Whether the write was made (always true for unchanged; false on a dry run or a failed write). */
  done: boolean;
  note?: string;
  error?: string;
}

export interface AppSetSyncReport {
  applicationSet: string;
  origin: string;
  policy: ApplicationsSyncPolicy;
  dryRun: boolean;
  /** Whether a live ApplicationSet owns the Applications (ownerReferences set, deletion possible). */
  owned: boolean;
  results: AppSetSyncResult[];
  invalid: { name: string; error: string }[];
  warnings: string[];
  /** --recursive: the sync of each generated Application, after the writes (absent when a write failed). */
  synced?: SyncAllReport;
}

/** Reads, plans and writes. A plan refused (an Application another controller owns) is a RefusedError before any write. */
export async function runAppSetSync(ctx: RunContext, req: AppSetSyncRequest): Promise<AppSetSyncReport> {
  const { withControlPlane } = await import('../session/session.js');
  return withControlPlane(ctx, 'appset sync', async (gw) => {
    const { report, raw, fromCluster } = await expandAppSet(ctx, req, async () => gw);
    const [namespace, name] = report.applicationSet.split('/') as [string, string];
    const appsetType = await gw.resolve('argoproj.io/v1alpha1', 'ApplicationSet');
    const appType = await gw.resolve('argoproj.io/v1alpha1', 'Application');
    if (!appType) throw new InputError('the cluster does not serve argoproj.io Applications (no Argo CD Application CRD)');
    // The owner: the ApplicationSet as it is in the cluster (read already when named; looked up for a file).
    const live = fromCluster ? (raw as KubeObject) : appsetType ? await gw.get(appsetType, namespace, name) : undefined;
    const settings = appSetSyncSettings(raw, name, namespace);
    if ('error' in settings) throw new InputError(`${report.origin}: ${settings.error}`);
    if ('refusal' in settings) throw new RefusedError(`${report.origin}: ${settings.refusal}`);
    if (req.recursive && rollingSync(raw))
      throw new RefusedError(
        `${report.origin}: a RollingSync strategy's steps are not carried out by appset sync --recursive: sync its steps' Applications with sync -l`,
      );
    if (live?.metadata.uid !== undefined) settings.uid = live.metadata.uid;
    const current = (await gw.list(appType, { namespace })).items as unknown as Record<string, unknown>[];
    const names = [...report.applications.map((a) => a.metadata.name ?? ''), ...report.invalid.map((i) => i.name.split('/')[1] ?? '')];
    const plan = planAppSetSync(settings, report.applications as unknown as Record<string, unknown>[], names, current);
    if (plan.refusal) throw new RefusedError(`${report.origin}: ${plan.refusal}`);
    const results: AppSetSyncResult[] = [];
    for (const step of plan.steps) {
      const base = { app: step.app, action: step.action, ...(step.note !== undefined ? { note: step.note } : {}) };
      if (step.action === 'unchanged') {
        results.push({ ...base, done: true });
        continue;
      }
      if (req.dryRun) {
        results.push({ ...base, done: false });
        continue;
      }
      try {
        await write(gw, appType, step.action, step.app, step.object as unknown as KubeObject | undefined, step.uid);
        // A deleted Application with Argo CD's deletion finalizers would wait Terminating for a controller: its
        // deletion is finished here as `delete` finishes it (its objects, delete hooks, then the finalizers).
        const was = step.action === 'delete' ? current.find((a) => `${namespace}/${String((a.metadata as { name?: string }).name)}` === step.app) : undefined;
        const finalizers = ((was?.metadata as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter((f) => finalizersAfter([f]).length === 0);
        if (finalizers.length > 0) {
          const { finishAppDeletion } = await import('../delete/delete.js');
          const [ns, appName] = step.app.split('/') as [string, string];
          const done = await finishAppDeletion(ctx, { namespace: ns, name: appName }, req.timeoutMs);
          if (!done.ok) {
            results.push({
              ...base,
              done: false,
              error: `deleted, but left Terminating (${done.message}): finish it with kubectl gitops delete ${appName} --app-namespace ${ns}`,
            });
            continue;
          }
          results.push({ ...base, done: true, note: `its deletion finished as delete would: ${done.message}` });
          continue;
        }
        results.push({ ...base, done: true });
      } catch (err) {
        // One Application's failure does not stop the others (the controller goes on and reports the first error).
        results.push({ ...base, done: false, error: describeError(err, false).replace(/^error: /, '') });
      }
    }
    const out: AppSetSyncReport = {
      applicationSet: report.applicationSet,
      origin: report.origin,
      policy: settings.policy,
      dryRun: req.dryRun,
      owned: settings.uid !== undefined,
      results,
      invalid: report.invalid,
      warnings: plan.warnings,
    };
    if (!req.recursive || req.dryRun || results.some((r) => r.error !== undefined)) return out;
    // The generated Applications now in the cluster, in generation order, each synced as `sync --all` syncs it.
    const written = new Set(results.filter((r) => r.action !== 'delete').map((r) => r.app));
    const apps = report.applications.filter((a) => written.has(`${namespace}/${a.metadata.name ?? ''}`));
    const { syncApplications } = await import('../sync/sync-all.js');
    const appCtx: RunContext = { ...ctx, opts: { ...ctx.opts, appNamespace: namespace } };
    out.synced = await syncApplications(appCtx, apps, { ...req.recursive, allNamespaces: false, dryRun: false }, (line) => out.warnings.push(line));
    return out;
  });
}

/** Whether the ApplicationSet asks for a RollingSync strategy (progressive syncs). */
function rollingSync(raw: unknown): boolean {
  const spec = (raw as { spec?: { strategy?: { type?: unknown } } } | undefined)?.spec;
  return spec?.strategy?.type === 'RollingSync';
}

async function write(
  gw: KubeGateway,
  type: NonNullable<Awaited<ReturnType<KubeGateway['resolve']>>>,
  action: AppSetAction,
  app: string,
  object: KubeObject | undefined,
  uid: string | undefined,
): Promise<void> {
  const [namespace, name] = app.split('/') as [string, string];
  if (action === 'create') await gw.create(type, object as KubeObject, { fieldManager: APPSET_FIELD_MANAGER, dryRun: false });
  else if (action === 'update') await gw.update(type, object as KubeObject, { fieldManager: APPSET_FIELD_MANAGER });
  else if (action === 'delete') await gw.delete(type, namespace, name, { ...(uid !== undefined ? { preconditions: { uid } } : {}) });
}
