// Runs a sync plan's applies through the gateway: the whole-set dry-run, then server-side apply in order; every result collected.
import { csaUpgradePatch, DEFAULT_CSA_MIGRATION_MANAGER } from '../../ownership/csa-upgrade.js';
import { ApplyConflictError, KubeApiError, redactSecretError, type FieldConflict } from '../../kube/errors.js';
import { clientApplyPatch, isBuiltInGroup, openApiSchema, withLastApplied } from '../../sync/client-apply.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { KubeObject } from '../../model/object.js';
import type { ResourceType } from '../../model/resource-type.js';
import type { ApplyStep } from '../../sync/plan.js';

export interface DryRunResult {
  step: ApplyStep;
  /** Fields other managers own that an unforced apply would be refused on. */
  conflicts: FieldConflict[];
  error?: string;
  /** Set when the dry-run could not run (e.g. the namespace does not exist yet). */
  skipped?: string;
}

/**
 * Server-side dry-runs every step that will be applied, all at once (the gateway bounds
 * concurrency): first without force, to learn the conflicts; then, when force is allowed and
 * there were conflicts, forced, to validate what will really be sent.
 */
export async function dryRunSteps(gw: KubeGateway, steps: readonly ApplyStep[], opts: { fieldManager: string; force: boolean }): Promise<DryRunResult[]> {
  return Promise.all(
    steps.map(async (step): Promise<DryRunResult> => {
      if (step.action === 'skip') return { step, conflicts: [], skipped: step.reason ?? 'skipped' };
      if (step.dryRunSkip) return { step, conflicts: [], skipped: step.dryRunSkip };
      if (step.inSync) return { step, conflicts: [], skipped: 'in sync: nothing to validate' };
      if (step.clientSide) {
        try {
          await clientSideApply(gw, step, opts.fieldManager, true);
          return { step, conflicts: [] };
        } catch (err) {
          return { step, conflicts: [], error: (err as Error).message };
        }
      }
      if (step.replace) {
        // A whole-object write has no field conflicts; Replace with Force deletes first, which a dry-run cannot show.
        if (step.force && step.live) return { step, conflicts: [], skipped: 'Replace=true with Force=true: deleted and created again' };
        try {
          const w = { fieldManager: opts.fieldManager, dryRun: true, ...validation(step) };
          await (step.live ? gw.replace(step.type, step.object, w) : gw.create(step.type, step.object, w));
          return { step, conflicts: [] };
        } catch (err) {
          return { step, conflicts: [], error: (err as Error).message };
        }
      }
      try {
        // The answer (the object as it would be stored) is not kept: nothing reads it, and at
        // thousands of objects holding every one was most of sync's memory.
        await gw.apply(step.type, step.object, { fieldManager: opts.fieldManager, force: false, dryRun: true, ...validation(step) });
        return { step, conflicts: [] };
      } catch (err) {
        // Force=true: a refused apply is followed by a delete and a create, so its dry-run error does not stop the sync.
        if (!(err instanceof ApplyConflictError))
          return step.force && step.live
            ? { step, conflicts: [], skipped: `Force=true: re-created if the apply is refused (${(err as Error).message})` }
            : { step, conflicts: [], error: (err as Error).message };
        if (!opts.force) return { step, conflicts: err.conflicts };
        try {
          await gw.apply(step.type, step.object, { fieldManager: opts.fieldManager, force: true, dryRun: true, ...validation(step) });
          return { step, conflicts: err.conflicts };
        } catch (err2) {
          return { step, conflicts: err.conflicts, error: (err2 as Error).message };
        }
      }
    }),
  );
}

/**
 * Validate=false: fieldValidation=Ignore, as kubectl --validate=false sends it. With server-side apply the API server
 * still refuses a field its schema does not declare (it cannot build the typed patch), whatever the directive.
 */
function validation(step: ApplyStep): { fieldValidation?: 'Ignore' } {
  return step.noValidate ? { fieldValidation: 'Ignore' } : {};
}

/** How long a Replace with Force waits for the deleted object to be gone before creating it again. */
const GONE_TIMEOUT_MS = 60_000;

/** Deletes the live object (its uid as precondition), waits until it is gone, and creates the desired one. */
async function recreate(gw: KubeGateway, step: ApplyStep, fieldManager: string): Promise<void> {
  const { type, object } = step;
  const ns = object.metadata.namespace ?? '';
  const name = object.metadata.name ?? '';
  const uid = step.live?.metadata.uid;
  await gw.delete(type, ns, name, { propagationPolicy: 'foreground', ...(uid ? { preconditions: { uid } } : {}) }).catch((err: unknown) => {
    if (!(err instanceof KubeApiError && err.status === 404)) throw err;
  });
  const until = Date.now() + GONE_TIMEOUT_MS;
  let live: KubeObject | undefined;
  while ((live = await gw.get(type, ns, name)) !== undefined && (!uid || live.metadata.uid === uid)) {
    if (Date.now() > until)
      throw new Error(
        `${type.kind} ${name} was deleted but is still there after ${GONE_TIMEOUT_MS / 1000} s (finalizers: ${JSON.stringify(live.metadata.finalizers ?? [])})`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
  await gw.create(type, object, { fieldManager, dryRun: false, ...validation(step) });
}

/**
 * A Namespace or a CustomResourceDefinition: never replaced nor deleted to be created again — that would delete
 * everything in the namespace, or every custom resource of the definition (gitops-engine's applyObject: kubeutil.IsCRD
 * or NamespaceKind).
 */
function keptInPlace(type: ResourceType): boolean {
  return (type.group === '' && type.kind === 'Namespace') || (type.group === 'apiextensions.k8s.io' && type.kind === 'CustomResourceDefinition');
}

/**
 * Replace=true: PUT the whole object (POST when it is missing); with Force=true, delete and create. A Namespace or a
 * CRD is updated instead, under the live object's resourceVersion, whatever Force says, as gitops-engine does ("<Kind>/
 * <name> updated"). Returns what was done.
 */
async function writeWhole(gw: KubeGateway, step: ApplyStep, fieldManager: string): Promise<string> {
  if (step.live && keptInPlace(step.type)) {
    const resourceVersion = step.live.metadata.resourceVersion;
    const update = { ...step.object, metadata: { ...step.object.metadata, ...(resourceVersion ? { resourceVersion } : {}) } };
    await gw.replace(step.type, update, { fieldManager, dryRun: false, ...validation(step) });
    return `Replace=true: ${step.type.kind}/${step.object.metadata.name ?? ''} updated (a ${step.type.kind} is updated in place, never replaced or re-created)`;
  }
  if (step.force && step.live) {
    await recreate(gw, step, fieldManager);
    return 'Replace=true, Force=true: deleted and created again';
  }
  const w = { fieldManager, dryRun: false, ...validation(step) };
  if (step.live) {
    await gw.replace(step.type, step.object, w);
    return 'Replace=true: replaced';
  }
  await gw.create(step.type, step.object, w);
  return 'Replace=true: created';
}

/**
 * ServerSideApply=false: `kubectl apply` (client-side) — create with the last-applied annotation, or the three-way
 * patch over the object as it is now (strategic for Kubernetes' own kinds, with the merge keys of the API server's
 * OpenAPI schema; a JSON merge patch for custom resources). Recorded as an Update by the field manager.
 */
async function clientSideApply(gw: KubeGateway, step: ApplyStep, fieldManager: string, dryRun: boolean): Promise<string> {
  const { type, object } = step;
  const ns = type.namespaced ? (object.metadata.namespace ?? '') : '';
  const name = object.metadata.name ?? '';
  const w = { fieldManager, dryRun, ...validation(step) };
  try {
    const live = await gw.get(type, ns, name);
    if (!live) {
      await gw.create(type, withLastApplied(object), w);
      return 'ServerSideApply=false: created (client-side apply)';
    }
    const strategic = isBuiltInGroup(type.group);
    const schema = strategic && gw.openApi ? openApiSchema(await gw.openApi(type.group, type.version), type.group, type.version, type.kind) : undefined;
    const patch = clientApplyPatch(object, live, strategic, schema);
    if (!patch) return 'ServerSideApply=false: unchanged (client-side apply)';
    await gw.patch(type, ns, name, patch, strategic ? 'strategic' : 'merge', w);
    return 'ServerSideApply=false: patched (client-side apply)';
  } catch (err) {
    throw err instanceof KubeApiError ? redactSecretError(err, object) : err;
  }
}

export interface ApplyResult {
  step: ApplyStep;
  outcome: 'applied' | 'skipped' | 'conflict' | 'failed';
  message?: string;
  /** Conflicting fields: taken over (healed) when applied with force, else the reason it was not applied. */
  conflicts: FieldConflict[];
}

/**
 * Applies the steps in order: consecutive steps of the same wave and kind in parallel, groups one
 * after another. A step whose dry-run found conflicts is not applied unless `force`. Never stops at
 * a failure. `progress` is told before each group.
 */
export async function applySteps(
  gw: KubeGateway,
  dryRuns: readonly DryRunResult[],
  opts: {
    fieldManager: string;
    force: boolean;
    progress?: (done: number, total: number, what: string) => void;
    /** Awaited before each group (e.g. until the CRD of the group's kind is served); a failure fails the group's steps. */
    beforeGroup?: (steps: readonly ApplyStep[]) => Promise<void>;
    /** Asked after a write failed: true (after its wait) to send it again (a 404 while a new API group is being installed). */
    retryNotFound?: (step: ApplyStep, err: unknown) => Promise<boolean>;
    /** Client-side apply migration managers (csa-upgrade.ts); default Argo CD's `kubectl-client-side-apply`. */
    csaManagers?: readonly string[];
  },
): Promise<ApplyResult[]> {
  const results: ApplyResult[] = [];
  const total = dryRuns.filter((d) => d.step.action !== 'skip').length;
  let done = 0;
  let i = 0;
  while (i < dryRuns.length) {
    const first = dryRuns[i] as DryRunResult;
    let j = i + 1;
    while (
      j < dryRuns.length &&
      (dryRuns[j] as DryRunResult).step.wave === first.step.wave &&
      (dryRuns[j] as DryRunResult).step.key.kind === first.step.key.kind
    )
      j++;
    const group = dryRuns.slice(i, j);
    opts.progress?.(done, total, `${first.step.key.kind} (${group.length})`);
    const notReady = await (opts.beforeGroup?.(group.map((d) => d.step)) ?? Promise.resolve()).then(
      () => undefined,
      (err: unknown) => (err as Error).message,
    );
    if (notReady !== undefined) {
      results.push(...group.map((d): ApplyResult => ({ step: d.step, outcome: 'failed', conflicts: [], message: notReady })));
      done += group.filter((d) => d.step.action !== 'skip').length;
      i = j;
      continue;
    }
    const out = await Promise.all(
      group.map(async (d): Promise<ApplyResult> => {
        const { step } = d;
        if (step.action === 'skip') return { step, outcome: 'skipped', conflicts: [], ...(step.reason ? { message: step.reason } : {}) };
        if (d.conflicts.length > 0 && !opts.force)
          return { step, outcome: 'conflict', conflicts: d.conflicts, message: 'not applied: other field managers own fields it would change' };
        try {
          for (;;) {
            try {
              if (step.replace) return { step, outcome: 'applied', conflicts: [], message: await writeWhole(gw, step, opts.fieldManager) };
              if (step.clientSide) return { step, outcome: 'applied', conflicts: [], message: await clientSideApply(gw, step, opts.fieldManager, false) };
              const applied = await gw.apply(step.type, step.object, {
                fieldManager: opts.fieldManager,
                force: opts.force,
                dryRun: false,
                ...validation(step),
              });
              const migrated = await migrateClientSideFields(gw, step, applied, opts.fieldManager, opts.csaManagers ?? [DEFAULT_CSA_MIGRATION_MANAGER]);
              return { step, outcome: 'applied', conflicts: d.conflicts, ...(migrated ? { message: migrated } : {}) };
            } catch (err) {
              if (!(await opts.retryNotFound?.(step, err))) throw err;
            }
          }
        } catch (err) {
          if (err instanceof ApplyConflictError) return { step, outcome: 'conflict', conflicts: err.conflicts, message: err.message };
          if (step.force && !step.replace && step.live && keptInPlace(step.type) && err instanceof KubeApiError && (err.status === 422 || err.status === 409)) {
            // kubectl apply --force would delete and create it again, and everything in it or of it with it: not done.
            return {
              step,
              outcome: 'failed',
              conflicts: [],
              message: `${(err as Error).message} (Force=true: a ${step.type.kind} is never deleted to be created again; change it by hand)`,
            };
          }
          if (step.force && !step.replace && step.live && err instanceof KubeApiError && (err.status === 422 || err.status === 409)) {
            // kubectl apply --force: the apply was refused (an immutable field): delete and create again.
            try {
              await recreate(gw, step, opts.fieldManager);
              return { step, outcome: 'applied', conflicts: [], message: `Force=true: deleted and created again (the apply was refused: ${err.message})` };
            } catch (err2) {
              return { step, outcome: 'failed', conflicts: [], message: `Force=true: re-creating after a refused apply: ${(err2 as Error).message}` };
            }
          }
          return { step, outcome: 'failed', conflicts: [], message: (err as Error).message };
        }
      }),
    );
    done += group.filter((d) => d.step.action !== 'skip').length;
    for (const r of out) results.push(r);
    i = j;
  }
  opts.progress?.(done, total, 'done');
  return results;
}

/**
 * After a server-side apply, as kubectl's (and so Argo CD's) does: the fields of client-side managers (the owners of
 * last-applied-configuration, and the migration managers) become the field manager's, so that what Git drops later is
 * removed. One JSON patch guarded by the resourceVersion, read again and retried on a conflict; nothing is sent when
 * there is nothing to migrate. A failure is said in the step's message and not fatal (the apply went through), as kubectl
 * warns and tries again on the next apply.
 */
async function migrateClientSideFields(
  gw: KubeGateway,
  step: ApplyStep,
  applied: KubeObject,
  fieldManager: string,
  managers: readonly string[],
): Promise<string | undefined> {
  let obj: KubeObject | undefined = applied;
  for (let attempt = 0; attempt < 3 && obj; attempt++) {
    const patch = csaUpgradePatch(obj, fieldManager, managers);
    if (!patch) return undefined;
    try {
      await gw.patch(step.type, step.key.namespace, step.key.name, patch, 'json', { fieldManager, dryRun: false });
      return undefined;
    } catch (err) {
      const conflict = err instanceof KubeApiError && (err.status === 409 || err.status === 422);
      if (!conflict) return `applied; migrating the client-side managed fields failed: ${(err as Error).message}`;
      obj = await gw.get(step.type, step.key.namespace, step.key.name);
    }
  }
  return 'applied; migrating the client-side managed fields kept conflicting with other writes';
}
