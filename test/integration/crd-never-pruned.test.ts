// "CRDs are never stamped, so never pruned" (tracking/tracking-id.ts asApplied), on the real API server: a sync applies a
// CRD and one of its custom resources, the CRD carries no tracking mark, and once both are gone from Git `prune` lists
// only the custom resource and `prune --confirm` deletes it and keeps the CRD (which would take every resource of its
// kind with it).
import { randomBytes } from 'node:crypto';
import { configMap, tempDir, writeApp, writeDesired } from './hardening/support.js';
import { createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin } from './support/index.js';

const TIMEOUT = 180_000;
const TRACKING = 'argocd.argoproj.io/tracking-id';

let ns: string;
let work: { dir: string; cleanup: () => void };
const group = `crd${randomBytes(3).toString('hex')}.prune.kgitops.test`;
const crdName = `widgets.${group}`;
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const widget = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } };

beforeAll(async () => {
  ns = await createTestNamespace('crd-prune');
  work = tempDir('crd-prune');
}, TIMEOUT);

afterAll(async () => {
  await kubectl(['delete', 'customresourcedefinition', crdName, '--ignore-not-found', '--wait=false']);
  work?.cleanup();
  if (ns) await deleteNamespace(ns);
}, TIMEOUT);

test(
  'a CRD synced with its custom resource carries no mark; removed from Git, prune lists only the resource and --confirm keeps the CRD',
  async () => {
    const app = writeApp(work.dir, { name: 'crdapp', destinationNamespace: ns, prune: false });
    const synced = await runPlugin(['sync', '-f', app, '--desired', writeDesired(work.dir, 'all', [configMap('keep'), crd, widget]), '-o', 'kv']);
    expect({ code: synced.code, stdout: synced.stdout }).toEqual({ code: 0, stdout: 'APPLIED=3\nPHASE=Succeeded\n' });
    const liveCrd = JSON.parse(await kubectlOk(['get', 'customresourcedefinition', crdName, '-o', 'json'])) as {
      metadata: { uid: string; annotations?: Record<string, string> };
    };
    expect(liveCrd.metadata.annotations?.[TRACKING]).toBeUndefined();
    const liveWidget = JSON.parse(await kubectlOk(['get', `widgets.${group}`, 'w1', '-n', ns, '-o', 'json'])) as {
      metadata: { annotations?: Record<string, string> };
    };
    expect(liveWidget.metadata.annotations?.[TRACKING]).toBe(`crdapp:${group}/Widget:${ns}/w1`);

    // Both gone from Git; the ConfigMap keeps the render from being empty (an empty render is never pruned from).
    const left = writeDesired(work.dir, 'left', [configMap('keep')]);
    const listed = await runPlugin(['prune', '-f', app, '--desired', left, '-o', 'kv']);
    expect(listed.code).toBe(0);
    expect(kvValues(listed.stdout).PRUNE).toEqual(['Widget/w1']);
    expect(listed.stdout).not.toContain('CustomResourceDefinition');

    const confirmed = await runPlugin(['prune', '-f', app, '--desired', left, '--confirm', '-o', 'kv']);
    expect(confirmed.code).toBe(0);
    expect(kvValues(confirmed.stdout).PRUNED).toEqual(['Widget/w1']);
    const after = JSON.parse(await kubectlOk(['get', 'customresourcedefinition', crdName, '-o', 'json'])) as {
      metadata: { uid: string; deletionTimestamp?: string };
    };
    expect(after.metadata).toMatchObject({ uid: liveCrd.metadata.uid });
    expect(after.metadata.deletionTimestamp).toBeUndefined();
  },
  TIMEOUT,
);
