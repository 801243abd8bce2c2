// argocd-cm on the local control plane: label and annotation+label tracking (sync, diff and prune find what Argo
// CD's tracking finds), the installation id, a system-wide ignore rule, and Lua health checks of our own on a CRD
// of our own (Healthy, Progressing, Degraded with their messages; a script that loops forever is stopped).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { tempDir } from '../support/temp-dir.js';
import {
  applyYaml,
  createTestNamespace,
  deleteNamespace,
  getJson,
  kubeconfigPath,
  kubectl,
  kubectlOk,
  runPlugin,
  type RunResult,
  kvValues as kv,
} from './support/index.js';
import { GitFixture } from '../support/git-source.js';
import { WatchProcess } from './support/watch-process.js';
import type { KubeObject } from '../../src/model/object.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TID = 'argocd.argoproj.io/tracking-id';
const IID = 'argocd.argoproj.io/installation-id';
const LABEL = 'app.kubernetes.io/instance';

let ns: string;
let cp: string;
let root: string;

/** An app `name` in the control-plane namespace (so its instance is its name) and its desired folder. */
function app(name: string, manifests: string): { app: string; desired: string } {
  const dir = join(root, name);
  const desired = join(dir, 'desired');
  mkdirSync(desired, { recursive: true });
  writeFileSync(join(desired, 'all.yaml'), manifests);
  const file = join(dir, 'app.yaml');
  writeFileSync(
    file,
    applicationYaml({ name, namespace: cp, spec: { source: { repoURL: 'https://git.example.com/x.git', path: '.' }, destination: inCluster(ns) } }),
  );
  return { app: file, desired };
}

function cm(name: string, data: Record<string, string> = { v: '1' }): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: ${JSON.stringify(data)}\n---\n`;
}

function plugin(cmd: string, a: { app: string; desired: string }, ...extra: string[]): Promise<RunResult> {
  return runPlugin([cmd, '-f', a.app, '--desired', a.desired, '--argocd-namespace', cp, ...extra]);
}

async function handMade(
  name: string,
  meta: { labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: unknown[] },
): Promise<void> {
  await kubectlOk(['create', '-f', '-'], {
    stdin: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...meta }, data: { hand: 'made' } }),
  });
}

beforeAll(async () => {
  ns = await createTestNamespace('settings');
  cp = await createTestNamespace('settings-cp');
  root = tempDir('settings');
});

afterAll(async () => {
  if (ns) await deleteNamespace(ns);
  if (cp) await deleteNamespace(cp);
});

describe('label tracking (argocd-cm in the control-plane namespace)', () => {
  let a: { app: string; desired: string };
  beforeAll(async () => {
    await applyYaml(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm, namespace: ${cp}}\ndata:\n  application.resourceTrackingMethod: label\n`);
    a = app('lbl', cm('lbl-a') + cm('lbl-b'));
  });

  it('sync marks with the instance label only; diff is in sync', async () => {
    const res = await plugin('sync', a, '-o', 'kv');
    expect(res.code).toBe(0);
    const live = await getJson('configmap', 'lbl-a', ns);
    expect(live.metadata.labels?.[LABEL]).toBe('lbl');
    expect(live.metadata.annotations?.[TID]).toBeUndefined();
    expect((await plugin('diff', a)).code).toBe(0);
  });

  it('prune finds exactly what label tracking finds: the label names the app, no self-reference, no owner', async () => {
    const a1 = await getJson('configmap', 'lbl-a', ns);
    await handMade('lbl-copied', { labels: { [LABEL]: 'lbl' } }); // Argo CD takes it for the app's: the label cannot say which object it was put on
    await handMade('lbl-owned', {
      labels: { [LABEL]: 'lbl' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'lbl-a', uid: a1.metadata.uid }],
    });
    await handMade('lbl-other', { labels: { [LABEL]: 'another-app' } });
    await handMade('lbl-annotated', { annotations: { [TID]: `lbl:/ConfigMap:${ns}/lbl-annotated` } });
    writeFileSync(join(a.desired, 'all.yaml'), cm('lbl-a'));
    const res = await plugin('prune', a, '-o', 'json');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as { entries: { name: string; outcome: string }[] };
    expect(report.entries.map((e) => e.name).sort()).toEqual(['lbl-b', 'lbl-copied']);
    const diff = await plugin('diff', a, '-o', 'kv');
    expect(diff.code).toBe(1);
    expect(kv(diff.stdout).EXTRA?.sort()).toEqual(['ConfigMap/lbl-b', 'ConfigMap/lbl-copied']);
    const confirm = await plugin('prune', a, '--confirm', '-o', 'json');
    expect(confirm.code).toBe(0);
    const left = JSON.parse(await kubectlOk(['get', 'configmaps', '-n', ns, '-o', 'json'])) as { items: KubeObject[] };
    const names = left.items.map((o) => o.metadata.name).filter((n) => n?.startsWith('lbl-'));
    expect(names.sort()).toEqual(['lbl-a', 'lbl-annotated', 'lbl-other', 'lbl-owned']);
    expect((await plugin('diff', a)).code).toBe(0);
  });

  it('sync --watch --all reads its label-selected candidate scan from the watch-fed cache: a poll asks the API server nothing, and a labelled ConfigMap made by hand is pruned', async () => {
    const fx = new GitFixture();
    let w: WatchProcess | undefined;
    try {
      fx.write('w/cm.yaml', cm('lblw-a'));
      fx.commit('w');
      await applyYaml(
        applicationYaml({
          name: 'lblw',
          namespace: cp,
          spec: {
            source: { repoURL: fx.repo, path: 'w', targetRevision: 'main' },
            destination: inCluster(ns),
            syncPolicy: { automated: { prune: true, selfHeal: true } },
          },
        }),
      );
      w = new WatchProcess(['--all', '--app-namespace', cp, '--argocd-namespace', cp, '--interval', '2s', '-v'], kubeconfigPath());
      const watch = w;
      await watch.line((l) => l.app === `${cp}/lblw` && l.action === 'sync' && l.object === 'ConfigMap/lblw-a', 'lblw-a applied', 0, 60_000);
      expect((await getJson('configmap', 'lblw-a', ns)).metadata.labels?.[LABEL]).toBe('lblw');
      await handMade('lblw-stray', { labels: { [LABEL]: 'lblw' } });
      await watch.line(
        (l) => l.app === `${cp}/lblw` && l.action === 'prune' && l.object === 'ConfigMap/lblw-stray' && l.result === 'deleted',
        'the stray pruned',
      );
      expect((await kubectl(['get', 'configmap', 'lblw-stray', '-n', ns])).code).not.toBe(0);
      // Two polls from here: each reads the cache its watches keep (the scan of every kind by the instance label
      // included), so neither makes a request (each was ~56 LISTs when label-selected reads went to the server).
      const since = watch.lines.length;
      const poll = (l: { app?: unknown; action: string; result?: string }) => l.app === `${cp}/lblw` && l.action === 'refresh' && l.result === 'poll';
      await watch.line(poll, 'a poll', since);
      const second = watch.lines.findIndex((l, i) => i >= since && poll(l)) + 1;
      await watch.line(poll, 'another poll', second);
      const polls = watch.lines.slice(since).filter(poll);
      expect(polls.length).toBeGreaterThanOrEqual(2);
      expect(polls.map((p) => p.requests)).toEqual(polls.map(() => 0));
    } finally {
      await w?.stop('SIGTERM');
      await kubectl(['delete', 'application', 'lblw', '-n', cp, '--wait=false']);
      fx.cleanup();
    }
  }, 120_000);
});

describe('annotation+label tracking and the installation id (--argocd-cm FILE)', () => {
  let a: { app: string; desired: string };
  let cmFile: string;
  beforeAll(() => {
    cmFile = join(root, 'argocd-cm-al.yaml');
    writeFileSync(
      cmFile,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  application.resourceTrackingMethod: annotation+label\n  installationID: inst-1\n',
    );
    a = app('al', cm('al-a') + cm('al-b'));
  });

  it('sync writes the annotation, the installation id and the label', async () => {
    expect((await plugin('sync', a, '--argocd-cm', cmFile)).code).toBe(0);
    const live = await getJson('configmap', 'al-a', ns);
    expect(live.metadata.annotations?.[TID]).toBe(`al:/ConfigMap:${ns}/al-a`);
    expect(live.metadata.annotations?.[IID]).toBe('inst-1');
    expect(live.metadata.labels?.[LABEL]).toBe('al');
    expect((await plugin('diff', a, '--argocd-cm', cmFile)).code).toBe(0);
  });

  it("prune goes by the annotation of this installation: a label alone, or another installation's mark, is not ours", async () => {
    await handMade('al-label-only', { labels: { [LABEL]: 'al' } });
    await handMade('al-no-installation', { annotations: { [TID]: `al:/ConfigMap:${ns}/al-no-installation` } });
    await handMade('al-other-installation', { annotations: { [TID]: `al:/ConfigMap:${ns}/al-other-installation`, [IID]: 'inst-2' } });
    await handMade('al-ours', { annotations: { [TID]: `al:/ConfigMap:${ns}/al-ours`, [IID]: 'inst-1' } });
    writeFileSync(join(a.desired, 'all.yaml'), cm('al-a'));
    const res = await plugin('prune', a, '--argocd-cm', cmFile, '-o', 'json');
    const report = JSON.parse(res.stdout) as { entries: { name: string }[]; notOwned: { name: string; reason: string }[] };
    expect(report.entries.map((e) => e.name).sort()).toEqual(['al-b', 'al-ours']);
    expect(report.notOwned.find((n) => n.name === 'al-other-installation')?.reason).toContain('inst-2');
  });
});

describe('the legacy instance label key applications.argoproj.io/app-name (--argocd-cm FILE)', () => {
  it("sync also labels the pod templates of a Deployment and a Job, as Argo CD's SetAppInstanceLabel does; diff is in sync", async () => {
    const legacy = 'applications.argoproj.io/app-name';
    const cmFile = join(root, 'argocd-cm-legacy.yaml');
    writeFileSync(
      cmFile,
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  application.resourceTrackingMethod: label\n  application.instanceLabelKey: ${legacy}\n`,
    );
    const pod = (restartPolicy: string) =>
      `  template:\n    metadata:\n      labels: {app: legacy}\n    spec:\n      restartPolicy: ${restartPolicy}\n      containers: [{name: c, image: busybox}]\n`;
    const a = app(
      'legacy',
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: legacy-d}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: legacy}}\n${pod('Always')}---\n` +
        `apiVersion: batch/v1\nkind: Job\nmetadata: {name: legacy-j}\nspec:\n  suspend: true\n${pod('Never')}---\n` +
        cm('legacy-c'),
    );
    const res = await plugin('sync', a, '--argocd-cm', cmFile);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    for (const [kind, name] of [
      ['deployment', 'legacy-d'],
      ['job', 'legacy-j'],
    ] as const) {
      const live = (await getJson(kind, name, ns)) as KubeObject & { spec: { template: { metadata: { labels: Record<string, string> } } } };
      expect(live.metadata.labels?.[legacy]).toBe('legacy');
      expect(live.spec.template.metadata.labels[legacy]).toBe('legacy');
    }
    expect((await getJson('configmap', 'legacy-c', ns)).metadata.labels?.[legacy]).toBe('legacy');
    expect((await plugin('diff', a, '--argocd-cm', cmFile)).code).toBe(0);
  });
});

describe('moving from label tracking to annotation tracking, and no installationID (--argocd-cm FILE)', () => {
  it("objects synced under label tracking are Synced under annotation tracking (Argo CD's tracking Normalize before the diff); the next sync marks them", async () => {
    const labelCm = join(root, 'argocd-cm-move-label.yaml');
    writeFileSync(labelCm, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  application.resourceTrackingMethod: label\n');
    const annotationCm = join(root, 'argocd-cm-move-annotation.yaml');
    writeFileSync(annotationCm, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  application.resourceTrackingMethod: annotation\n');
    const a = app('move', cm('move-a'));
    expect((await plugin('sync', a, '--argocd-cm', labelCm)).code).toBe(0);
    expect((await getJson('configmap', 'move-a', ns)).metadata.annotations?.[TID]).toBeUndefined();
    const diff = await plugin('diff', a, '--argocd-cm', annotationCm, '-o', 'kv');
    expect({ code: diff.code, out: diff.stdout }).toEqual({ code: 0, out: 'SYNC=Synced\n' });
    expect((await plugin('sync', a, '--argocd-cm', annotationCm)).code).toBe(0);
    const live = await getJson('configmap', 'move-a', ns);
    expect(live.metadata.annotations?.[TID]).toBe(`move:/ConfigMap:${ns}/move-a`);
  });

  it("with no installationID, an object another installation marked for this app is no app's: never a prune candidate", async () => {
    const noId = join(root, 'argocd-cm-no-id.yaml');
    writeFileSync(noId, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  application.resourceTrackingMethod: annotation\n');
    const a = app('noid', cm('noid-a'));
    expect((await plugin('sync', a, '--argocd-cm', noId)).code).toBe(0);
    await handMade('noid-foreign', { annotations: { [TID]: `noid:/ConfigMap:${ns}/noid-foreign`, [IID]: 'other-install' } });
    await handMade('noid-ours', { annotations: { [TID]: `noid:/ConfigMap:${ns}/noid-ours` } });
    const res = await plugin('prune', a, '--argocd-cm', noId, '-o', 'json');
    const report = JSON.parse(res.stdout) as { entries: { name: string }[] };
    expect(report.entries.map((e) => e.name)).toEqual(['noid-ours']);
  });
});

describe('a system-wide ignore rule from argocd-cm', () => {
  it("is merged with the Application's rules: the ignored field is reported, never drift", async () => {
    const cmFile = join(root, 'argocd-cm-ignore.yaml');
    writeFileSync(
      cmFile,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  resource.customizations.ignoreDifferences.ConfigMap: |\n    jsonPointers:\n    - /data/tuned\n',
    );
    const a = app('ign', cm('ign-a', { v: '1', tuned: 'low' }));
    expect((await plugin('sync', a, '--argocd-cm', cmFile)).code).toBe(0);
    await kubectlOk(['patch', 'configmap', 'ign-a', '-n', ns, '--type=merge', '-p', '{"data":{"tuned":"high"}}']);
    const withRule = await plugin('diff', a, '--argocd-cm', cmFile, '-o', 'kv');
    expect(withRule.code).toBe(0);
    expect(withRule.stdout).toContain('IGNORED=ConfigMap/ign-a data.tuned');
    const json = JSON.parse((await plugin('diff', a, '--argocd-cm', cmFile, '-o', 'json')).stdout) as {
      objects: { key: { name: string }; fields: { path: string; verdict: string; rule?: { source?: string } }[] }[];
    };
    const field = json.objects.find((o) => o.key.name === 'ign-a')?.fields.find((f) => f.path === 'data.tuned');
    expect(field).toMatchObject({
      verdict: 'ignored',
      rule: { type: 'jsonPointers', value: '/data/tuned', source: `${cmFile} resource.customizations.ignoreDifferences.ConfigMap` },
    });
    // Without the settings the same live change is drift.
    const without = await runPlugin(['diff', '-f', a.app, '--desired', a.desired, '--argocd-namespace', `${cp}-none`]);
    expect(without.code).toBe(1);
  });
});

describe('Lua health checks of our own on a CRD of our own', () => {
  const group = `w${randomBytes(3).toString('hex')}.kgitops.test`;
  let cmFile: string;
  let a: { app: string; desired: string };

  beforeAll(async () => {
    await applyYaml(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: loopers.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {kind: Looper, plural: loopers, singular: looper, listKind: LooperList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`);
    await kubectlOk(['wait', '--for=condition=Established', `crd/widgets.${group}`, `crd/loopers.${group}`, '--timeout=60s']);
    cmFile = join(root, 'argocd-cm-lua.yaml');
    const widgetHealth = [
      'hs = {}',
      'if obj.status ~= nil and obj.status.phase == "Running" then',
      '  hs.status = "Healthy"',
      '  hs.message = "widget " .. obj.metadata.name .. " runs"',
      'elseif obj.status ~= nil and obj.status.phase == "Failed" then',
      '  hs.status = "Degraded"',
      '  hs.message = obj.status.reason',
      'else',
      '  hs.status = "Progressing"',
      '  hs.message = "waiting for the widget"',
      'end',
      'return hs',
    ];
    writeFileSync(
      cmFile,
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  resource.customizations.health.${group}_Widget: |\n${widgetHealth.map((l) => `    ${l}`).join('\n')}\n  resource.customizations.health.${group}_Looper: |\n    while true do end\n`,
    );
    const widget = (name: string) => `apiVersion: ${group}/v1\nkind: Widget\nmetadata: {name: ${name}}\nspec: {size: 1}\n---\n`;
    a = app(
      'lua',
      widget('w-running') + widget('w-failed') + widget('w-pending') + `apiVersion: ${group}/v1\nkind: Looper\nmetadata: {name: forever}\nspec: {}\n`,
    );
    expect((await plugin('sync', a, '--argocd-cm', cmFile)).code).toBe(0);
    await kubectlOk(['patch', `widgets.${group}`, 'w-running', '-n', ns, '--type=merge', '-p', '{"status":{"phase":"Running"}}']);
    await kubectlOk(['patch', `widgets.${group}`, 'w-failed', '-n', ns, '--type=merge', '-p', '{"status":{"phase":"Failed","reason":"out of sprockets"}}']);
  });

  afterAll(async () => {
    await kubectlOk(['delete', 'crd', `widgets.${group}`, `loopers.${group}`, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  });

  it('gives Healthy, Progressing and Degraded with the message; a script that loops forever is stopped by the bound', async () => {
    const started = Date.now();
    const res = await plugin('status', a, '--argocd-cm', cmFile, '-o', 'json');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as {
      resources: { kind: string; name: string; health?: { status: string; message: string } }[];
      health: { status: string };
    };
    const health = Object.fromEntries(report.resources.map((r) => [r.name, r.health]));
    expect(health['w-running']).toEqual({ status: 'Healthy', message: 'widget w-running runs' });
    expect(health['w-failed']).toEqual({ status: 'Degraded', message: 'out of sprockets' });
    expect(health['w-pending']).toEqual({ status: 'Progressing', message: 'waiting for the widget' });
    expect(health.forever).toEqual({ status: 'Unknown', message: 'the Lua health check ran past its time bound (1000 ms) and was stopped' });
    expect(report.health.status).toBe('Unknown');
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('a sync wave waits for the Lua health as status gives it: a Degraded widget in wave 0 stops the sync before wave 1, a Running one lets it go on', async () => {
    const waves = (name: string, phase: string) =>
      app(
        name,
        `apiVersion: ${group}/v1\nkind: Widget\nmetadata: {name: ${name}, annotations: {argocd.argoproj.io/sync-wave: "0"}}\nspec: {size: 1}\nstatus: {phase: ${phase}, reason: out of sprockets}\n---\n` +
          `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}-after, annotations: {argocd.argoproj.io/sync-wave: "1"}}\ndata: {k: v}\n`,
      );
    const failing = waves('lua-wave-failed', 'Failed');
    const res = await plugin('sync', failing, '--argocd-cm', cmFile, '-o', 'kv', '--timeout', '1m');
    expect(res.code).toBe(3);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('WAVE='))).toEqual(['WAVE=Sync 0 failed', 'WAVE=Sync 1 not-run']);
    expect(lines.filter((l) => l.startsWith('FAILED='))).toEqual([
      'FAILED=Sync/lua-wave-failed operation: Widget/lua-wave-failed is Degraded: out of sprockets (wave 0 of Sync)',
    ]);
    expect((await kubectl(['get', 'configmap', 'lua-wave-failed-after', '-n', ns, '--ignore-not-found', '-o', 'name'])).stdout.trim()).toBe('');
    // Without the check the widget has no health of its own (Argo CD: healthy): the sync goes on.
    const noChecks = join(root, 'argocd-cm-no-checks.yaml');
    writeFileSync(noChecks, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  installationID: ""\n');
    const unchecked = waves('lua-wave-unchecked', 'Failed');
    expect((await plugin('sync', unchecked, '--argocd-cm', noChecks, '-o', 'kv', '--timeout', '1m')).code).toBe(0);
    const running = waves('lua-wave-running', 'Running');
    const ok = await plugin('sync', running, '--argocd-cm', cmFile, '-o', 'kv', '--timeout', '1m');
    expect(ok.code).toBe(0);
    expect(
      ok.stdout
        .trimEnd()
        .split('\n')
        .filter((l) => l.startsWith('WAVE=')),
    ).toEqual(['WAVE=Sync 0 done', 'WAVE=Sync 1 done']);
    await getJson('configmap', 'lua-wave-running-after', ns);
  });

  it("the same checks from a --lua-dir library in Argo CD's layout", async () => {
    const lib = join(root, 'lib', 'resource_customizations', group, 'Widget');
    mkdirSync(lib, { recursive: true });
    writeFileSync(join(lib, 'health.lua'), 'return { status = "Suspended", message = "from the library: " .. obj.metadata.name }');
    const res = await plugin('status', a, '--lua-dir', join(root, 'lib'), '-o', 'json');
    const report = JSON.parse(res.stdout) as { resources: { name: string; health?: { status: string; message: string } }[] };
    expect(report.resources.find((r) => r.name === 'w-failed')?.health).toEqual({ status: 'Suspended', message: 'from the library: w-failed' });
  });

  it('a --lua-dir that is missing, or whose health.lua cannot be read, is exit 2 naming it, before anything is changed', async () => {
    const missing = join(root, 'no-such-lib');
    const gone = await plugin('status', a, '--lua-dir', missing);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`--lua-dir ${missing}: ENOENT`);
    // A health.lua that is a folder: sync refuses before it applies anything (the library is read with the rules).
    const bad = join(root, 'bad-lib');
    mkdirSync(join(bad, group, 'Widget', 'health.lua'), { recursive: true });
    await kubectlOk(['patch', `widgets.${group}`, 'w-pending', '-n', ns, '--type=merge', '-p', '{"spec":{"size":9}}']);
    const sync = await plugin('sync', a, '--lua-dir', bad);
    expect(sync.code).toBe(2);
    expect(sync.stderr).toContain(`--lua-dir: reading ${join(bad, group, 'Widget', 'health.lua')}: EISDIR`);
    expect((await getJson(`widgets.${group}`, 'w-pending', ns)).spec).toEqual({ size: 9 });
    expect((await plugin('status', a, '--lua-dir', bad)).code).toBe(2);
    await kubectlOk(['patch', `widgets.${group}`, 'w-pending', '-n', ns, '--type=merge', '-p', '{"spec":{"size":1}}']);
  });

  it('resource.compareoptions ignoreResourceStatusField: a status declared in Git is compared under none and crd, not under all', async () => {
    const option = (value: string): string => {
      const file = join(root, `argocd-cm-status-${value || 'default'}.yaml`);
      const data = value ? `  resource.compareoptions: |\n    ignoreResourceStatusField: ${value}\n` : '  installationID: ""\n';
      writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n${data}`);
      return file;
    };
    // Every command reads argocd-cm from a file: the control-plane namespace's may track by label (above).
    const st = app('status-cmp', `apiVersion: ${group}/v1\nkind: Widget\nmetadata: {name: w-declared}\nspec: {size: 2}\nstatus: {phase: Running}\n`);
    expect((await plugin('sync', st, '--argocd-cm', option(''))).code).toBe(0);
    // The live status moves on (no status subresource here: a merge patch of the object).
    await kubectlOk(['patch', `widgets.${group}`, 'w-declared', '-n', ns, '--type=merge', '-p', '{"status":{"phase":"Failed"}}']);
    // Argo CD's default (all): status is never compared.
    const dflt = await plugin('diff', st, '--argocd-cm', option(''), '-o', 'kv');
    expect([dflt.code, kv(dflt.stdout).SYNC]).toEqual([0, ['Synced']]);
    expect((await plugin('diff', st, '--argocd-cm', option('all'))).code).toBe(0);
    for (const value of ['none', 'crd']) {
      const res = await plugin('diff', st, '--argocd-cm', option(value), '-o', 'json');
      expect([value, res.code]).toEqual([value, 1]);
      const report = JSON.parse(res.stdout) as {
        objects: { key: { name: string }; fields: { path: string; desired?: unknown; live?: unknown; verdict: string; owners: { manager: string }[] }[] }[];
      };
      const fields = report.objects.find((o) => o.key.name === 'w-declared')?.fields ?? [];
      // kubectl patch took the field over: another manager's, so a conflict, as for any other field.
      expect(fields.map((f) => [f.path, f.desired, f.live, f.verdict, f.owners.map((o) => o.manager)])).toEqual([
        ['status.phase', 'Running', 'Failed', 'conflict', ['kubectl-patch']],
      ]);
    }
    // status agrees with diff.
    const status = await plugin('status', st, '--argocd-cm', option('none'), '-o', 'kv');
    expect(kv(status.stdout).SYNC).toEqual(['OutOfSync']);
  });
  it('knownTypeFields: a field typed core/Quantity (or meta/v1/Duration) compares by value; without the setting an equivalent spelling set by hand is drift', async () => {
    const known = join(root, 'argocd-cm-known.yaml');
    writeFileSync(
      known,
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  resource.customizations.knownTypeFields.${group}_Widget: |\n    - field: spec.capacity\n      type: core/Quantity\n    - field: spec.timeout\n      type: meta/v1/Duration\n`,
    );
    const plain = join(root, 'argocd-cm-plain.yaml');
    writeFileSync(plain, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata: {installationID: ""}\n');
    const kt = app('known-types', `apiVersion: ${group}/v1\nkind: Widget\nmetadata: {name: w-typed}\nspec: {size: 1, capacity: 1Gi, timeout: 90m}\n`);
    expect((await plugin('sync', kt, '--argocd-cm', known)).code).toBe(0);
    // Someone (a controller, by hand) writes the same values in other spellings.
    await kubectlOk(['patch', `widgets.${group}`, 'w-typed', '-n', ns, '--type=merge', '-p', '{"spec":{"capacity":"1024Mi","timeout":"1h30m0s"}}']);
    const typed = await plugin('diff', kt, '--argocd-cm', known, '-o', 'kv');
    expect([typed.code, kv(typed.stdout).SYNC, typed.stderr]).toEqual([0, ['Synced'], '']);
    const untyped = await plugin('diff', kt, '--argocd-cm', plain, '-o', 'kv');
    expect(untyped.code).toBe(1);
    expect(
      untyped.stdout
        .split('\n')
        .filter((l) => /^(DRIFT|CONFLICT)=Widget\/w-typed /.test(l))
        .map((l) => l.split(' ')[1]),
    ).toEqual(['spec.capacity', 'spec.timeout']);
  });
});
