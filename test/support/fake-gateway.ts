// An in-memory KubeGateway for unit tests: a store of objects, simple SSA merging, injectable failures.
import { groupOf, isPlainObject, versionOf, type JsonValue, type KubeObject } from '../../src/model/object.js';
import { apiError, ApplyConflictError, type FieldConflict } from '../../src/kube/errors.js';
import type {
  AccessCheck,
  AccessResult,
  ApplyOptions,
  DeleteOptions,
  Discovery,
  GatewayStats,
  KubeGateway,
  ListOptions,
  ListResult,
  PatchOptions,
  PatchType,
  UpdateOptions,
  WatchEvent,
  WriteOptions,
  WatchOptions,
} from '../../src/kube/gateway.js';
import { resourceName, type ResourceType } from '../../src/model/resource-type.js';

/** Types a test cluster usually serves. */
export const COMMON_TYPES: ResourceType[] = [
  { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false, verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'] },
  { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'] },
  { group: '', version: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true, verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'] },
  { group: '', version: 'v1', kind: 'Service', resource: 'services', namespaced: true, verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'] },
  {
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    resource: 'serviceaccounts',
    namespaced: true,
    verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'],
  },
  { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true, verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'] },
  { group: '', version: 'v1', kind: 'Event', resource: 'events', namespaced: true, verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'] },
  { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'] },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', resource: 'replicasets', namespaced: true, verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'] },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    resource: 'clusterroles',
    namespaced: false,
    verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'],
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    resource: 'customresourcedefinitions',
    namespaced: false,
    verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'],
  },
  {
    group: 'argoproj.io',
    version: 'v1alpha1',
    kind: 'Application',
    resource: 'applications',
    namespaced: true,
    verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'],
  },
];

export interface FakeGatewayOptions {
  types?: ResourceType[];
  objects?: KubeObject[];
  /** Conflicts an (unforced) apply of this object would meet. */
  conflictsFor?: (obj: KubeObject, opts: ApplyOptions) => FieldConflict[];
  /** An error to throw instead of applying (e.g. a 422). */
  failApply?: (obj: KubeObject, opts: ApplyOptions) => Error | undefined;
  /** An error to throw instead of deleting. */
  failDelete?: (type: ResourceType, namespace: string, name: string) => Error | undefined;
  /** Called before an update is stored (a test changes the object under it to make a conflict). */
  beforeUpdate?: (obj: KubeObject) => void;
  /** Types the fake stores but discovery does not return (a CRD registered after the command read discovery). */
  servedLater?: ResourceType[];
  /** `verb resource` (resource as `deployments.apps`) pairs that are denied everywhere. */
  forbidden?: string[];
  /** `verb resource` pairs denied over all namespaces at once, allowed in one (a namespaced Role's grant). */
  forbiddenClusterWide?: string[];
  /**
   * How many reads (GET) an object stays after its delete, Terminating (deletionTimestamp set), as a foreground delete
   * or a finalizer holds it on a real server; absent or 0: gone at once.
   */
  lingerAfterDelete?: (kind: string, namespace: string, name: string) => number;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function mergeInto(base: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (isPlainObject(base) && isPlainObject(patch)) {
    const out: Record<string, JsonValue> = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = mergeInto(base[k], v);
    return out;
  }
  return clone(patch);
}

/** RFC 7386: null deletes, objects merge, anything else replaces (the fake treats a strategic patch the same way). */
function mergePatch(base: JsonValue | undefined, patch: JsonValue): JsonValue | undefined {
  if (!isPlainObject(patch)) return clone(patch);
  const out: Record<string, JsonValue> = isPlainObject(base) ? { ...base } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v) as JsonValue;
  }
  return out;
}

/** RFC 6902 `test`, `remove`, `add` and `replace`; a failed test or a missing path is a 422. */
function jsonPatch(doc: JsonValue, ops: readonly { op: string; path: string; value?: JsonValue }[], doing: string): JsonValue {
  const out = clone(doc);
  const fail = (why: string): never => {
    throw apiError(doing, 422, JSON.stringify({ kind: 'Status', reason: 'Invalid', message: why }));
  };
  for (const op of ops) {
    const parts = op.path
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop() ?? fail(`bad path ${op.path}`);
    let parent: JsonValue | undefined = out;
    for (const p of parts) parent = Array.isArray(parent) ? parent[Number(p)] : isPlainObject(parent) ? parent[p] : undefined;
    if (!Array.isArray(parent) && !isPlainObject(parent)) return fail(`no parent for ${op.path}`);
    const at = Array.isArray(parent) ? (last === '-' ? parent.length : Number(last)) : last;
    const current = Array.isArray(parent) ? parent[at as number] : parent[at as string];
    if (op.op === 'test') {
      if (JSON.stringify(current) !== JSON.stringify(op.value)) fail(`the test of ${op.path} failed`);
    } else if (op.op === 'remove') {
      if (current === undefined) fail(`nothing at ${op.path}`);
      if (Array.isArray(parent)) parent.splice(at as number, 1);
      else delete parent[at as string];
    } else if (op.op === 'add' || op.op === 'replace') {
      if (Array.isArray(parent)) parent.splice(at as number, op.op === 'add' ? 0 : 1, clone(op.value as JsonValue));
      else parent[at as string] = clone(op.value as JsonValue);
    } else fail(`unsupported op ${op.op}`);
  }
  return out;
}

function matchesSelector(obj: KubeObject, selector: string | undefined): boolean {
  if (!selector) return true;
  const labels = obj.metadata.labels ?? {};
  return selector.split(',').every((term) => {
    const t = term.trim();
    const neq = t.split('!=');
    if (neq.length === 2) return labels[neq[0] as string] !== neq[1];
    const eq = t.split('=');
    if (eq.length >= 2) return labels[eq[0] as string] === eq[eq.length - 1];
    return t.startsWith('!') ? !(t.slice(1) in labels) : t in labels;
  });
}

/** A fake cluster; `calls` records every request as `VERB path-ish` for assertions. */
export class FakeGateway implements KubeGateway {
  readonly server = 'fake://cluster';
  readonly calls: string[] = [];
  private readonly types: ResourceType[];
  private readonly store = new Map<string, KubeObject>();
  private rv = 1000;
  private uidSeq = 0;
  /** Reads left before a deleted, Terminating object goes (lingerAfterDelete). */
  private readonly lingering = new Map<string, number>();

  constructor(private readonly opts: FakeGatewayOptions = {}) {
    this.types = opts.types ?? COMMON_TYPES;
    for (const o of opts.objects ?? []) this.put(o);
  }

  private key(group: string, kind: string, ns: string, name: string): string {
    return `${group}/${kind}/${ns}/${name}`;
  }

  private typeFor(obj: KubeObject): ResourceType {
    const t = [...this.types, ...(this.opts.servedLater ?? [])].find((x) => x.group === groupOf(obj.apiVersion) && x.kind === obj.kind);
    if (!t) throw new Error(`fake gateway: no type for ${obj.apiVersion} ${obj.kind}`);
    return t;
  }

  /** Stores an object as the cluster would (uid, resourceVersion, creationTimestamp filled in). */
  put(obj: KubeObject): KubeObject {
    const o = clone(obj);
    const t = this.typeFor(o);
    if (!t.namespaced) delete o.metadata.namespace;
    o.metadata.uid ??= `uid-${++this.uidSeq}`;
    o.metadata.resourceVersion = String(++this.rv);
    o.metadata.creationTimestamp ??= '2026-01-01T00:00:00Z';
    this.store.set(this.key(t.group, t.kind, o.metadata.namespace ?? '', o.metadata.name ?? ''), o);
    return clone(o);
  }

  /** Everything stored, for assertions. */
  objects(): KubeObject[] {
    return [...this.store.values()].map(clone);
  }

  find(kind: string, namespace: string, name: string): KubeObject | undefined {
    const o = [...this.store.values()].find((x) => x.kind === kind && (x.metadata.namespace ?? '') === namespace && x.metadata.name === name);
    return o ? clone(o) : undefined;
  }

  async discover(): Promise<Discovery> {
    this.calls.push('DISCOVER');
    return { all: clone(this.types), preferred: clone(this.types) };
  }

  /** Served now: discovery's types and those registered since (`servedLater`). */
  async servedTypes(group: string, version: string): Promise<ResourceType[] | undefined> {
    this.calls.push(`DISCOVER ${group}/${version}`);
    const types = [...this.types, ...(this.opts.servedLater ?? [])].filter((x) => x.group === group && x.version === version);
    return types.length > 0 ? clone(types) : undefined;
  }

  async resolve(apiVersion: string, kind: string): Promise<ResourceType | undefined> {
    const t = this.types.find((x) => x.group === groupOf(apiVersion) && x.version === versionOf(apiVersion) && x.kind === kind);
    return t ? clone(t) : undefined;
  }

  private denied(verb: string, type: ResourceType, namespace?: string): Error | undefined {
    const wide = type.namespaced && !namespace && (this.opts.forbiddenClusterWide ?? []).includes(`${verb} ${resourceName(type)}`);
    if (!wide && !(this.opts.forbidden ?? []).includes(`${verb} ${resourceName(type)}`)) return undefined;
    // The authorizer's own text (k8s.io/apiserver's forbiddenMessage): what apiError takes for a missing permission.
    const group = type.group ? `${type.resource}.${type.group}` : type.resource;
    const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
    const message = `${group} is forbidden: User "tester" cannot ${verb} resource "${type.resource}" in API group "${type.group}" ${scope}`;
    return apiError(`${verb === 'list' ? 'listing' : verb + 'ing'} ${type.kind}`, 403, JSON.stringify({ kind: 'Status', reason: 'Forbidden', message }), {
      verb,
      resource: resourceName(type),
      ...(namespace ? { namespace } : {}),
    });
  }

  async get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined> {
    this.calls.push(`GET ${type.kind} ${namespace}/${name}`);
    const err = this.denied('get', type, namespace);
    if (err) throw err;
    const k = this.key(type.group, type.kind, type.namespaced ? namespace : '', name);
    const left = this.lingering.get(k);
    if (left !== undefined) {
      if (left <= 0) {
        this.lingering.delete(k);
        this.store.delete(k);
      } else this.lingering.set(k, left - 1);
    }
    const o = this.store.get(k);
    return o ? clone(o) : undefined;
  }

  async list(type: ResourceType, opts: ListOptions = {}): Promise<ListResult> {
    this.calls.push(`LIST ${type.kind} ${opts.namespace ?? '*'}${opts.metadataOnly ? ' meta' : ''}`);
    const err = this.denied('list', type, opts.namespace);
    if (err) throw err;
    const items = [...this.store.values()]
      .filter((o) => groupOf(o.apiVersion) === type.group && o.kind === type.kind)
      .filter((o) => !type.namespaced || !opts.namespace || o.metadata.namespace === opts.namespace)
      .filter((o) => matchesSelector(o, opts.labelSelector))
      // Leaves out what the real gateway may leave out, so callers are tested without those items.
      .filter((o) => !(opts.metadataOnly && opts.withAnnotation) || o.metadata.annotations?.[opts.withAnnotation] !== undefined)
      .map((o) => (opts.metadataOnly ? { apiVersion: o.apiVersion, kind: o.kind, metadata: clone(o.metadata) } : clone(o)));
    // Pages as the real gateway's (500 full objects, 5,000 metadata-only), so that `maxPages` and `continue` work.
    const size = opts.pageSize ?? (opts.metadataOnly ? 5000 : 500);
    const from = opts.continue ? Number(opts.continue) : 0;
    const rest = items.slice(from);
    if (opts.maxPages !== undefined && rest.length > opts.maxPages * size) {
      const upTo = opts.maxPages * size;
      return {
        items: rest.slice(0, upTo),
        resourceVersion: String(this.rv),
        pages: opts.maxPages,
        continue: String(from + upTo),
        remainingItemCount: rest.length - upTo,
      };
    }
    const pages = opts.pageSize || opts.continue ? Math.max(1, Math.ceil(rest.length / size)) : 1;
    return { items: rest, resourceVersion: String(this.rv), pages };
  }

  async apply(type: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    const ns = type.namespaced ? (obj.metadata.namespace ?? '') : '';
    this.calls.push(`APPLY${opts.dryRun ? ' dry' : ''}${opts.force ? ' force' : ''} ${type.kind} ${ns}/${obj.metadata.name ?? ''}`);
    const err = this.denied('patch', type, ns) ?? this.opts.failApply?.(obj, opts);
    if (err) throw err;
    const conflicts = opts.force ? [] : (this.opts.conflictsFor?.(obj, opts) ?? []);
    if (conflicts.length > 0) throw new ApplyConflictError(`applying ${type.kind} ${obj.metadata.name}: conflict`, conflicts);
    const k = this.key(type.group, type.kind, ns, obj.metadata.name ?? '');
    const existing = this.store.get(k);
    const merged = mergeInto(existing as unknown as JsonValue, obj as unknown as JsonValue) as unknown as KubeObject;
    const entry = {
      manager: opts.fieldManager,
      operation: 'Apply',
      apiVersion: obj.apiVersion,
      time: '2026-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    };
    merged.metadata.managedFields = [...(existing?.metadata.managedFields ?? []).filter((m) => m.manager !== opts.fieldManager), entry];
    if (opts.dryRun) {
      const out = clone(merged);
      if (!type.namespaced) delete out.metadata.namespace;
      out.metadata.uid ??= 'uid-dry-run';
      return out;
    }
    return this.put(merged);
  }

  /** A whole-object write: the stored object becomes exactly `obj` (managedFields: our manager's Update). */
  private write(verb: 'REPLACE' | 'CREATE', type: ResourceType, obj: KubeObject, opts: WriteOptions): KubeObject {
    const ns = type.namespaced ? (obj.metadata.namespace ?? '') : '';
    this.calls.push(
      `${verb}${opts.dryRun ? ' dry' : ''}${opts.fieldValidation === 'Ignore' ? ' validate=Ignore' : ''} ${type.kind} ${ns}/${obj.metadata.name ?? ''}`,
    );
    const err = this.denied(verb === 'REPLACE' ? 'update' : 'create', type, ns);
    if (err) throw err;
    const k = this.key(type.group, type.kind, ns, obj.metadata.name ?? '');
    const existing = this.store.get(k);
    if (verb === 'REPLACE' && !existing)
      throw apiError(`replacing ${type.kind} ${obj.metadata.name}`, 404, '{"kind":"Status","reason":"NotFound","message":"not found"}');
    if (verb === 'CREATE' && existing)
      throw apiError(`creating ${type.kind} ${obj.metadata.name}`, 409, '{"kind":"Status","reason":"AlreadyExists","message":"already exists"}');
    const out = clone(obj);
    if (!type.namespaced) delete out.metadata.namespace;
    out.metadata.managedFields = [
      { manager: opts.fieldManager, operation: 'Update', apiVersion: obj.apiVersion, time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: {} },
    ];
    if (existing?.metadata.uid) out.metadata.uid = existing.metadata.uid;
    return opts.dryRun ? out : this.put(out);
  }

  async replace(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    return this.write('REPLACE', type, obj, opts);
  }

  async create(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    return this.write('CREATE', type, obj, opts);
  }

  async update(type: ResourceType, obj: KubeObject, opts: UpdateOptions): Promise<KubeObject> {
    const ns = type.namespaced ? (obj.metadata.namespace ?? '') : '';
    this.calls.push(`UPDATE ${type.kind} ${ns}/${obj.metadata.name ?? ''}`);
    const err = this.denied('update', type, ns);
    if (err) throw err;
    this.opts.beforeUpdate?.(clone(obj));
    const existing = this.store.get(this.key(type.group, type.kind, ns, obj.metadata.name ?? ''));
    if (!existing) throw apiError(`updating ${type.kind} ${obj.metadata.name ?? ''}`, 404, '{"kind":"Status","reason":"NotFound","message":"not found"}');
    if (obj.metadata.resourceVersion !== undefined && obj.metadata.resourceVersion !== existing.metadata.resourceVersion) {
      throw apiError(
        `updating ${type.kind} ${obj.metadata.name ?? ''}`,
        409,
        '{"kind":"Status","reason":"Conflict","message":"the object has been modified; please apply your changes to the latest version and try again"}',
      );
    }
    const entry = {
      manager: opts.fieldManager,
      operation: 'Update',
      apiVersion: obj.apiVersion,
      time: '2026-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    };
    const next = clone(obj);
    next.metadata.managedFields = [...(existing.metadata.managedFields ?? []).filter((m) => m.manager !== opts.fieldManager), entry];
    return this.put(next);
  }

  async patch(type: ResourceType, namespace: string, name: string, patch: unknown, patchType: PatchType, opts: PatchOptions): Promise<KubeObject> {
    const ns = type.namespaced ? namespace : '';
    this.calls.push(`PATCH ${patchType}${opts.dryRun ? ' dry' : ''} ${type.kind} ${ns}/${name}`);
    const err = this.denied('patch', type, ns);
    if (err) throw err;
    const existing = this.store.get(this.key(type.group, type.kind, ns, name));
    if (!existing) throw apiError(`patching ${type.kind} ${name}`, 404, '{"kind":"Status","reason":"NotFound","message":"not found"}');
    const next = (patchType === 'json'
      ? jsonPatch(existing as unknown as JsonValue, patch as { op: string; path: string; value?: JsonValue }[], `patching ${type.kind} ${name}`)
      : mergePatch(existing as unknown as JsonValue, patch as JsonValue)) as unknown as KubeObject;
    const entry = {
      manager: opts.fieldManager,
      operation: 'Update',
      apiVersion: existing.apiVersion,
      time: '2026-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    };
    next.metadata.managedFields = [
      ...(existing.metadata.managedFields ?? []).filter((m) => m.manager !== opts.fieldManager || m.operation !== 'Update'),
      entry,
    ];
    return opts.dryRun ? clone(next) : this.put(next);
  }

  async delete(type: ResourceType, namespace: string, name: string, opts: DeleteOptions = {}): Promise<KubeObject | undefined> {
    this.calls.push(`DELETE${opts.dryRun ? ' dry' : ''} ${type.kind} ${namespace}/${name} ${opts.propagationPolicy ?? ''}`.trimEnd());
    const err = this.denied('delete', type, namespace) ?? this.opts.failDelete?.(type, namespace, name);
    if (err) throw err;
    const k = this.key(type.group, type.kind, type.namespaced ? namespace : '', name);
    const o = this.store.get(k);
    if (!o) throw apiError(`deleting ${type.kind} ${name}`, 404, '{"kind":"Status","reason":"NotFound","message":"not found"}');
    const pre = opts.preconditions ?? {};
    if ((pre.uid && pre.uid !== o.metadata.uid) || (pre.resourceVersion && pre.resourceVersion !== o.metadata.resourceVersion)) {
      throw apiError(`deleting ${type.kind} ${name}`, 409, '{"kind":"Status","reason":"Conflict","message":"Precondition failed"}');
    }
    if (opts.dryRun) return clone(o);
    const linger = this.opts.lingerAfterDelete?.(type.kind, namespace, name) ?? 0;
    if (linger <= 0) this.store.delete(k);
    else if (!o.metadata.deletionTimestamp) {
      o.metadata.deletionTimestamp = '2026-01-01T00:00:01Z';
      this.lingering.set(k, linger);
    }
    return clone(o);
  }

  async canI(check: AccessCheck): Promise<AccessResult> {
    this.calls.push(`CANI ${check.verb} ${check.resource}`);
    const res = check.group === '' ? check.resource : `${check.resource}.${check.group}`;
    const allowed = !(this.opts.forbidden ?? []).includes(`${check.verb} ${res}`);
    return allowed ? { allowed } : { allowed, reason: 'denied by fake' };
  }

  async watch(_type: ResourceType, _opts: WatchOptions, _onEvent: (e: WatchEvent) => void): Promise<void> {
    // The fake has no event stream: a watch ends at once.
  }

  stats(): GatewayStats {
    return { requests: this.calls.length, retries: 0 };
  }

  close(): void {}
}
