// What `appset sync` writes: the generated Applications against the ones in the cluster, as Argo CD's ApplicationSet
// controller reconciles them (applicationset/controllers/applicationset_controller.go: createOrUpdateInCluster,
// createInCluster, deleteInCluster; utils/policy.go; utils.CreateOrUpdate with ignoreApplicationDifferences). Pure: the
// workflow reads the cluster and carries the plan out. Refusals are data.
import { normalizeSpec } from './applications.js';

/** `spec.syncPolicy.applicationsSync` (utils.Policies): what the controller may do to the Applications it made. */
export type ApplicationsSyncPolicy = 'sync' | 'create-only' | 'create-update' | 'create-delete';

const POLICIES: readonly ApplicationsSyncPolicy[] = ['sync', 'create-only', 'create-update', 'create-delete'];

/** AllowUpdate/AllowDelete of applicationset_types.go. */
const allowsUpdate = (p: ApplicationsSyncPolicy): boolean => p === 'sync' || p === 'create-update';
const allowsDelete = (p: ApplicationsSyncPolicy): boolean => p === 'sync' || p === 'create-delete';

/** The annotations the controller keeps from the live Application whatever the template says (defaultPreservedAnnotations). */
const DEFAULT_PRESERVED_ANNOTATIONS = ['notified.notifications.argoproj.io', 'argocd.argoproj.io/refresh', 'argocd.argoproj.io/hydrate'];

/** Finalizers the controller keeps on an update (post-delete hooks in progress, argo-cd#17181). */
const POST_DELETE_FINALIZER = 'post-delete-finalizer.argocd.argoproj.io';

/** The parts of an ApplicationSet the reconciliation reads beyond the generation. */
export interface AppSetSyncSettings {
  name: string;
  namespace: string;
  /** The live ApplicationSet's uid, when it is in the cluster: the owner of what it writes. */
  uid?: string;
  policy: ApplicationsSyncPolicy;
  preservedAnnotations: string[];
  preservedLabels: string[];
  /** ignoreApplicationDifferences: JSON pointers kept at their live value, per Application name (none: every one). */
  ignore: { name?: string; jsonPointers: string[] }[];
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Reads the reconciliation's settings from an ApplicationSet object; a message when one is wrong or is something we do
 * not carry out (jqPathExpressions in ignoreApplicationDifferences), for a refusal before anything is written.
 */
export function appSetSyncSettings(obj: unknown, name: string, namespace: string): AppSetSyncSettings | { refusal: string } | { error: string } {
  const spec = isObject(obj) && isObject(obj.spec) ? obj.spec : {};
  const syncPolicy = isObject(spec.syncPolicy) ? spec.syncPolicy : {};
  const raw = syncPolicy.applicationsSync;
  if (raw !== undefined && (typeof raw !== 'string' || !(POLICIES as readonly string[]).includes(raw)))
    return { error: `spec.syncPolicy.applicationsSync must be one of ${POLICIES.join(', ')} (got ${JSON.stringify(raw)})` };
  const preserved = isObject(spec.preservedFields) ? spec.preservedFields : {};
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const ignore: AppSetSyncSettings['ignore'] = [];
  const rules = spec.ignoreApplicationDifferences;
  if (rules !== undefined && !Array.isArray(rules)) return { error: 'spec.ignoreApplicationDifferences must be a list' };
  for (const r of (rules as unknown[] | undefined) ?? []) {
    if (!isObject(r)) return { error: 'spec.ignoreApplicationDifferences: every entry must be an object' };
    if (strings(r.jqPathExpressions).length > 0)
      return {
        refusal:
          'spec.ignoreApplicationDifferences with jqPathExpressions is not carried out by appset sync (jsonPointers are): refusing rather than overwrite what it protects',
      };
    ignore.push({ ...(typeof r.name === 'string' && r.name !== '' ? { name: r.name } : {}), jsonPointers: strings(r.jsonPointers) });
  }
  const uid = isObject(obj) && isObject(obj.metadata) && typeof obj.metadata.uid === 'string' ? obj.metadata.uid : undefined;
  return {
    name,
    namespace,
    ...(uid !== undefined ? { uid } : {}),
    policy: (raw as ApplicationsSyncPolicy | undefined) ?? 'sync',
    preservedAnnotations: strings(preserved.annotations),
    preservedLabels: strings(preserved.labels),
    ignore,
  };
}

export type AppSetAction = 'create' | 'update' | 'unchanged' | 'delete';

export interface AppSetStep {
  /** `namespace/name`. */
  app: string;
  action: AppSetAction;
  /** The Application to write (create, update): the whole object, with the live resourceVersion for an update. */
  object?: Obj;
  /** The live Application's uid (update, delete: the write is guarded by it). */
  uid?: string;
  /** Why an Application was left as it is although it differs, or is kept although not generated. */
  note?: string;
}

export interface AppSetPlan {
  steps: AppSetStep[];
  /** A reason nothing may be written at all (an Application of the same name owned by another controller). */
  refusal?: string;
  /** Said to the user: deletion not possible without a live ApplicationSet, and the like. */
  warnings: string[];
}

/** The controller reference the controller sets (controllerutil.SetControllerReference). */
function ownerReference(s: AppSetSyncSettings): Obj {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet', name: s.name, uid: s.uid, controller: true, blockOwnerDeletion: true };
}

function controllerOf(app: Obj): Obj | undefined {
  const refs = isObject(app.metadata) && Array.isArray(app.metadata.ownerReferences) ? app.metadata.ownerReferences : [];
  return refs.find((r): r is Obj => isObject(r) && r.controller === true);
}

/** Whether the live ApplicationSet `s` is the controller of `app` (getCurrentApplications' `.metadata.controller` index). */
function ownedBy(app: Obj, s: AppSetSyncSettings): boolean {
  const c = controllerOf(app);
  return c !== undefined && c.kind === 'ApplicationSet' && c.name === s.name && (s.uid === undefined || c.uid === s.uid);
}

/** NormalizeApplicationSpec (the generator's, appset/applications.ts), with a missing project taken as empty: `default`. */
function normalizeAppSpec(spec: unknown): Obj {
  const out: Obj = isObject(spec) ? structuredClone(spec) : {};
  if (out.project === undefined) out.project = '';
  return normalizeSpec(out);
}

function stringMap(v: unknown): Record<string, string> | undefined {
  return isObject(v) ? (Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string')) as Record<string, string>) : undefined;
}

/** RFC 6901 pointer → its steps. */
function pointerSteps(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function readPointer(root: unknown, steps: string[]): { found: boolean; value?: unknown } {
  let node: unknown = root;
  for (const s of steps) {
    if (Array.isArray(node) && /^\d+$/.test(s) && Number(s) < node.length) node = node[Number(s)];
    else if (isObject(node) && s in node) node = node[s];
    else return { found: false };
  }
  return { found: true, value: node };
}

/** Sets (or, when the live object has nothing there, removes) the value at `steps` in `root`. */
function writePointer(root: Obj, steps: string[], live: { found: boolean; value?: unknown }): void {
  let node: unknown = root;
  for (const [i, s] of steps.entries()) {
    const last = i === steps.length - 1;
    if (Array.isArray(node)) {
      const k = Number(s);
      if (!/^\d+$/.test(s) || k >= node.length) return;
      if (last) {
        if (live.found) node[k] = structuredClone(live.value);
        else node.splice(k, 1);
        return;
      }
      node = node[k];
    } else if (isObject(node)) {
      if (last) {
        if (live.found) node[s] = structuredClone(live.value);
        else delete node[s];
        return;
      }
      if (!(s in node)) {
        if (!live.found) return;
        node[s] = {};
      }
      node = node[s];
    } else return;
  }
}

/** The Application the controller writes over a live one (createOrUpdateInCluster's mutate function). */
function merged(generated: Obj, live: Obj, s: AppSetSyncSettings): Obj {
  const gMeta = isObject(generated.metadata) ? generated.metadata : {};
  const lMeta = isObject(live.metadata) ? live.metadata : {};
  const annotations = { ...(stringMap(gMeta.annotations) ?? {}) };
  const labels = { ...(stringMap(gMeta.labels) ?? {}) };
  const liveAnnotations = stringMap(lMeta.annotations) ?? {};
  const liveLabels = stringMap(lMeta.labels) ?? {};
  for (const k of [...s.preservedAnnotations, ...DEFAULT_PRESERVED_ANNOTATIONS]) if (k in liveAnnotations) annotations[k] = liveAnnotations[k] as string;
  for (const k of s.preservedLabels) if (k in liveLabels) labels[k] = liveLabels[k] as string;
  const finalizers = Array.isArray(gMeta.finalizers) ? [...(gMeta.finalizers as unknown[])] : [];
  for (const f of Array.isArray(lMeta.finalizers) ? lMeta.finalizers : []) if (typeof f === 'string' && f.startsWith(POST_DELETE_FINALIZER)) finalizers.push(f);
  const metadata: Obj = { ...structuredClone(lMeta) };
  delete metadata.annotations;
  delete metadata.labels;
  delete metadata.finalizers;
  delete metadata.managedFields;
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  if (finalizers.length > 0) metadata.finalizers = finalizers;
  const otherRefs = (Array.isArray(lMeta.ownerReferences) ? lMeta.ownerReferences : []).filter((r) => !(isObject(r) && r.controller === true));
  metadata.ownerReferences = [...structuredClone(otherRefs), ownerReference(s)];
  const out: Obj = { ...structuredClone(live), metadata, spec: normalizeAppSpec(generated.spec) };
  if (generated.operation !== undefined) out.operation = structuredClone(generated.operation);
  delete out.status;
  return out;
}

/** ignoreApplicationDifferences: the generated Application with the ignored fields at their live values (CreateOrUpdate). */
function withIgnored(generated: Obj, live: Obj, s: AppSetSyncSettings): Obj {
  const name = isObject(generated.metadata) ? generated.metadata.name : undefined;
  const out = structuredClone(generated);
  for (const rule of s.ignore) {
    if (rule.name !== undefined && rule.name !== name) continue;
    for (const p of rule.jsonPointers) {
      const steps = pointerSteps(p);
      if (steps.length === 0) continue;
      writePointer(out, steps, readPointer(live, steps));
    }
  }
  return out;
}

/** What a write would change, compared as the controller does (spec, metadata it sets, operation). */
function sameWrite(a: Obj, b: Obj): boolean {
  const pick = (o: Obj) => {
    const m = isObject(o.metadata) ? o.metadata : {};
    return JSON.stringify(
      sortKeys({ spec: o.spec, operation: o.operation, annotations: m.annotations, labels: m.labels, finalizers: m.finalizers, owners: m.ownerReferences }),
    );
  };
  return pick(a) === pick(b);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  return v;
}

/**
 * validateGeneratedApplications' project check: a generated Application whose project (empty: `default`) is not among
 * `projects` is left out of the writes with the controller's message (its name still counts as generated, so an
 * Application of that name is not deleted). The `default` project is taken as there, as this tool takes it everywhere.
 */
export function withoutMissingProjects(
  namespace: string,
  generated: Obj[],
  projects: ReadonlySet<string>,
): { valid: Obj[]; invalid: { name: string; error: string }[] } {
  const valid: Obj[] = [];
  const invalid: { name: string; error: string }[] = [];
  for (const g of generated) {
    const spec = isObject(g.spec) ? g.spec : {};
    const project = typeof spec.project === 'string' && spec.project !== '' ? spec.project : 'default';
    if (project === 'default' || projects.has(project)) valid.push(g);
    else {
      const name = isObject(g.metadata) && typeof g.metadata.name === 'string' ? g.metadata.name : '';
      invalid.push({ name: `${namespace}/${name}`, error: `application references project ${project} which does not exist` });
    }
  }
  return { valid, invalid };
}

/**
 * The reconciliation: `generated` are the valid generated Applications, `generatedNames` every name generated
 * (invalid ones too: the controller deletes by the whole generated list), `live` every Application in the
 * ApplicationSet's namespace. Without a live ApplicationSet (a file only) nothing can be owned: Applications are
 * created and updated without an owner, and none is deleted (a warning says so).
 */
export function planAppSetSync(settings: AppSetSyncSettings, generated: Obj[], generatedNames: string[], live: Obj[]): AppSetPlan {
  const warnings: string[] = [];
  const s = settings;
  const nameOf = (o: Obj) => (isObject(o.metadata) && typeof o.metadata.name === 'string' ? o.metadata.name : '');
  const liveByName = new Map(live.map((o) => [nameOf(o), o]));
  const steps: AppSetStep[] = [];
  const at = (name: string) => `${s.namespace}/${name}`;
  const owned = s.uid !== undefined ? live.filter((o) => ownedBy(o, s)) : [];
  const ownedNames = new Set(owned.map(nameOf));
  for (const g of generated) {
    const name = nameOf(g);
    const found = liveByName.get(name);
    const fresh: Obj = { ...structuredClone(g), spec: normalizeAppSpec(g.spec) };
    if (s.uid !== undefined) (fresh.metadata as Obj).ownerReferences = [ownerReference(s)];
    if (!found) {
      steps.push({ app: at(name), action: 'create', object: fresh });
      continue;
    }
    const uid = isObject(found.metadata) && typeof found.metadata.uid === 'string' ? found.metadata.uid : undefined;
    const other = controllerOf(found);
    if (other !== undefined && !(s.uid !== undefined && ownedBy(found, s)))
      return {
        steps: [],
        warnings,
        refusal: `Application ${at(name)} is already owned by another controller (${String(other.kind)} ${String(other.name)}): nothing was written`,
      };
    // createInCluster: without AllowUpdate an Application this ApplicationSet owns is left as it is.
    const target = merged(withIgnored(g, found, s), found, s);
    if (s.uid === undefined) {
      const meta = target.metadata as Obj;
      const refs = (meta.ownerReferences as Obj[]).filter((r) => r.kind !== 'ApplicationSet' || r.uid !== undefined);
      if (refs.length > 0) meta.ownerReferences = refs;
      else delete meta.ownerReferences;
    }
    const same = sameWrite(target, found);
    // createInCluster: without AllowUpdate an Application this ApplicationSet owns is left as it is (without a live
    // ApplicationSet nothing is owned: an existing Application is then left as it is too).
    if (!allowsUpdate(s.policy) && (ownedNames.has(name) || s.uid === undefined)) {
      steps.push({
        app: at(name),
        action: 'unchanged',
        ...(uid ? { uid } : {}),
        ...(same ? {} : { note: `differs; applicationsSync ${s.policy}: not updated` }),
      });
      continue;
    }
    steps.push({ app: at(name), action: same ? 'unchanged' : 'update', object: target, ...(uid ? { uid } : {}) });
  }
  const wanted = new Set(generatedNames);
  if (s.uid === undefined) {
    warnings.push(`ApplicationSet ${at(s.name)} is not in the cluster: the Applications are written without an owner, and none is deleted`);
  } else {
    for (const o of owned) {
      const name = nameOf(o);
      if (wanted.has(name)) continue;
      const uid = isObject(o.metadata) && typeof o.metadata.uid === 'string' ? o.metadata.uid : undefined;
      if (allowsDelete(s.policy)) steps.push({ app: at(name), action: 'delete', ...(uid ? { uid } : {}) });
      else steps.push({ app: at(name), action: 'unchanged', ...(uid ? { uid } : {}), note: `no longer generated; applicationsSync ${s.policy}: kept` });
    }
  }
  return { steps, warnings };
}
