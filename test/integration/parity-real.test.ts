// The file-versus-cluster parity of test/unit/diff/file-cluster-parity.test.ts on the real API server: each diff
// fixture's live objects (test/fixtures/diff/<case>/live.yaml, read from there, not copied) are written to the local
// control plane, then `diff` against the cluster, `status`, and `diff --live` (file mode) on a dump of what the server
// stored must give the same verdicts, and the ones the fixture's expected.yaml names.
//
// How a fixture's live object is written (the closest real equivalent of the story it tells):
// - with managedFields: each entry is replayed as its manager: an Apply entry is a server-side apply of the fields it
//   lists, under that field manager; an Update entry is a strategic merge patch of its fields under that manager (on
//   the scale subresource when it names one), after a first write that held the value the fixture's desired object
//   has there, so the update moves the field to its manager as a real one does. What the server needs and the fixture
//   leaves out (a Deployment's selector, a container) is applied by `kgitops-parity`, which keeps only that. The
//   stored managedFields are then checked to hold each fixture entry exactly.
// - without: the whole object is created by our field manager (argocd-controller) with an Update, as Argo CD's
//   client-side sync writes it, so no other manager owns a field the fixture says drifted (the conflict fixtures carry
//   their other managers).
// - what the server sets itself is left to it: uid, resourceVersion, generation, creationTimestamp, status, a Service's
//   clusterIP. The fixtures' namespace `shop` becomes a namespace of this suite, one per fixture (their objects share
//   names); the app's tracking mark is put on each desired object, as the unit test does; custom kinds get a
//   schema-less CRD.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, getJson, kubectl, kubectlOk, runPlugin } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { countsClaims, reportClaims, tally } from './support/claims.js';
import type { JsonObject, JsonValue, KubeObject } from '../../src/model/object.js';
import { TRACKING_ID } from '../../src/model/keys.js';

countsClaims('parity-real.fixtures');

const ROOT = join(process.cwd(), 'test/fixtures/diff');
const CASES = readdirSync(ROOT)
  .filter((d) => existsSync(join(ROOT, d, 'expected.yaml')))
  .sort();
const OURS = 'argocd-controller';
const SCAFFOLD = 'kgitops-parity';
const SCAFFOLD_LABEL = 'kgitops.test/parity';
const TIMEOUT = 180_000;

let work: string;
const namespaces: string[] = [];
const crds: string[] = [];

interface Expected {
  sync: string;
  objects: { object: string; status: string; fields: { path: string; verdict: string; owners?: string[] }[] }[];
  secretsNeverShown?: string[];
}
interface DiffField {
  path: string;
  pointer: string;
  desired?: JsonValue;
  live?: JsonValue;
  owners: { manager: string; operation: string; subresource?: string }[];
  verdict: string;
  rule?: JsonValue;
}
interface DiffJson {
  sync: string;
  objects: { key: { kind: string; namespace: string; name: string }; status: string; fields: DiffField[] }[];
  extras: unknown[];
}
interface StatusJson {
  sync: { status: string };
  resources: { kind: string; name: string; status: string }[];
}
interface ManagedEntry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1?: JsonObject;
}

function objectsOf(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

/** The part of `value` a FieldsV1 set names (f: fields, k: keyed list elements with their keys, v: set values). */
function restrict(value: JsonValue | undefined, set: JsonObject): JsonValue | undefined {
  if (Object.keys(set).filter((k) => k !== '.').length === 0) return clone(value);
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const [k, sub] of Object.entries(set)) {
      if (k.startsWith('k:')) {
        const keys = JSON.parse(k.slice(2)) as JsonObject;
        const el = value.find((e) => isObj(e) && Object.entries(keys).every(([kk, kv]) => JSON.stringify(e[kk]) === JSON.stringify(kv)));
        if (el === undefined) throw new Error(`replaying managedFields: no list element ${k}`);
        out.push({ ...(restrict(el, sub as JsonObject) as JsonObject), ...keys });
      } else if (k.startsWith('v:')) out.push(JSON.parse(k.slice(2)) as JsonValue);
    }
    return out;
  }
  if (!isObj(value)) throw new Error(`replaying managedFields: fields under a scalar (${JSON.stringify(set)})`);
  const out: JsonObject = {};
  for (const [k, sub] of Object.entries(set)) {
    if (!k.startsWith('f:')) continue;
    const name = k.slice(2);
    if (!(name in value)) throw new Error(`replaying managedFields: live has no field ${name}`);
    out[name] = restrict(value[name], sub as JsonObject) as JsonValue;
  }
  return out;
}

/** Every leaf path (as field names and list keys) a FieldsV1 set owns, each with how to reach it in an object. */
function leaves(set: JsonObject, at: string[] = []): string[][] {
  const subs = Object.entries(set).filter(([k]) => k !== '.');
  if (subs.length === 0) return [at];
  return subs.flatMap(([k, sub]) => leaves(sub as JsonObject, [...at, k]));
}

/** Follows a FieldsV1 path in an object (f:name, k:{keys}); undefined when absent. */
function follow(obj: JsonValue | undefined, path: string[]): { parent: JsonObject; field: string } | undefined {
  let node = obj;
  for (let i = 0; i < path.length; i++) {
    const k = path[i]!;
    if (k.startsWith('f:')) {
      if (!isObj(node)) return undefined;
      if (i === path.length - 1) return { parent: node, field: k.slice(2) };
      node = node[k.slice(2)];
    } else if (k.startsWith('k:')) {
      if (!Array.isArray(node)) return undefined;
      const keys = JSON.parse(k.slice(2)) as JsonObject;
      node = node.find((e) => isObj(e) && Object.entries(keys).every(([kk, kv]) => JSON.stringify(e[kk]) === JSON.stringify(kv)));
    } else return undefined;
  }
  return undefined;
}

/** The fixture's live object as a server takes it: what it sets itself removed, in namespace `ns`. */
function forServer(o: KubeObject, ns: string): KubeObject {
  const x = clone(o) as KubeObject & { spec?: JsonObject; status?: unknown };
  const meta = { ...x.metadata, namespace: ns } as KubeObject['metadata'] & Record<string, unknown>;
  for (const f of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields']) delete meta[f];
  x.metadata = meta;
  delete x.status;
  if (x.kind === 'Service' && x.spec) delete x.spec.clusterIP;
  if (x.metadata.annotations?.[TRACKING_ID]) {
    const { [TRACKING_ID]: _mark, ...rest } = x.metadata.annotations;
    x.metadata.annotations = rest;
  }
  return x;
}

/**
 * What the real server needs and a fixture's pair of objects leaves out, the same in both (so no verdict changes): a
 * Deployment's selector and its labels, a container, the volumes its mounts name.
 */
function scaffoldOf(pair: readonly KubeObject[]): JsonObject | undefined {
  const [live] = pair;
  if (live?.kind !== 'Deployment') return undefined;
  const specOf = (o: KubeObject) => ((o as unknown as { spec?: JsonObject }).spec ?? {}) as JsonObject;
  const podSpecOf = (o: KubeObject) => (((specOf(o).template ?? {}) as JsonObject).spec ?? {}) as JsonObject;
  const out: JsonObject = {};
  const pod: JsonObject = {};
  if (!specOf(live).selector) {
    out.selector = { matchLabels: { [SCAFFOLD_LABEL]: nameOf(live) } };
    out.template = { metadata: { labels: { [SCAFFOLD_LABEL]: nameOf(live) } } };
  }
  if (!podSpecOf(live).containers) pod.containers = [{ name: 'scaffold', image: 'registry.local/scaffold:1' }];
  const mounts = new Set(
    pair.flatMap((o) =>
      ((podSpecOf(o).containers ?? []) as JsonObject[]).flatMap((c) => ((c.volumeMounts ?? []) as JsonObject[]).map((m) => m.name as string)),
    ),
  );
  if (mounts.size > 0 && !pair.some((o) => podSpecOf(o).volumes)) pod.volumes = [...mounts].sort().map((name) => ({ name, emptyDir: {} }));
  if (Object.keys(pod).length > 0) out.template = { ...((out.template ?? {}) as JsonObject), spec: pod };
  return Object.keys(out).length > 0 ? { spec: out } : undefined;
}

/** A Service of several ports must name each: an unnamed one gets `port-<port>`, in both objects of the pair. */
function namePorts(pair: readonly KubeObject[]): void {
  const portsOf = (o: KubeObject) => (((o as unknown as { spec?: JsonObject }).spec ?? {}).ports ?? []) as JsonObject[];
  if (pair[0]?.kind !== 'Service' || !pair.some((o) => portsOf(o).length > 1)) return;
  for (const o of pair) for (const p of portsOf(o)) p.name ??= `port-${p.port as number}`;
}

function deepMerge(a: JsonValue | undefined, b: JsonValue): JsonValue {
  if (!isObj(a) || !isObj(b)) return clone(b);
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = deepMerge(a[k], v);
  return out;
}

/** The resource name of a kind (also the plural of the CRDs this suite makes). */
const plural = (kind: string) => {
  const k = kind.toLowerCase();
  return k.endsWith('s') ? `${k}es` : k.endsWith('y') ? `${k.slice(0, -1)}ies` : `${k}s`;
};
/** Every fixture object has a name, and a namespace once forServer or the test gave it one. */
const nameOf = (o: KubeObject) => o.metadata.name ?? '';
const nsOf = (o: KubeObject) => o.metadata.namespace ?? '';
const ident = (o: KubeObject): JsonObject => ({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: nameOf(o), namespace: nsOf(o) } });
const resource = (o: KubeObject) => `${o.kind.toLowerCase()}${groupOf(o.apiVersion) ? `.${groupOf(o.apiVersion)}` : ''}`;

async function ssa(obj: JsonValue, manager: string, force = false): Promise<void> {
  await kubectlOk(['apply', '--server-side', `--field-manager=${manager}`, ...(force ? ['--force-conflicts'] : []), '-f', '-'], { stdin: JSON.stringify(obj) });
}

/** Writes one fixture live object (already forServer) as the managers its fixture names, or as ours when it names none. */
async function writeLive(
  fixture: KubeObject,
  live: KubeObject,
  desired: KubeObject | undefined,
  scaffold: JsonObject | undefined,
  mark: string | undefined,
): Promise<void> {
  const withMark = (o: JsonObject): JsonObject => (mark ? (deepMerge(o, { metadata: { annotations: { [TRACKING_ID]: mark } } }) as JsonObject) : o);
  const entries = (fixture.metadata.managedFields ?? []) as ManagedEntry[];
  if (entries.length === 0) {
    // A POST as it is (kubectl create would rewrite a last-applied annotation to the whole object).
    const group = groupOf(live.apiVersion);
    const url = `/${group ? `apis/${live.apiVersion}` : 'api/v1'}/namespaces/${nsOf(live)}/${plural(live.kind)}?fieldManager=${OURS}`;
    await kubectlOk(['create', '--raw', url, '-f', '-'], { stdin: JSON.stringify(withMark(live as unknown as JsonObject)) });
    return;
  }
  // First write: the whole object, each field an Update entry owns holding the desired object's value there (the value
  // before that manager changed it).
  const first = clone(live) as unknown as JsonObject;
  for (const e of entries.filter((x) => x.operation === 'Update')) {
    for (const path of leaves(e.fieldsV1 ?? {})) {
      const at = follow(first, path);
      const before = desired ? follow(clone(desired) as unknown as JsonObject, path) : undefined;
      const value = before ? before.parent[before.field] : undefined;
      if (!at || value === undefined || JSON.stringify(value) === JSON.stringify(at.parent[at.field])) {
        throw new Error(`replaying ${e.manager}'s update of ${path.join('.')}: the desired object has no other value there`);
      }
      at.parent[at.field] = value;
    }
  }
  await ssa(withMark(first), SCAFFOLD);
  for (const e of entries) {
    const part = deepMerge(restrict(live as unknown as JsonValue, e.fieldsV1 ?? {}), ident(live)) as JsonObject;
    if (e.operation === 'Apply') await ssa(part, e.manager, true);
    else {
      const args = ['patch', resource(live), nameOf(live), '-n', nsOf(live), `--field-manager=${e.manager}`];
      const patch = { ...part };
      delete patch.apiVersion;
      delete patch.kind;
      delete patch.metadata;
      if (e.subresource) args.push(`--subresource=${e.subresource}`);
      await kubectlOk([...args, '--type=strategic', '-p', JSON.stringify(patch)]);
    }
  }
  // The scaffold's manager keeps only what the fixture leaves out (and the mark, which a dump carries).
  await ssa(withMark(deepMerge(ident(live), scaffold ?? {}) as JsonObject), SCAFFOLD);
  // The server now holds each fixture entry exactly.
  const stored = (await getJson(resource(live), nameOf(live), nsOf(live))).metadata.managedFields ?? [];
  for (const e of entries) {
    const match = stored.filter((s) => s.manager === e.manager && s.operation === e.operation && (s.subresource ?? '') === (e.subresource ?? ''));
    expect(match.map((s) => s.fieldsV1)).toEqual([e.fieldsV1]);
  }
}

/** The kinds of the fixtures' objects the server does not serve: a schema-less CRD each. */
async function ensureCrds(): Promise<void> {
  const served = new Set((await kubectlOk(['api-versions'])).trim().split('\n'));
  const seen = new Set<string>();
  for (const c of CASES) {
    for (const f of ['desired.yaml', 'live.yaml']) {
      for (const o of objectsOf(join(ROOT, c, f))) {
        if (served.has(o.apiVersion) || o.apiVersion === 'v1') continue;
        const group = groupOf(o.apiVersion);
        const name = `${plural(o.kind)}.${group}`;
        if (seen.has(name)) continue;
        seen.add(name);
        const crd = {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name },
          spec: {
            group,
            scope: 'Namespaced',
            names: { plural: plural(o.kind), singular: o.kind.toLowerCase(), kind: o.kind, listKind: `${o.kind}List` },
            versions: [
              {
                name: o.apiVersion.split('/')[1],
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            ],
          },
        };
        await kubectlOk(['create', '-f', '-'], { stdin: JSON.stringify(crd) });
        crds.push(name);
      }
    }
  }
  for (const name of crds) await kubectlOk(['wait', '--for=condition=Established', `crd/${name}`, '--timeout=60s']);
}

beforeAll(async () => {
  work = tempDir('parity-real');
  await ensureCrds();
}, TIMEOUT);

afterAll(async () => {
  reportClaims();
  for (const ns of namespaces) await deleteNamespace(ns);
  for (const name of crds) await kubectl(['delete', 'crd', name, '--ignore-not-found', '--wait=false']);
}, TIMEOUT);

const rows = (objects: DiffJson['objects']) =>
  objects.map((o) => ({
    object: `${o.key.kind}/${o.key.name}`,
    status: o.status,
    fields: o.fields.map((f) => ({ ...f, owners: f.owners.map((x) => `${x.manager} ${x.operation}${x.subresource ? ` ${x.subresource}` : ''}`) })),
  }));

describe("file mode, cluster mode and status give the fixtures' verdicts on the real API server", () => {
  it('runs every fixture', () => expect(CASES.length).toBeGreaterThanOrEqual(23));

  it.each(CASES)(
    '%s',
    async (name) => {
      const dir = join(ROOT, name);
      const ns = await createTestNamespace(`parity-${name}`.slice(0, 40));
      namespaces.push(ns);
      const caseDir = join(work, name);
      const desiredDir = join(caseDir, 'desired');
      mkdirSync(desiredDir, { recursive: true });
      const app = (existsSync(join(dir, 'app.yaml')) ? parse(readFileSync(join(dir, 'app.yaml'), 'utf8')) : { metadata: { name: 'shop' }, spec: {} }) as {
        metadata: { name: string };
        spec: Record<string, unknown>;
      };
      const appFile = join(caseDir, 'app.yaml');
      writeFileSync(appFile, applicationYaml({ name: app.metadata.name, spec: { ...app.spec, destination: inCluster(ns) } }));
      let desired: KubeObject[] = objectsOf(join(dir, 'desired.yaml')).map((o) => ({ ...o, metadata: { ...o.metadata, namespace: ns } }));
      const desiredOf = (o: KubeObject) => desired.find((d) => d.kind === o.kind && d.apiVersion === o.apiVersion && d.metadata.name === o.metadata.name);
      const writes: [KubeObject, KubeObject, KubeObject | undefined, JsonObject | undefined][] = [];
      for (const fixture of objectsOf(join(dir, 'live.yaml'))) {
        let live = forServer(fixture, ns);
        let d = desiredOf(live);
        namePorts(d ? [live, d] : [live]);
        const scaffold = scaffoldOf(d ? [live, d] : [live]);
        if (scaffold) {
          live = deepMerge(live as unknown as JsonObject, scaffold) as unknown as KubeObject;
          if (d) {
            const merged = deepMerge(d as unknown as JsonObject, scaffold) as unknown as KubeObject;
            desired = desired.map((x) => (x === d ? merged : x));
            d = merged;
          }
        }
        writes.push([fixture, live, d, scaffold]);
      }
      writeFileSync(join(desiredDir, 'desired.yaml'), desired.map((o) => stringify(o)).join('---\n'));
      for (const [fixture, live, d, scaffold] of writes) {
        const mark = d ? `${app.metadata.name}:${groupOf(live.apiVersion)}/${live.kind}:${ns}/${live.metadata.name}` : undefined;
        await writeLive(fixture, live, d, scaffold, mark);
      }

      const args = ['-f', appFile, '--desired', desiredDir];
      const expected = parse(readFileSync(join(dir, 'expected.yaml'), 'utf8')) as Expected;
      const exitCode = expected.sync === 'Synced' ? 0 : 1;

      const cluster = await runPlugin(['diff', ...args, '-o', 'json']);
      expect({ code: cluster.code, stderr: cluster.stderr }).toEqual({ code: exitCode, stderr: '' });
      const clusterReport = JSON.parse(cluster.stdout) as DiffJson;

      // File mode on a dump of what the server stored (managedFields included).
      const dump = [];
      for (const o of desired) {
        const got = await kubectl(['get', resource(o), nameOf(o), '-n', ns, '-o', 'json', '--show-managed-fields']);
        if (got.code === 0) dump.push(JSON.parse(got.stdout) as KubeObject);
      }
      const liveFile = join(caseDir, 'live.yaml');
      writeFileSync(liveFile, dump.map((o) => stringify(o)).join('---\n'));
      const file = await runPlugin(['diff', ...args, '--live', liveFile, '-o', 'json']);
      expect({ code: file.code, stderr: file.stderr }).toEqual({ code: exitCode, stderr: '' });
      const fileReport = JSON.parse(file.stdout) as DiffJson;

      const status = await runPlugin(['status', ...args, '-o', 'json']);
      expect(status.code).toBe(0);
      const statusReport = JSON.parse(status.stdout) as StatusJson;

      // The three agree.
      expect(clusterReport.sync).toBe(fileReport.sync);
      expect(rows(clusterReport.objects)).toEqual(rows(fileReport.objects));
      expect(clusterReport.extras).toEqual([]);
      expect(statusReport.sync.status).toBe(clusterReport.sync);
      expect(statusReport.resources.map((r) => `${r.kind}/${r.name} ${r.status}`).sort()).toEqual(
        clusterReport.objects.map((o) => `${o.key.kind}/${o.key.name} ${o.status === 'in-sync' ? 'Synced' : 'OutOfSync'}`).sort(),
      );
      // And they are what the fixture expects, owners included where it names them.
      expect(clusterReport.sync).toBe(expected.sync);
      expect(clusterReport.objects.map((o) => `${o.key.kind}/${o.key.name} ${o.status} ${o.fields.map((f) => `${f.path} ${f.verdict}`).join(', ')}`)).toEqual(
        expected.objects.map((o) => `${o.object} ${o.status} ${o.fields.map((f) => `${f.path} ${f.verdict}`).join(', ')}`),
      );
      for (const [i, o] of expected.objects.entries()) {
        for (const [j, f] of o.fields.entries()) {
          if (f.owners) expect(clusterReport.objects[i]!.fields[j]!.owners.map((x) => x.manager)).toEqual(f.owners);
        }
      }
      for (const secret of expected.secretsNeverShown ?? []) {
        for (const out of [cluster.stdout, file.stdout, status.stdout]) expect(out).not.toContain(secret);
      }
      tally('parity-real.fixtures');
    },
    TIMEOUT,
  );
});
