// Untimed cluster preparation for the benchmark, through the minimal client: namespaces, seeding a
// generated set by server-side apply, emptying a namespace between first-apply runs, the 10,000
// unrelated ConfigMaps of the prune scan, and the 10% drift made under another field manager.
import { collectionPath, objectPath, PLURALS } from './kube.mjs';
import { MIX, SET_LABEL } from './generate.mjs';

const API_VERSIONS = { Deployment: 'apps/v1', Role: 'rbac.authorization.k8s.io/v1' };
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** The manager that makes the drift (as `kubectl patch --field-manager bench-drifter` would). */
export const DRIFTER = 'bench-drifter';

export async function ensureNamespace(client, name) {
  try {
    await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  } catch (e) {
    if (e.status !== 409) throw new Error(`creating namespace ${name}`, { cause: e });
  }
}

/** Server-side applies every object with force under the given manager (resets any drift). */
export async function seed(client, ns, objects, fieldManager = 'argocd-controller') {
  await client.pool(objects, (o) =>
    client.request('PATCH', `${objectPath(o, ns)}?fieldManager=${fieldManager}&force=true`, {
      body: { ...o, metadata: { ...o.metadata, namespace: ns } },
      contentType: 'application/apply-patch+yaml',
    }),
  );
}

/** How many objects of the generated kinds carrying the set label are in the namespace. */
export async function countSet(client, ns, app) {
  const sel = encodeURIComponent(`${SET_LABEL}=${app}`);
  const lists = await client.pool(MIX, ([kind]) =>
    client.request('GET', `${collectionPath(API_VERSIONS[kind] ?? 'v1', PLURALS[kind], ns)}?labelSelector=${sel}`, { accept: METADATA_LIST }),
  );
  return lists.reduce((s, l) => s + (l.items ?? []).length, 0);
}

/**
 * Deletes every generated object of a set (DeleteCollection per kind) and waits until none is left,
 * nor any ReplicaSet or Pod in the namespace (the garbage collector removes those after their Deployments).
 */
export async function emptySet(client, ns, app, timeoutMs = 600_000) {
  const sel = encodeURIComponent(`${SET_LABEL}=${app}`);
  await client.pool(MIX, ([kind]) =>
    client.request('DELETE', `${collectionPath(API_VERSIONS[kind] ?? 'v1', PLURALS[kind], ns)}?labelSelector=${sel}&propagationPolicy=Background`),
  );
  const left = async () => {
    const [rs, pods] = await Promise.all(
      ['/apis/apps/v1', '/api/v1'].map((p, i) => client.request('GET', `${p}/namespaces/${ns}/${i ? 'pods' : 'replicasets'}`, { accept: METADATA_LIST })),
    );
    return (await countSet(client, ns, app)) + (rs.items ?? []).length + (pods.items ?? []).length;
  };
  const deadline = Date.now() + timeoutMs;
  while ((await left()) > 0) {
    if (Date.now() > deadline) throw new Error(`emptying ${ns}: objects of ${app} still there after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
  // Let the controllers finish reacting (events, endpoints) before the next timed run.
  await new Promise((r) => setTimeout(r, 1000));
}

/** Creates the unrelated ConfigMaps `unrelated-00000..` that are missing (idempotent). */
export async function fillUnrelated(client, ns, count) {
  const sel = encodeURIComponent('bench.kgitops/unrelated=true');
  const have = new Set(
    ((await client.request('GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=${sel}`, { accept: METADATA_LIST })).items ?? []).map(
      (i) => i.metadata.name,
    ),
  );
  const names = Array.from({ length: count }, (_, i) => `unrelated-${String(i).padStart(5, '0')}`).filter((n) => !have.has(n));
  await client.pool(names, (name) =>
    client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, labels: { 'bench.kgitops/unrelated': 'true' } },
        data: { note: `made by hand, not by any app (${name})` },
      },
    }),
  );
  return names.length;
}

/**
 * Drifts every tenth object under the DRIFTER manager: a declared label changes value on every
 * kind, and a declared data key on ConfigMaps. Returns the drifted objects' "Kind/name".
 */
export async function drift(client, ns, objects) {
  const chosen = objects.filter((_, i) => i % 10 === 0);
  await client.pool(chosen, (o) => {
    const patch = { metadata: { labels: { tier: 'drifted' } } };
    if (o.kind === 'ConfigMap') patch.data = { LOG_LEVEL: 'debug' };
    return client.request('PATCH', `${objectPath(o, ns)}?fieldManager=${DRIFTER}`, { body: patch, contentType: 'application/merge-patch+json' });
  });
  return chosen.map((o) => `${o.kind}/${o.metadata.name}`);
}
