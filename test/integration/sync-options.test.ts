// Sync options on the real API server (until now proven against the fake gateway only): CreateNamespace,
// ApplyOutOfSyncOnly, RespectIgnoreDifferences, FailOnSharedResource, PrunePropagationPolicy, app-level Prune=false,
// a CRD and its custom resources in one sync, IgnoreExtraneous, and "Pending deletion" held by a finalizer.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { tempDir } from '../support/temp-dir.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, runPlugin, waitFor } from './support/index.js';
import { parse } from 'yaml';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 180_000;
const TID = 'argocd.argoproj.io/tracking-id';
let ns: string;
let root: string;

function app(name: string, syncPolicy: string, extra = '', namespace = ns): string {
  const file = join(root, `${name}.yaml`);
  // syncPolicy and extra (more of the spec) are YAML as the tests write them.
  const more = (parse(extra) ?? {}) as Record<string, unknown>;
  writeFileSync(file, applicationYaml({ name, spec: { destination: inCluster(namespace), ...more, syncPolicy: parse(syncPolicy) as unknown } }));
  return file;
}

function desired(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}

const cm = (name: string, data: Record<string, string>, annotations: Record<string, string> = {}) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, annotations: ${JSON.stringify(annotations)}}\ndata: ${JSON.stringify(data)}\n`;

async function meta(kind: string, name: string, namespace = ns): Promise<{ uid: string; resourceVersion: string; deletionTimestamp?: string } | undefined> {
  const res = await kubectl(['get', kind, name, '-n', namespace, '-o', 'jsonpath={.metadata}']);
  return res.code === 0 ? (JSON.parse(res.stdout) as { uid: string; resourceVersion: string }) : undefined;
}

function kv(stdout: string): string[] {
  return stdout.trimEnd().split('\n');
}

beforeAll(async () => {
  ns = await createTestNamespace('sync-options');
  root = tempDir('sync-options');
}, TIMEOUT);
afterAll(async () => {
  await deleteNamespace(ns);
});

test(
  'CreateNamespace=true creates the destination namespace (unmarked, so never a prune candidate)',
  async () => {
    const target = `${ns}-created`;
    try {
      const file = app('createns', '{syncOptions: [CreateNamespace=true]}', '', target);
      const res = await runPlugin(['sync', '-f', file, '--desired', desired('createns-d', { 'a.yaml': cm('a', { k: 'v' }) }), '-o', 'kv']);
      expect(res.code).toBe(0);
      const created = JSON.parse(await kubectlOk(['get', 'namespace', target, '-o', 'json'])) as { metadata: { annotations?: Record<string, string> } };
      expect(created.metadata.annotations?.[TID]).toBeUndefined();
      expect(await meta('configmap', 'a', target)).toBeDefined();
    } finally {
      await kubectl(['delete', 'namespace', target, '--wait=false', '--ignore-not-found']);
    }
  },
  TIMEOUT,
);

test(
  'managedNamespaceMetadata with CreateNamespace=true: the namespace gets its labels and annotations, and a change to them lands, labels of others kept',
  async () => {
    const target = `${ns}-managed`;
    type Meta = { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } };
    try {
      const policy = (team: string) => `{syncOptions: [CreateNamespace=true], managedNamespaceMetadata: {labels: {team: ${team}}, annotations: {owner: me}}}`;
      const dir = desired('managedns-d', { 'a.yaml': cm('a', { k: 'v' }) });
      const res = await runPlugin(['sync', '-f', app('managedns', policy('shop'), '', target), '--desired', dir, '-o', 'kv']);
      expect([res.code, res.stderr]).toEqual([0, '']);
      const created = JSON.parse(await kubectlOk(['get', 'namespace', target, '-o', 'json'])) as Meta;
      expect(created.metadata.labels?.team).toBe('shop');
      expect(created.metadata.annotations).toMatchObject({ owner: 'me', 'argocd.argoproj.io/sync-options': 'ServerSideApply=true' });
      expect(created.metadata.annotations?.[TID]).toBeUndefined();
      // The namespace exists now: applied again at the next sync; a label another manager set stays.
      await kubectlOk(['label', 'namespace', target, 'other=kept']);
      const again = await runPlugin(['sync', '-f', app('managedns', policy('web'), '', target), '--desired', dir, '-o', 'kv']);
      expect(again.code).toBe(0);
      const updated = JSON.parse(await kubectlOk(['get', 'namespace', target, '-o', 'json'])) as Meta;
      expect(updated.metadata.labels).toMatchObject({ team: 'web', other: 'kept' });
    } finally {
      await kubectl(['delete', 'namespace', target, '--wait=false', '--ignore-not-found']);
    }
  },
  TIMEOUT,
);

test(
  "managedNamespaceMetadata: the destination namespace carrying the app's mark (added by hand) is compared with it and never pruned, as Argo CD's isManagedNamespace",
  async () => {
    const target = `${ns}-marked`;
    try {
      const file = app('markedns', '{syncOptions: [CreateNamespace=true], managedNamespaceMetadata: {labels: {team: shop}}}', '', target);
      const dir = desired('markedns-d', { 'a.yaml': cm('a', { k: 'v' }) });
      expect((await runPlugin(['sync', '-f', file, '--desired', dir, '-o', 'kv'])).code).toBe(0);
      await kubectlOk(['annotate', 'namespace', target, `${TID}=markedns:/Namespace:${target}/${target}`]);
      await kubectlOk(['label', 'namespace', target, '--overwrite', 'team=by-hand']);
      // Compared: the label changed by hand is drift of the namespace, not an extra to prune.
      const diff = await runPlugin(['diff', '-f', file, '--desired', dir, '-o', 'kv']);
      expect(diff.code).toBe(1);
      const lines = kv(diff.stdout);
      expect(lines).toContain('SYNC=OutOfSync');
      expect(lines.filter((l) => l.startsWith(`DRIFT=Namespace/${target} `))).toEqual([`DRIFT=Namespace/${target} metadata.labels.team`]);
      expect(lines.filter((l) => l.startsWith('EXTRA='))).toEqual([]);
      // sync --prune puts the label back and deletes nothing.
      const res = await runPlugin(['sync', '-f', file, '--desired', dir, '--prune', '-o', 'kv']);
      expect(res.code).toBe(0);
      expect(kv(res.stdout).filter((l) => l.startsWith('PRUNED='))).toEqual([]);
      const live = JSON.parse(await kubectlOk(['get', 'namespace', target, '-o', 'json'])) as {
        metadata: { labels?: Record<string, string>; deletionTimestamp?: string };
      };
      expect([live.metadata.labels?.team, live.metadata.deletionTimestamp]).toEqual(['shop', undefined]);
      expect(await meta('configmap', 'a', target)).toBeDefined();
    } finally {
      await kubectl(['delete', 'namespace', target, '--wait=false', '--ignore-not-found']);
    }
  },
  TIMEOUT,
);

test(
  'ApplyOutOfSyncOnly=true applies only what differs: the unchanged object keeps its resourceVersion',
  async () => {
    const file = app('outofsync', '{syncOptions: [ApplyOutOfSyncOnly=true]}');
    const first = desired('oos-1', { 'a.yaml': cm('oos-a', { k: '1' }), 'b.yaml': cm('oos-b', { k: '1' }) });
    expect((await runPlugin(['sync', '-f', file, '--desired', first, '-o', 'kv'])).stdout).toBe('APPLIED=2\nPHASE=Succeeded\n');
    const before = { a: await meta('configmap', 'oos-a'), b: await meta('configmap', 'oos-b') };
    const second = desired('oos-2', { 'a.yaml': cm('oos-a', { k: '1' }), 'b.yaml': cm('oos-b', { k: '2' }) });
    const res = await runPlugin(['sync', '-f', file, '--desired', second, '-o', 'json']);
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as { steps: { name: string; outcome: string }[] };
    expect(Object.fromEntries(report.steps.map((s) => [s.name, s.outcome]))).toEqual({ 'oos-a': 'skipped', 'oos-b': 'applied' });
    expect((await meta('configmap', 'oos-a'))?.resourceVersion).toBe(before.a?.resourceVersion);
    expect((await meta('configmap', 'oos-b'))?.resourceVersion).not.toBe(before.b?.resourceVersion);
  },
  TIMEOUT,
);

test(
  'RespectIgnoreDifferences=true keeps the live value of an ignored field that Git also declares',
  async () => {
    const rules = '  ignoreDifferences:\n  - {kind: ConfigMap, jsonPointers: [/data/tuned]}\n';
    const file = app('respect', '{syncOptions: [RespectIgnoreDifferences=true]}', rules);
    const d = desired('respect-d', { 'a.yaml': cm('respect-a', { tuned: 'from-git', other: '1' }) });
    expect((await runPlugin(['sync', '-f', file, '--desired', d])).code).toBe(0);
    await kubectlOk(['patch', 'configmap', 'respect-a', '-n', ns, '--type=merge', '-p', '{"data":{"tuned":"by-hand"}}']);
    expect((await runPlugin(['sync', '-f', file, '--desired', d])).code).toBe(0);
    expect(await kubectlOk(['get', 'configmap', 'respect-a', '-n', ns, '-o', 'jsonpath={.data.tuned}'])).toBe('by-hand');
    // Without the option, the sync puts Git's value back.
    const plain = app('respect', '{syncOptions: []}', rules);
    expect((await runPlugin(['sync', '-f', plain, '--desired', d, '--force-conflicts'])).code).toBe(0);
    expect(await kubectlOk(['get', 'configmap', 'respect-a', '-n', ns, '-o', 'jsonpath={.data.tuned}'])).toBe('from-git');
  },
  TIMEOUT,
);

test(
  'FailOnSharedResource=true refuses to take over an object another app tracks; nothing changes',
  async () => {
    await applyYaml(cm('shared', { owner: 'billing' }, { [TID]: `billing:/ConfigMap:${ns}/shared` }), { namespace: ns });
    const before = await meta('configmap', 'shared');
    const file = app('sharer', '{syncOptions: [FailOnSharedResource=true]}');
    const res = await runPlugin(['sync', '-f', file, '--desired', desired('shared-d', { 'a.yaml': cm('shared', { owner: 'sharer' }) }), '-o', 'kv']);
    expect(res.code).toBe(4);
    expect(res.stdout).toBe(
      'REFUSED=Shared resource found: ConfigMap/shared is part of applications argocd/sharer and billing (FailOnSharedResource=true)\nPHASE=Failed\n',
    );
    expect(await meta('configmap', 'shared')).toEqual(before);
  },
  TIMEOUT,
);

test(
  'app-level Prune=false: candidates are listed as skipped, never deleted, even with --prune',
  async () => {
    const file = app('noprune', '{syncOptions: [Prune=false]}');
    expect((await runPlugin(['sync', '-f', file, '--desired', desired('noprune-1', { 'a.yaml': cm('np-a', {}), 'b.yaml': cm('np-b', {}) })])).code).toBe(0);
    const res = await runPlugin(['sync', '-f', file, '--desired', desired('noprune-2', { 'a.yaml': cm('np-a', {}) }), '--prune', '-o', 'kv']);
    expect(res.code).toBe(0);
    expect(kv(res.stdout)).toEqual(['APPLIED=1', 'PRUNE_SKIPPED=ConfigMap/np-b the Application sets syncOptions Prune=false', 'PHASE=Succeeded']);
    expect(await meta('configmap', 'np-b')).toBeDefined();
  },
  TIMEOUT,
);

test(
  "PrunePropagationPolicy=orphan: the pruned Deployment's ReplicaSet stays (foreground would delete it)",
  async () => {
    const deploy = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: orphaner}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: orphaner}}\n  template:\n    metadata: {labels: {app: orphaner}}\n    spec: {containers: [{name: c, image: registry.local/x:1}]}\n`;
    const file = app('orphaning', '{syncOptions: [PrunePropagationPolicy=orphan]}');
    expect((await runPlugin(['sync', '-f', file, '--desired', desired('orph-1', { 'd.yaml': deploy, 'c.yaml': cm('orph-c', {}) })])).code).toBe(0);
    const rs = await waitFor(
      async () => {
        const list = JSON.parse(await kubectlOk(['get', 'replicasets', '-n', ns, '-l', 'app=orphaner', '-o', 'json'])) as {
          items: { metadata: { name: string; uid: string } }[];
        };
        return list.items[0];
      },
      { what: 'the ReplicaSet of deployment/orphaner' },
    );
    const res = await runPlugin(['sync', '-f', file, '--desired', desired('orph-2', { 'c.yaml': cm('orph-c', {}) }), '--prune', '-o', 'kv']);
    expect(kv(res.stdout)).toEqual(['APPLIED=1', 'PRUNED=Deployment/orphaner', 'PHASE=Succeeded']);
    await waitFor(async () => (await meta('deployment', 'orphaner')) === undefined, { what: 'deployment/orphaner gone' });
    expect((await meta('replicaset', rs.metadata.name))?.uid).toBe(rs.metadata.uid);
  },
  TIMEOUT,
);

test(
  'a CRD and its custom resources in one sync: the CRD first, the resources once it is served',
  async () => {
    const group = `opts${randomBytes(3).toString('hex')}.kgitops.test`;
    const crd = `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gadgets.${group}}\nspec:\n  group: ${group}\n  scope: Namespaced\n  names: {plural: gadgets, singular: gadget, kind: Gadget}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n`;
    const cr = `apiVersion: ${group}/v1\nkind: Gadget\nmetadata: {name: g1}\nspec: {size: 3}\n`;
    try {
      const file = app('crdapp', '{syncOptions: []}');
      const d = desired('crd-d', { 'crd.yaml': crd, 'cr.yaml': cr });
      const res = await runPlugin(['sync', '-f', file, '--desired', d, '-o', 'kv']);
      expect({ code: res.code, out: res.stdout }).toEqual({ code: 0, out: 'APPLIED=2\nPHASE=Succeeded\n' });
      expect(JSON.parse(await kubectlOk(['get', `gadgets.${group}`, 'g1', '-n', ns, '-o', 'json'])).spec).toEqual({ size: 3 });
      expect((await runPlugin(['diff', '-f', file, '--desired', d, '-o', 'kv'])).stdout).toBe('SYNC=Synced\n');
    } finally {
      await kubectl(['delete', 'customresourcedefinition', `gadgets.${group}`, '--ignore-not-found', '--wait=false']);
    }
  },
  TIMEOUT,
);

test(
  'SkipDryRunOnMissingResource=true: a custom resource whose CRD an earlier wave brings (here: made while wave 0 waits) is applied in its wave; without the option the sync is bad input',
  async () => {
    const group = `skip${randomBytes(3).toString('hex')}.kgitops.test`;
    const crd = `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: sprockets.${group}}\nspec:\n  group: ${group}\n  scope: Namespaced\n  names: {plural: sprockets, singular: sprocket, kind: Sprocket}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n`;
    const cr = (opt: string) =>
      `apiVersion: ${group}/v1\nkind: Sprocket\nmetadata: {name: s1, annotations: {argocd.argoproj.io/sync-wave: "1"${opt ? `, argocd.argoproj.io/sync-options: "${opt}"` : ''}}}\nspec: {teeth: 12}\n`;
    // The "operator" of wave 0: no node takes its pod until the test lets it (so the sync is still waiting on wave 0).
    const operator = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: operator}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: operator}}\n  template:\n    metadata: {labels: {app: operator}}\n    spec:\n      nodeSelector: {kgitops.test/held: "true"}\n      containers: [{name: op, image: registry.local/operator:1}]\n`;
    try {
      const file = app('skipdry', '{syncOptions: []}');
      const without = await runPlugin(['sync', '-f', file, '--desired', desired('skipdry-no', { 'op.yaml': operator, 'cr.yaml': cr('') }), '-o', 'kv']);
      expect(without.code).toBe(2);
      expect(without.stderr).toMatch(/cr\.yaml.*does not serve Sprocket in skip[0-9a-f]+\.kgitops\.test\/v1.*SkipDryRunOnMissingResource=true/);
      expect(await meta('deployment', 'operator')).toBeUndefined();

      const d = desired('skipdry', { 'op.yaml': operator, 'cr.yaml': cr('SkipDryRunOnMissingResource=true') });
      const pending = runPlugin(['sync', '-f', file, '--desired', d, '-o', 'kv', '--timeout', '2m'], { timeoutMs: 150_000 });
      await waitFor(() => meta('deployment', 'operator'), { timeoutMs: 60_000, what: 'the wave-0 Deployment' });
      await applyYaml(crd);
      await kubectlOk(['wait', '--for=condition=Established', `customresourcedefinition/sprockets.${group}`, '--timeout=60s']);
      await kubectlOk(['patch', 'deployment', 'operator', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/spec/template/spec/nodeSelector"}]']);
      const res = await pending;
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      expect(kv(res.stdout)).toEqual(['APPLIED=2', 'WAVE=Sync 0 done', 'WAVE=Sync 1 done', 'PHASE=Succeeded']);
      const made = JSON.parse(await kubectlOk(['get', `sprockets.${group}`, 's1', '-n', ns, '-o', 'json'])) as {
        spec: unknown;
        metadata: { annotations: Record<string, string> };
      };
      expect(made.spec).toEqual({ teeth: 12 });
      expect(made.metadata.annotations[TID]).toBe(`skipdry:${group}/Sprocket:${ns}/s1`);
    } finally {
      await kubectl(['delete', 'customresourcedefinition', `sprockets.${group}`, '--ignore-not-found', '--wait=false']);
      await kubectl(['delete', 'deployment', 'operator', '-n', ns, '--ignore-not-found', '--wait=false']);
    }
  },
  TIMEOUT,
);

test(
  'IgnoreExtraneous: an extra object annotated so is listed but makes neither status nor diff OutOfSync',
  async () => {
    const file = app('extraneous', '{syncOptions: []}');
    const d = desired('extr-d', { 'a.yaml': cm('extr-a', {}) });
    expect((await runPlugin(['sync', '-f', file, '--desired', d])).code).toBe(0);
    await applyYaml(cm('extr-extra', {}, { [TID]: `extraneous:/ConfigMap:${ns}/extr-extra`, 'argocd.argoproj.io/compare-options': 'IgnoreExtraneous' }), {
      namespace: ns,
    });
    const status = await runPlugin(['status', '-f', file, '--desired', d, '-o', 'json']);
    const report = JSON.parse(status.stdout) as { sync: { status: string }; resources: { name: string; status: string; countsForSync: boolean }[] };
    expect(report.sync.status).toBe('Synced');
    expect(report.resources.find((r) => r.name === 'extr-extra')).toMatchObject({ status: 'OutOfSync', countsForSync: false });
    // diff agrees: the extra is listed, the app is in sync (exit 0).
    const diff = await runPlugin(['diff', '-f', file, '--desired', d, '-o', 'kv']);
    expect({ code: diff.code, lines: kv(diff.stdout) }).toEqual({ code: 0, lines: ['SYNC=Synced', 'EXTRA=ConfigMap/extr-extra'] });
  },
  TIMEOUT,
);

test(
  '"Pending deletion": an object held by a finalizer is Progressing in status and is not deleted again by prune',
  async () => {
    const file = app('pending', '{syncOptions: []}');
    const d = desired('pend-d', { 'a.yaml': cm('pend-a', {}) });
    expect((await runPlugin(['sync', '-f', file, '--desired', d])).code).toBe(0);
    await applyYaml(
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\n  annotations: {${TID}: "pending:apps/Deployment:${ns}/held"}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: held}}\n  template:\n    metadata: {labels: {app: held}}\n    spec: {containers: [{name: c, image: registry.local/x:1}]}\n`,
      { namespace: ns },
    );
    try {
      await kubectlOk(['delete', 'deployment', 'held', '-n', ns, '--wait=false']);
      const status = JSON.parse((await runPlugin(['status', '-f', file, '--desired', d, '-o', 'json'])).stdout) as {
        resources: { name: string; health?: { status: string; message: string } }[];
      };
      expect(status.resources.find((r) => r.name === 'held')?.health).toEqual({ status: 'Progressing', message: 'Pending deletion' });
      const prune = await runPlugin(['prune', '-f', file, '--desired', d, '--confirm', '-o', 'kv']);
      expect(kv(prune.stdout)).toEqual(['PRUNE_SKIPPED=Deployment/held already being deleted']);
    } finally {
      await kubectl(['patch', 'deployment', 'held', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    }
  },
  TIMEOUT,
);

test(
  'a field removed from Git is drift (removed) in diff and status, and a sync with ApplyOutOfSyncOnly removes it',
  async () => {
    const deploy = (env: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: trimmed, labels: {app: trimmed${env ? ', tier: web' : ''}}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: trimmed}}\n  template:\n    metadata: {labels: {app: trimmed}}\n    spec: {containers: [{name: c, image: registry.local/x:1${env}}]}\n`;
    const file = app('trimmed', '{syncOptions: [ApplyOutOfSyncOnly=true]}');
    expect((await runPlugin(['sync', '-f', file, '--desired', desired('trim-1', { 'd.yaml': deploy(', env: [{name: MODE, value: fast}]') })])).code).toBe(0);
    const without = desired('trim-2', { 'd.yaml': deploy('') });
    const diff = await runPlugin(['diff', '-f', file, '--desired', without, '-o', 'kv']);
    expect(diff.code).toBe(1);
    expect(kv(diff.stdout)).toEqual([
      'SYNC=OutOfSync',
      'DRIFT=Deployment/trimmed metadata.labels.tier',
      'DRIFT=Deployment/trimmed spec.template.spec.containers[name=c].env',
    ]);
    const json = JSON.parse((await runPlugin(['diff', '-f', file, '--desired', without, '-o', 'json'])).stdout) as {
      objects: { fields: { path: string; verdict: string; desired?: unknown }[] }[];
    };
    expect(json.objects[0]?.fields.map((f) => [f.path, f.verdict, f.desired])).toEqual([
      ['metadata.labels.tier', 'removed', undefined],
      ['spec.template.spec.containers[name=c].env', 'removed', undefined],
    ]);
    expect(kv((await runPlugin(['status', '-f', file, '--desired', without, '-o', 'kv'])).stdout)[0]).toBe('SYNC=OutOfSync');
    const sync = await runPlugin(['sync', '-f', file, '--desired', without, '-o', 'kv']);
    expect(sync.stdout).toBe('APPLIED=1\nPHASE=Succeeded\n');
    const live = JSON.parse(await kubectlOk(['get', 'deployment', 'trimmed', '-n', ns, '-o', 'json'])) as {
      metadata: { labels: Record<string, string> };
      spec: { template: { spec: { containers: { env?: unknown }[] } } };
    };
    expect(live.metadata.labels).toEqual({ app: 'trimmed' });
    expect(live.spec.template.spec.containers[0]?.env).toBeUndefined();
    expect((await runPlugin(['diff', '-f', file, '--desired', without, '-o', 'kv'])).stdout).toBe('SYNC=Synced\n');
  },
  TIMEOUT,
);

test(
  'Replace=true,Force=true on a Namespace updates it in place: its uid and everything in it stay (gitops-engine never replaces a Namespace or CRD)',
  async () => {
    const target = `${ns}-kept`;
    try {
      await kubectlOk(['create', 'namespace', target]);
      await kubectlOk(['create', 'configmap', 'precious', '-n', target, '--from-literal=k=v']);
      const nsMeta = async () =>
        JSON.parse(await kubectlOk(['get', 'namespace', target, '-o', 'jsonpath={.metadata}'])) as { uid: string; deletionTimestamp?: string };
      const before = await nsMeta();
      const file = app('keptns', '{}', '', target);
      const nsYaml = `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${target}, labels: {team: shop}, annotations: {argocd.argoproj.io/sync-options: "Replace=true,Force=true"}}\n`;
      const res = await runPlugin(['sync', '-f', file, '--desired', desired('keptns-d', { 'ns.yaml': nsYaml }), '-o', 'json']);
      expect(res.code).toBe(0);
      const step = (JSON.parse(res.stdout) as { steps: { name: string; message?: string }[] }).steps.find((x) => x.name === target);
      expect(step?.message).toBe(`Replace=true: Namespace/${target} updated (a Namespace is updated in place, never replaced or re-created)`);
      const after = await nsMeta();
      expect(after.uid).toBe(before.uid);
      expect(after.deletionTimestamp).toBeUndefined();
      expect(await kubectlOk(['get', 'configmap', 'precious', '-n', target, '-o', 'jsonpath={.data.k}'])).toBe('v');
      expect(await kubectlOk(['get', 'namespace', target, '-o', 'jsonpath={.metadata.labels.team}'])).toBe('shop');
    } finally {
      await deleteNamespace(target);
    }
  },
  TIMEOUT,
);

describe('per-resource sync options on the real API server: Replace, Force, Validate', () => {
  type Step = { name: string; outcome: string; message?: string };
  const steps = (stdout: string): Record<string, Step> => Object.fromEntries((JSON.parse(stdout) as { steps: Step[] }).steps.map((s) => [s.name, s]));
  const labels = async (name: string): Promise<Record<string, string>> =>
    JSON.parse((await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'jsonpath={.metadata.labels}'])) || '{}') as Record<string, string>;

  test(
    'Replace=true writes the whole object: a label added by hand is gone (server-side apply would keep it), recorded as an Update',
    async () => {
      const file = app('replace', '{}');
      const d = desired('replace-d', { 'a.yaml': cm('replace-a', { k: '1' }, { 'argocd.argoproj.io/sync-options': 'Replace=true' }) });
      const first = await runPlugin(['sync', '-f', file, '--desired', d, '-o', 'json']);
      expect([first.code, steps(first.stdout)['replace-a']?.message]).toEqual([0, 'Replace=true: created']);
      await kubectlOk(['label', 'configmap', 'replace-a', '-n', ns, 'by=hand']);
      const second = await runPlugin(['sync', '-f', file, '--desired', d, '-o', 'json']);
      expect([second.code, steps(second.stdout)['replace-a']?.message]).toEqual([0, 'Replace=true: replaced']);
      expect(await labels('replace-a')).toEqual({});
      const mf = JSON.parse(
        await kubectlOk(['get', 'configmap', 'replace-a', '-n', ns, '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields}']),
      ) as { manager: string; operation: string }[];
      expect(mf.map((m) => `${m.manager} ${m.operation}`)).toEqual(['argocd-controller Update']);
      // Replace=true taken out of Git: the live object still carries the annotation, which gitops-engine does not read
      // (applyObject reads the desired object's), so this sync applies and the same hand-made label survives it.
      const plain = desired('replace-plain', { 'a.yaml': cm('replace-a', { k: '1' }) });
      await kubectlOk(['label', 'configmap', 'replace-a', '-n', ns, 'by=hand']);
      expect((await runPlugin(['sync', '-f', file, '--desired', plain])).code).toBe(0);
      expect(await labels('replace-a')).toEqual({ by: 'hand' });
    },
    TIMEOUT,
  );

  test(
    'Replace=true with Force=true deletes and creates the object again (a new uid)',
    async () => {
      const file = app('recreate', '{}');
      const d = desired('recreate-d', { 'a.yaml': cm('recreate-a', { k: '1' }, { 'argocd.argoproj.io/sync-options': 'Replace=true,Force=true' }) });
      expect((await runPlugin(['sync', '-f', file, '--desired', d])).code).toBe(0);
      const before = await meta('configmap', 'recreate-a');
      const res = await runPlugin(['sync', '-f', file, '--desired', d, '-o', 'json']);
      expect([res.code, steps(res.stdout)['recreate-a']?.message]).toEqual([0, 'Replace=true, Force=true: deleted and created again']);
      expect((await meta('configmap', 'recreate-a'))?.uid).not.toBe(before?.uid);
    },
    TIMEOUT,
  );

  test(
    'Force=true: an immutable ConfigMap whose data changed is deleted and created again; without Force the sync fails (exit 3) and nothing changes',
    async () => {
      const file = app('force', '{}');
      const imm = (v: string, opts?: string) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: force-a${opts ? `, annotations: {argocd.argoproj.io/sync-options: "${opts}"}` : ''}}\nimmutable: true\ndata: {k: "${v}"}\n`;
      expect((await runPlugin(['sync', '-f', file, '--desired', desired('force-1', { 'a.yaml': imm('1') })])).code).toBe(0);
      const before = await meta('configmap', 'force-a');
      const refused = await runPlugin(['sync', '-f', file, '--desired', desired('force-2', { 'a.yaml': imm('2') }), '-o', 'json']);
      expect(refused.code).toBe(3);
      expect(await meta('configmap', 'force-a')).toEqual(before);
      const forced = await runPlugin(['sync', '-f', file, '--desired', desired('force-3', { 'a.yaml': imm('2', 'Force=true') }), '-o', 'json']);
      expect(forced.code).toBe(0);
      expect(steps(forced.stdout)['force-a']?.message).toMatch(/^Force=true: deleted and created again \(the apply was refused: .*immutable/);
      expect((await meta('configmap', 'force-a'))?.uid).not.toBe(before?.uid);
      expect(await kubectlOk(['get', 'configmap', 'force-a', '-n', ns, '-o', 'jsonpath={.data.k}'])).toBe('2');
    },
    TIMEOUT,
  );

  test(
    'server-side apply refuses a field the schema does not declare, with or without Validate=false (the API server cannot build the typed patch; kubectl apply --server-side --validate=false fails the same way)',
    async () => {
      const file = app('validate', '{}');
      const bad = (opts?: string) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: validate-a${opts ? `, annotations: {argocd.argoproj.io/sync-options: "${opts}"}` : ''}}\ndata: {k: "1"}\nspecial: true\n`;
      for (const [i, opts] of [
        [1, undefined],
        [2, 'Validate=false'],
      ] as const) {
        const res = await runPlugin(['sync', '-f', file, '--desired', desired(`validate-${i}`, { 'a.yaml': bad(opts) }), '-o', 'json']);
        expect([opts, res.code]).toEqual([opts, 3]);
        expect(res.stdout).toContain('.special: field not declared in schema');
      }
      expect(await meta('configmap', 'validate-a')).toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    'ServerSideApply=false applies client-side as kubectl apply does: a three-way strategic patch by container name removes what Git dropped and keeps a sidecar added by hand',
    async () => {
      const file = app('csa', '{}');
      const deploy = (image: string, env: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: csa-web, annotations: {argocd.argoproj.io/sync-options: ServerSideApply=false}}
spec:
  replicas: 1
  selector: {matchLabels: {app: csa-web}}
  template:
    metadata: {labels: {app: csa-web}}
    spec: {containers: [{name: web, image: "${image}", env: [${env}]}]}
`;
      const first = await runPlugin([
        'sync',
        '-f',
        file,
        '--desired',
        desired('csa-1', { 'd.yaml': deploy('web:1', '{name: A, value: "1"}, {name: B, value: "2"}') }),
        '-o',
        'json',
      ]);
      expect([first.code, steps(first.stdout)['csa-web']?.message]).toEqual([0, 'ServerSideApply=false: created (client-side apply)']);
      const get = async () =>
        JSON.parse(await kubectlOk(['get', 'deployment', 'csa-web', '-n', ns, '--show-managed-fields', '-o', 'json'])) as {
          metadata: { annotations: Record<string, string>; managedFields: { manager: string; operation: string }[] };
          spec: { template: { spec: { containers: { name: string; image: string; env?: { name: string }[] }[] } } };
        };
      const created = await get();
      expect(JSON.parse(created.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']!).spec.template.spec.containers[0].env).toEqual([
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ]);
      expect(created.metadata.managedFields.filter((m) => m.manager === 'argocd-controller').map((m) => m.operation)).toEqual(['Update']);
      // Someone adds a sidecar; Git then drops env B and moves the image on.
      await kubectlOk([
        'patch',
        'deployment',
        'csa-web',
        '-n',
        ns,
        '--type=strategic',
        '-p',
        '{"spec":{"template":{"spec":{"containers":[{"name":"proxy","image":"envoy:1"}]}}}}',
      ]);
      const d2 = desired('csa-2', { 'd.yaml': deploy('web:2', '{name: A, value: "1"}') });
      // The env var Git dropped is drift by the last-applied three-way rule (our manager never applied server-side).
      const drift = await runPlugin(['diff', '-f', file, '--desired', d2, '-o', 'kv']);
      expect(drift.code).toBe(1);
      expect(drift.stdout.split('\n')).toContain('DRIFT=Deployment/csa-web spec.template.spec.containers[name=web].env[name=B]');
      const second = await runPlugin(['sync', '-f', file, '--desired', d2, '-o', 'json']);
      expect([second.code, steps(second.stdout)['csa-web']?.message]).toEqual([0, 'ServerSideApply=false: patched (client-side apply)']);
      const after = (await get()).spec.template.spec.containers;
      expect(after.map((c) => [c.name, c.image, (c.env ?? []).map((e) => e.name)]).sort()).toEqual([
        ['proxy', 'envoy:1', []],
        ['web', 'web:2', ['A']],
      ]);
      // A second apply has nothing to send: the patch is three-way, so the sidecar it never declared is no change.
      const third = await runPlugin(['sync', '-f', file, '--desired', d2, '-o', 'json']);
      expect([third.code, steps(third.stdout)['csa-web']?.message]).toEqual([0, 'ServerSideApply=false: unchanged (client-side apply)']);
    },
    TIMEOUT,
  );

  test(
    'ServerSideApply=false with Validate=false: the API server drops a field the schema does not declare (client-side apply, where server-side apply refuses it)',
    async () => {
      const file = app('csa-validate', '{}');
      const bad = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: csa-validate-a, annotations: {argocd.argoproj.io/sync-options: "ServerSideApply=false,Validate=false"}}\ndata: {k: "1"}\nspecial: true\n`;
      const res = await runPlugin(['sync', '-f', file, '--desired', desired('csa-validate-d', { 'a.yaml': bad }), '-o', 'json']);
      expect([res.code, steps(res.stdout)['csa-validate-a']?.message]).toEqual([0, 'ServerSideApply=false: created (client-side apply)']);
      const live = JSON.parse(await kubectlOk(['get', 'configmap', 'csa-validate-a', '-n', ns, '-o', 'json'])) as Record<string, unknown>;
      expect([live.data, live.special]).toEqual([{ k: '1' }, undefined]);
    },
    TIMEOUT,
  );
});
