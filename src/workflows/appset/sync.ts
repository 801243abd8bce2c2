// `appset sync`: writes the Applications an ApplicationSet generates as Argo CD's ApplicationSet controller writes them:
// created, updated and deleted as its applicationsSync policy allows, owned by the live ApplicationSet (when it is in
// the cluster), one write at a time, each guarded by the live Application's uid or resourceVersion. The plan is the
// core's (appset/sync-plan.ts); this reads the cluster (the ApplicationSet, one LIST of its namespace's Applications)
// and carries the plan out, reporting each write.
import { type AppSetAction, type ApplicationsSyncPolicy, appSetSyncSettings, planAppSetSync, withoutMissingProjects } from '../../appset/sync-plan.js';
import { controlPlaneNamespace } from '../../model/keys.js';
import { finalizersAfter } from '../../prune/delete-plan.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { RunContext } from '../../model/context.js';
import { describeError, ExitCode, InputError, RefusedError } from '../../model/errors.js';
import { planRollingSync, type RollingSyncStrategy, rollingSyncStrategy } from '../../appset/rolling-sync.js';
import type { ChildRef, ChildSync } from '../sync/recursive.js';
import type { StatusReport } from '../../health/report.js';
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
  /**
   * Then sync every generated Application (--recursive), as `sync --all` syncs them (a RollingSync strategy: step by
   * step); not with a dry run. `describe`: the REASON text of a status, for the steps' waits (cli/ hands in render's).
   */
  recursive?: Omit<SyncAllRequest, 'allNamespaces' | 'appSelector' | 'dryRun'> & { describe: (r: StatusReport) => string };
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
  /** --recursive with a RollingSync strategy: its steps, rolled out in order (instead of `synced`). */
  rolling?: RollingSyncReport;
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
    const strategy = rollingSyncStrategy(raw);
    if (strategy !== undefined && 'error' in strategy) throw new InputError(`${report.origin}: ${strategy.error}`);
    if (live?.metadata.uid !== undefined) settings.uid = live.metadata.uid;
    const current = (await gw.list(appType, { namespace })).items as unknown as Record<string, unknown>[];
    const names = [...report.applications.map((a) => a.metadata.name ?? ''), ...report.invalid.map((i) => i.name.split('/')[1] ?? '')];
    // validateGeneratedApplications: an Application of a project that does not exist is not written (nor deleted).
    const warnings: string[] = [];
    const projects = await projectNames(gw, controlPlaneNamespace(req.argocdNamespace), warnings);
    const checked = projects
      ? withoutMissingProjects(namespace, report.applications as unknown as Record<string, unknown>[], projects)
      : { valid: report.applications as unknown as Record<string, unknown>[], invalid: [] };
    for (const i of checked.invalid) warnings.push(`Application ${i.name} is not written: ${i.error}`);
    const invalid = [...report.invalid, ...checked.invalid];
    const plan = planAppSetSync(settings, checked.valid, names, current);
    if (plan.refusal) throw new RefusedError(`${report.origin}: ${plan.refusal}`);
    const results: AppSetSyncResult[] = [];
    // The deletes come last (planAppSetSync); a create or update that failed stops them, as the ApplicationSet
    // controller's Reconcile returns on createOrUpdateInCluster's error before deleteInCluster: a deleted Application
    // with the resources finalizer takes its workloads with it, so nothing is deleted on a round that went wrong.
    let writeFailed: string | undefined;
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
      if (step.action === 'delete' && writeFailed !== undefined) {
        results.push({
          ...base,
          done: false,
          error: `not deleted: writing ${writeFailed} failed, and the ApplicationSet controller deletes nothing in such a round`,
        });
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
          const done = await finishAppDeletion(ctx, { namespace: ns, name: appName }, req.timeoutMs, req.argocdNamespace);
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
        // One Application's failure does not stop the other writes (the controller goes on and reports the first error).
        results.push({ ...base, done: false, error: describeError(err, false).replace(/^error: /, '') });
        if (step.action !== 'delete') writeFailed ??= step.app;
      }
    }
    const out: AppSetSyncReport = {
      applicationSet: report.applicationSet,
      origin: report.origin,
      policy: settings.policy,
      dryRun: req.dryRun,
      owned: settings.uid !== undefined,
      results,
      invalid,
      warnings: [...warnings, ...plan.warnings],
    };
    if (!req.recursive || req.dryRun || results.some((r) => r.error !== undefined)) return out;
    // The generated Applications now in the cluster, in generation order, each synced as `sync --all` syncs it.
    const written = new Set(results.filter((r) => r.action !== 'delete').map((r) => r.app));
    const apps = (checked.valid as unknown as KubeObject[]).filter((a) => written.has(`${namespace}/${a.metadata.name ?? ''}`));
    const appCtx: RunContext = { ...ctx, opts: { ...ctx.opts, appNamespace: namespace } };
    if (strategy !== undefined) {
      out.rolling = await rollingWalk(appCtx, report.applicationSet, apps, strategy, req.recursive, (line) => out.warnings.push(line));
      return out;
    }
    const { syncApplications } = await import('../sync/sync-all.js');
    out.synced = await syncApplications(appCtx, apps, { ...req.recursive, allNamespaces: false, dryRun: false }, (line) => out.warnings.push(line));
    return out;
  });
}

/** `appset sync --recursive` of a RollingSync ApplicationSet: its steps, in order, and how each Application ended. */
export interface RollingSyncReport {
  steps: { step: number; maxUpdate: number; apps: string[] }[];
  /** In step order; `wave` is the step. */
  children: ChildSync[];
  /** Selected by no step: the strategy leaves them to be synced by hand. */
  excluded: string[];
  exitCode: ExitCode;
  /** Why the rollout stopped before its last step (absent when it went through). */
  stopped?: string;
}

/**
 * The steps of a RollingSync strategy, as the ApplicationSet controller rolls them out: each step's Applications in
 * batches of maxUpdate, each batch synced (prune: the app's automated.prune, else rollingSync.defaultPrune, or
 * --prune) and then waited for until Synced and Healthy (computed afresh) before the next; a step of maxUpdate 0 syncs
 * none and waits for its Applications to be synced by hand. A failed, unhealthy or held step stops the rollout (exit 3).
 */
async function rollingWalk(
  ctx: RunContext,
  appSet: string,
  apps: readonly KubeObject[],
  strategy: RollingSyncStrategy,
  request: NonNullable<AppSetSyncRequest['recursive']>,
  warn: (line: string) => void,
): Promise<RollingSyncReport> {
  const { childSyncDeps, walkChildren } = await import('../sync/recursive.js');
  const { realClock } = await import('../status/status.js');
  const plan = planRollingSync(
    apps.map((a) => ({ name: a.metadata.name ?? '', labels: { ...(a.metadata.labels ?? {}) } })),
    strategy,
  );
  for (const w of plan.warnings) warn(w);
  const namespace = ctx.opts.appNamespace;
  const automatedPrune = new Map(
    apps.map((a) => {
      const automated = (a.spec as { syncPolicy?: { automated?: { prune?: unknown } } } | undefined)?.syncPolicy?.automated;
      return [a.metadata.name ?? '', typeof automated?.prune === 'boolean' ? automated.prune : undefined] as const;
    }),
  );
  const pruneOf = (name: string) => request.prune || (automatedPrune.get(name) ?? strategy.defaultPrune);
  const { deps, dispose } = await childSyncDeps(
    ctx,
    {
      app: '',
      dryRun: false,
      prune: request.prune,
      forceConflicts: request.forceConflicts,
      timeoutMs: request.timeoutMs,
      ...(request.argocdNamespace !== undefined ? { argocdNamespace: request.argocdNamespace } : {}),
    },
    {
      record: request.record,
      ...(request.retryLimit !== undefined ? { retryLimit: request.retryLimit } : {}),
      // Progress lines are not kept; what the children's syncs warn of is.
      say: (line) => (line.startsWith('warning: ') ? warn(line.slice('warning: '.length)) : undefined),
      describe: request.describe,
      clock: realClock,
    },
  );
  deps.label = (step) => `step ${step}`;
  const children: ChildSync[] = [];
  let stopped: { why: string; code: ExitCode } | undefined;
  const ref = (name: string, step: number): ChildRef => ({ namespace, name, wave: step, prune: pruneOf(name) });
  /** Left as it is: the rollout stopped before it. */
  const notSynced = (name: string, step: number): ChildSync => ({ ...ref(name, step), outcome: 'not-synced', exitCode: ExitCode.Ok });
  try {
    for (const s of plan.steps) {
      if (stopped) {
        children.push(...s.apps.map((name) => notSynced(name, s.step)));
        continue;
      }
      if (s.maxUpdate === 0) {
        // maxUpdate 0: the controller syncs none of them and waits until they are Healthy, synced by hand.
        for (const name of s.apps) {
          const c = ref(name, s.step);
          if (stopped) {
            children.push(notSynced(name, s.step));
            continue;
          }
          const st = await deps.settle(c);
          const held = `step ${s.step} has maxUpdate 0: its Applications are synced by hand`;
          children.push({
            ...c,
            outcome: st.converged ? 'not-synced' : 'unhealthy',
            exitCode: st.converged ? ExitCode.Ok : ExitCode.Cluster,
            sync: st.sync,
            health: st.health,
            message: st.converged ? held : `${held}; ${st.reason ?? `${st.sync}, ${st.health}`}`,
          });
          if (!st.converged)
            stopped = { why: `${held}, and ${namespace}/${name} is ${st.sync} and ${st.health}: sync it, then run again`, code: ExitCode.Cluster };
        }
        continue;
      }
      for (const batch of s.batches) {
        if (stopped) {
          children.push(...batch.map((name) => notSynced(name, s.step)));
          continue;
        }
        const walk = await walkChildren(
          batch.map((name) => ref(name, s.step)),
          [appSet],
          deps,
        );
        children.push(...walk.children);
        if (walk.exitCode !== ExitCode.Ok) stopped = { why: walk.stopped ?? `step ${s.step} failed`, code: walk.exitCode };
      }
    }
  } finally {
    await dispose();
  }
  return {
    steps: plan.steps.map((s) => ({ step: s.step, maxUpdate: s.maxUpdate, apps: s.apps.map((n) => `${namespace}/${n}`) })),
    children,
    excluded: plan.excluded.map((n) => `${namespace}/${n}`),
    exitCode: stopped?.code ?? ExitCode.Ok,
    ...(stopped ? { stopped: stopped.why } : {}),
  };
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

/**
 * The AppProjects of the control plane's namespace, by name (one LIST); undefined, with a warning, when they cannot be
 * read (no AppProject CRD, or not allowed): the projects are then not checked.
 */
async function projectNames(gw: KubeGateway, namespace: string, warnings: string[]): Promise<Set<string> | undefined> {
  const type = await gw.resolve('argoproj.io/v1alpha1', 'AppProject');
  if (!type) {
    warnings.push("the cluster does not serve AppProjects (no Argo CD CRD): the generated Applications' projects are not checked");
    return undefined;
  }
  try {
    const list = await gw.list(type, { namespace, metadataOnly: true });
    return new Set(list.items.map((p) => p.metadata.name ?? ''));
  } catch (err) {
    warnings.push(
      `cannot list AppProjects in namespace ${namespace}, so the generated Applications' projects are not checked: ${describeError(err, false).replace(/^error: /, '')}`,
    );
    return undefined;
  }
}
