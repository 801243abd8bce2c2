// Helpers the hardening suites share: temporary app folders, a baseline app synced into a test namespace, and snapshots of every object's uid and resourceVersion.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { KubeObject } from '../../../src/model/object.js';
import { kubeconfigPath, kubectlOk, runPlugin, type RunResult } from '../support/index.js';
import { applicationYaml, inCluster } from '../../support/application.js';

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `kgitops-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface AppSpec {
  name: string;
  destinationNamespace: string;
  prune?: boolean;
  selfHeal?: boolean;
  syncOptions?: string[];
  ignoreDifferences?: unknown[];
}

/** Writes an Application file (argocd namespace, automated policy as asked) and returns its path. */
export function writeApp(dir: string, spec: AppSpec): string {
  const path = join(dir, `${spec.name}-app.yaml`);
  const app = applicationYaml({
    name: spec.name,
    spec: {
      destination: inCluster(spec.destinationNamespace),
      source: { repoURL: 'file:///unused', path: '.' },
      syncPolicy: {
        automated: { prune: spec.prune ?? true, selfHeal: spec.selfHeal ?? false },
        ...(spec.syncOptions ? { syncOptions: spec.syncOptions } : {}),
      },
      ...(spec.ignoreDifferences ? { ignoreDifferences: spec.ignoreDifferences } : {}),
    },
  });
  writeFileSync(path, app);
  return path;
}

/** Writes objects as one multi-document YAML file per object into a fresh folder; returns the folder. */
export function writeDesired(dir: string, name: string, objects: readonly object[]): string {
  const out = join(dir, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  objects.forEach((o, i) => writeFileSync(join(out, `${String(i).padStart(3, '0')}.yaml`), stringify(o)));
  return out;
}

export const configMap = (name: string, data: Record<string, string> = { k: 'v' }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

/**
 * The baseline an app owns in namespace `ns`: three ConfigMaps, a Secret, a Service and a
 * cluster-scoped ClusterRole named after the namespace (so prune has something to lose at both scopes).
 */
export function baselineObjects(ns: string): KubeObject[] {
  return [
    configMap('alpha'),
    configMap('beta', { b: '2' }),
    configMap('gamma', { g: '3' }),
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, type: 'Opaque', stringData: { user: 'app' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `hardening-${ns}` },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    },
  ];
}

let namespacedTypes: Promise<string[]> | undefined;

/** Every namespaced type that can be listed, except events (which the cluster writes on its own) and other suites' test CRDs. */
function listableNamespacedTypes(): Promise<string[]> {
  namespacedTypes ??= kubectlOk(['api-resources', '--namespaced=true', '--verbs=list', '-o', 'name']).then((out) =>
    out
      .split('\n')
      .map((s) => s.trim())
      // Other suites' throw-away CRDs (group *.kgitops.test) come and go while this suite runs: a type that vanished
      // between discovery and the list would fail the whole list. None of them is ever in this suite's namespace.
      .filter((s) => s && s !== 'events' && s !== 'events.events.k8s.io' && !s.endsWith('.kgitops.test')),
  );
  return namespacedTypes;
}

/** `Kind/namespace/name` -> `uid resourceVersion` for every object in `ns`, the namespace itself, and the named cluster-scoped objects. */
export async function snapshot(ns: string, clusterScoped: readonly [string, string][] = []): Promise<Map<string, string>> {
  const types = await listableNamespacedTypes();
  const out = new Map<string, string>();
  const add = (items: KubeObject[]) => {
    for (const o of items) out.set(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, `${o.metadata.uid} ${o.metadata.resourceVersion}`);
  };
  const list = JSON.parse(await kubectlOk(['get', types.join(','), '-n', ns, '-o', 'json'])) as { items: KubeObject[] };
  add(list.items);
  add([JSON.parse(await kubectlOk(['get', 'namespace', ns, '-o', 'json'])) as KubeObject]);
  for (const [kind, name] of clusterScoped) {
    const res = JSON.parse((await kubectlOk(['get', kind, name, '-o', 'json', '--ignore-not-found'])) || '{"kind":"Absent","metadata":{}}') as KubeObject;
    out.set(`${kind}//${name}`, res.kind === 'Absent' ? 'absent' : `${res.metadata.uid} ${res.metadata.resourceVersion}`);
  }
  return out;
}

/** The entries that differ between two snapshots, as readable lines (empty when equal). */
export function snapshotChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const [k, v] of before) if (after.get(k) !== v) lines.push(`${k}: ${v} -> ${after.get(k) ?? 'gone'}`);
  for (const [k, v] of after) if (!before.has(k)) lines.push(`${k}: new ${v}`);
  return lines;
}

/** Runs the plugin and throws with its output when the exit code is not the expected one. */
export async function pluginExpect(args: string[], code: number, opts: Parameters<typeof runPlugin>[1] = {}): Promise<RunResult> {
  const res = await runPlugin(args, opts);
  if (res.code !== code)
    throw new Error(`kubectl-gitops ${args.join(' ')} exited ${res.code}, expected ${code}\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
  return res;
}

/** A kubeconfig for a ServiceAccount: the cluster's own server and CA, a token from `kubectl create token`. */
export async function serviceAccountKubeconfig(sa: string, ns: string, dir: string): Promise<string> {
  const admin = parse(readFileSync(kubeconfigPath(), 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
  const cluster = admin.clusters[0]!.cluster;
  const token = (await kubectlOk(['create', 'token', sa, '-n', ns, '--duration=1h'])).trim();
  const file = join(dir, `${sa}.kubeconfig`);
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'local', cluster: { server: cluster.server, 'certificate-authority-data': cluster['certificate-authority-data'] } }],
      users: [{ name: sa, user: { token } }],
      contexts: [{ name: sa, context: { cluster: 'local', user: sa } }],
      'current-context': sa,
    }),
  );
  return file;
}
