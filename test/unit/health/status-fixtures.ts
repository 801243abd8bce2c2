// Shared inputs for the status report tests: the app, and the broken app built from the tree fixtures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ResourceInput, StatusInput } from '../../../src/health/report.js';
import { keyOf, type KubeObject } from '../../../src/model/object.js';
import type { Application } from '../../../src/app/types.js';

export function loadTree(name: string): KubeObject[] {
  const text = readFileSync(join(process.cwd(), 'test/fixtures/health/trees', name), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

export function app(automated?: Application['automated']): Application {
  return {
    name: 'shop',
    namespace: 'argocd',
    source: { repoURL: 'https://git.example.com/shop.git', path: 'deploy', targetRevision: 'main' },
    destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
    ...(automated ? { automated } : {}),
    sourcesCount: 0,
    sourceOptions: {},
    syncOptions: {
      createNamespace: false,
      pruneLast: false,
      serverSideApply: true,
      applyOutOfSyncOnly: false,
      respectIgnoreDifferences: false,
      failOnSharedResource: false,
      prunePropagationPolicy: 'foreground',
      prune: true,
    },
    ignoreDifferences: [],
    warnings: [],
    origin: 'cluster',
  };
}

export const cm = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', uid: `cm-${name}`, ...(annotations ? { annotations } : {}) },
  data: { a: 'b' },
});

const svc: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop', uid: 'svc-web' }, spec: { type: 'ClusterIP' } };

export function res(live: KubeObject, comparison: ResourceInput['comparison'], extra: Partial<ResourceInput> = {}): ResourceInput {
  return { key: keyOf(live), comparison, live, ...extra };
}

/** The broken app: an unschedulable Deployment, a drifted Service, a prune candidate, a missing ConfigMap. */
export function brokenInput(): StatusInput {
  const [deploy, ...children] = loadTree('unschedulable.yaml');
  return {
    app: app({ prune: true, selfHeal: true, allowEmpty: false }),
    revision: '4f2a9c1e0b7d6a5c3e2f1a0b9c8d7e6f5a4b3c2d',
    manifests: 'https://git.example.com/shop.git@4f2a9c1:deploy',
    resources: [
      res(deploy!, 'in-sync'),
      res(cm('web-config'), 'in-sync'),
      res(svc, 'drifted', { driftedFields: 2 }),
      res(cm('old-config'), 'extra'),
      // A missing ConfigMap: OutOfSync, Missing itself, but not counted in the app's health (no built-in check).
      { key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'metrics' }, comparison: 'missing' },
    ],
    children,
  };
}
