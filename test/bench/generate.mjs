// Generates a benchmark app: a realistic mix of N objects (Deployments, Services, ConfigMaps, Secrets,
// ServiceAccounts, Roles) written as multi-document YAML files, an Argo CD Application file for it, and
// the same objects as JSON for the limit client. Every object carries the Argo CD tracking-id that
// `kubectl gitops sync` would stamp, so kubectl and kubectl-gitops apply exactly the same content.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** The share of each kind in an app (sums to 1). */
export const MIX = [
  ['Deployment', 0.15],
  ['Service', 0.15],
  ['ConfigMap', 0.25],
  ['Secret', 0.15],
  ['ServiceAccount', 0.15],
  ['Role', 0.15],
];

const GROUP = { Deployment: 'apps', Role: 'rbac.authorization.k8s.io' };
const API_VERSION = { Deployment: 'apps/v1', Role: 'rbac.authorization.k8s.io/v1' };

/** Label that lets setup and cleanup select one generated set with a single selector. */
export const SET_LABEL = 'bench.kgitops/set';

/** Counts per kind for an app of n objects; the last kind takes the rounding remainder. */
export function kindCounts(n) {
  const counts = MIX.map(([kind, share]) => [kind, Math.floor(n * share)]);
  const used = counts.reduce((s, [, c]) => s + c, 0);
  counts[2][1] += n - used; // ConfigMaps absorb the remainder
  return counts;
}

function objectFor(kind, i, { app, namespace, podsLeft }) {
  const name = `${kind.toLowerCase()}-${String(i).padStart(5, '0')}`;
  const tracking = `${app}:${GROUP[kind] ?? ''}/${kind}:${namespace}/${name}`;
  const metadata = {
    name,
    labels: { [SET_LABEL]: app, 'app.kubernetes.io/name': `svc-${i % 50}`, tier: i % 2 ? 'web' : 'backend' },
    annotations: { 'argocd.argoproj.io/tracking-id': tracking },
  };
  const base = { apiVersion: API_VERSION[kind] ?? 'v1', kind, metadata };
  const sel = { 'app.kubernetes.io/name': `svc-${i % 50}`, 'bench.kgitops/deploy': name };
  switch (kind) {
    case 'Deployment':
      return {
        ...base,
        spec: {
          // A couple of Deployments run one pod (on kwok's fake nodes); the rest stay at zero to keep 2 cores sane.
          replicas: podsLeft.n-- > 0 ? 1 : 0,
          revisionHistoryLimit: 2,
          selector: { matchLabels: sel },
          template: {
            metadata: { labels: sel },
            spec: {
              serviceAccountName: 'default',
              containers: [
                {
                  name: 'app',
                  image: `registry.example/shop/${name}:1.${i % 7}.0`,
                  ports: [{ containerPort: 8080, name: 'http' }],
                  env: [
                    { name: 'LOG_LEVEL', value: 'info' },
                    { name: 'INSTANCE', value: name },
                  ],
                  resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } },
                  readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
                },
              ],
            },
          },
        },
      };
    case 'Service':
      // Headless: the local control plane's service range is a /24, far too small for thousands of ClusterIPs.
      return {
        ...base,
        spec: { clusterIP: 'None', selector: { 'app.kubernetes.io/name': `svc-${i % 50}` }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
      };
    case 'ConfigMap':
      return {
        ...base,
        data: {
          'app.properties': `feature.flag=${i % 3 === 0}\ncache.size=${128 + (i % 64)}\nendpoint=http://svc-${i % 50}:80\n`,
          LOG_LEVEL: 'info',
          REGION: ['eu-west-1', 'us-east-1', 'ap-south-1'][i % 3],
        },
      };
    case 'Secret':
      return {
        ...base,
        type: 'Opaque',
        data: {
          username: Buffer.from(`user-${i}`).toString('base64'),
          password: Buffer.from(`pw-${(i * 7919) % 100003}-not-a-real-secret`).toString('base64'),
        },
      };
    case 'ServiceAccount':
      return { ...base, automountServiceAccountToken: false };
    case 'Role':
      return {
        ...base,
        rules: [
          { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list'] },
        ],
      };
    default:
      throw new Error(`generating: unknown kind ${kind}`);
  }
}

/** The objects of an app of n objects (no namespace in metadata: the destination supplies it). */
export function appObjects(n, { app, namespace, pods = 2 }) {
  const podsLeft = { n: pods };
  const out = [];
  for (const [kind, count] of kindCounts(n)) for (let i = 0; i < count; i++) out.push(objectFor(kind, i, { app, namespace, podsLeft }));
  return out;
}

/**
 * The Application that points kubectl-gitops at the generated set (read with -f; --desired gives the files);
 * `syncOptions` beyond ServerSideApply=true for a variant (e.g. ApplyOutOfSyncOnly=true).
 */
export function applicationFor(app, namespace, syncOptions = []) {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: app, namespace: 'argocd' },
    spec: {
      project: 'default',
      source: { repoURL: 'https://git.example/bench.git', targetRevision: 'HEAD', path: `apps/${app}` },
      destination: { server: 'https://kubernetes.default.svc', namespace },
      syncPolicy: { syncOptions: ['ServerSideApply=true', ...syncOptions] },
    },
  };
}

/**
 * Writes `<dir>/manifests/*.yaml` (ten objects per file, like a repository of small files),
 * `<dir>/application.yaml`, `<dir>/application-oos.yaml` (the same with ApplyOutOfSyncOnly=true) and
 * `<dir>/objects.json`; returns the paths and the objects.
 */
export function writeApp(dir, objects, app, namespace) {
  rmSync(dir, { recursive: true, force: true });
  const manifests = join(dir, 'manifests');
  mkdirSync(manifests, { recursive: true });
  for (let f = 0; f * 10 < objects.length; f++) {
    // No anchors/aliases for objects shared in memory (selector and template labels): manifests in Git rarely have them.
    const docs = objects.slice(f * 10, f * 10 + 10).map((o) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false }));
    writeFileSync(join(manifests, `part-${String(f).padStart(4, '0')}.yaml`), docs.join('---\n'));
  }
  const appFile = join(dir, 'application.yaml');
  writeFileSync(appFile, stringify(applicationFor(app, namespace)));
  const oosAppFile = join(dir, 'application-oos.yaml');
  writeFileSync(oosAppFile, stringify(applicationFor(app, namespace, ['ApplyOutOfSyncOnly=true'])));
  const json = join(dir, 'objects.json');
  writeFileSync(json, JSON.stringify(objects));
  return { dir, manifests, appFile, oosAppFile, json, objects, app, namespace };
}
