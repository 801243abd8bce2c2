// The limit: the least work the API server must do for a scenario, issued by the minimal client in
// test/bench/kube.mjs (keep-alive, 48 in flight). Run as its own process; prints one JSON line
// {ms, requests, items} where ms runs from the first request to the last response (objects are
// preloaded as JSON, so parsing manifests is not counted).
//
// Usage: node limit.mjs KUBECONFIG list NS            one LIST per generated kind in NS
//        node limit.mjs KUBECONFIG status NS          the same, plus ReplicaSets and Pods (the live tree)
//        node limit.mjs KUBECONFIG ssa NS FILE dry|apply   one server-side apply per object (dry-run or real)
//        node limit.mjs KUBECONFIG prune-scan NS      discovery + one metadata-only LIST per listable kind
//                                                     (namespaced kinds in NS, cluster-scoped kinds once)
//        node limit.mjs KUBECONFIG diff-scan NS       what a diff that also reports the app's extras must read:
//                                                     discovery, one LIST per generated kind in NS, and one
//                                                     metadata-only LIST of every other listable kind (as prune-scan)
//        node limit.mjs KUBECONFIG status-scan NS     what a status (which reports the app's extras too) must read:
//                                                     diff-scan's reads, with ReplicaSets and Pods listed in full
//                                                     (the live tree) instead of as metadata
import { readFileSync } from 'node:fs';
import { collectionPath, makeClient, objectPath, PLURALS } from './kube.mjs';
import { MIX } from './generate.mjs';

const FIELD_MANAGER = 'argocd-controller';
const API_VERSIONS = { Deployment: 'apps/v1', Role: 'rbac.authorization.k8s.io/v1', ReplicaSet: 'apps/v1' };
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

/** Lists of the given kinds in a namespace, all at once. */
async function listKinds(client, ns, kinds) {
  const lists = await client.pool(kinds, (kind) => client.request('GET', collectionPath(API_VERSIONS[kind] ?? 'v1', PLURALS[kind], ns)));
  return lists.reduce((s, l) => s + (l.items ?? []).length, 0);
}

/** Every listable resource from aggregated discovery: [{path prefix, plural, namespaced}] at its preferred version. */
async function discover(client) {
  const [core, groups] = await Promise.all([client.request('GET', '/api', { accept: AGGREGATED }), client.request('GET', '/apis', { accept: AGGREGATED })]);
  const out = [];
  for (const list of [core, groups]) {
    for (const g of list.items ?? []) {
      const v = g.versions?.[0];
      if (!v) continue;
      const apiVersion = g.metadata?.name ? `${g.metadata.name}/${v.version}` : v.version;
      for (const r of v.resources ?? [])
        if ((r.verbs ?? []).includes('list')) out.push({ apiVersion, plural: r.resource, namespaced: r.scope === 'Namespaced' });
    }
  }
  return out;
}

/** One metadata-only LIST of each resource (namespaced ones in ns); kinds the server refuses to list count as empty. */
async function metadataLists(client, resources, ns) {
  const lists = await client.pool(resources, (r) =>
    client
      .request('GET', collectionPath(r.apiVersion, r.plural, r.namespaced ? ns : undefined), { accept: METADATA_LIST })
      .catch((e) => (e.status === 403 || e.status === 404 || e.status === 405 ? { items: [] } : Promise.reject(e))),
  );
  return lists.reduce((s, l) => s + (l.items?.length ?? 0), 0);
}

async function main() {
  const [kubeconfig, op, ns, file, mode] = process.argv.slice(2);
  const client = makeClient(kubeconfig);
  const generated = MIX.map(([k]) => k);
  const t0 = performance.now();
  let items = 0;
  if (op === 'list') items = await listKinds(client, ns, generated);
  else if (op === 'status') items = await listKinds(client, ns, [...generated, 'ReplicaSet', 'Pod']);
  else if (op === 'ssa') {
    const objects = JSON.parse(readFileSync(file, 'utf8'));
    const started = performance.now();
    const dry = mode === 'dry' ? '&dryRun=All' : '';
    await client.pool(objects, (o) =>
      client.request('PATCH', `${objectPath(o, ns)}?fieldManager=${FIELD_MANAGER}&force=true${dry}`, {
        body: { ...o, metadata: { ...o.metadata, namespace: ns } },
        contentType: 'application/apply-patch+yaml',
      }),
    );
    items = objects.length;
    // Reading the JSON file is not the server's work: start the clock after it.
    const ms = performance.now() - started;
    process.stdout.write(`${JSON.stringify({ ms, requests: client.requests(), items })}\n`);
    client.close();
    return;
  } else if (op === 'diff-scan' || op === 'status-scan') {
    const resources = await discover(client);
    const kinds = op === 'status-scan' ? [...generated, 'ReplicaSet', 'Pod'] : generated;
    const declared = new Set(kinds.map((k) => `${API_VERSIONS[k] ?? 'v1'}/${PLURALS[k]}`));
    const others = resources.filter((r) => !(r.namespaced && declared.has(`${r.apiVersion}/${r.plural}`)));
    const [full, rest] = await Promise.all([listKinds(client, ns, kinds), metadataLists(client, others, ns)]);
    items = full + rest;
  } else if (op === 'prune-scan') {
    items = await metadataLists(client, await discover(client), ns);
  } else throw new Error(`unknown limit operation ${op}`);
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ ms, requests: client.requests(), items })}\n`);
  client.close();
}

main().catch((e) => {
  process.stderr.write(`limit: ${e.message}\n`);
  process.exit(1);
});
