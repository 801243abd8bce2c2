// planApp on the fake gateway with a real Git repository: rendered at --base and at head, the head compared with live
// (an image this change sets, replicas kubectl scaled before it, a ConfigMap it drops), the sync at head refused by a
// deny window at --at and not outside it, and a change that does nothing live (exit 0).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeGateway } from '../../../support/fake-gateway.js';
import { GitFixture } from '../../../support/git-source.js';
import { applicationYaml } from '../../../support/application.js';
import { tempDir } from '../../../support/temp-dir.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { renderPath } from '../../../../src/model/field-path.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import type { KubeObject } from '../../../../src/model/object.js';
import { ExitCode, exitCodeFor, InputError, ManifestError } from '../../../../src/model/errors.js';
import { ancestry, planApp, planAppOffline, planExitCode, PLAN_SCHEMA_VERSION, type PlanAppReport } from '../../../../src/workflows/plan/plan.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'json', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };
const TID = 'argocd.argoproj.io/tracking-id';

const deployment = (image: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: "${image}"}]\n`;

let fx: GitFixture;
let base: string;
let head: string;
let appFile: string;
let projectFile: string;

beforeAll(() => {
  fx = new GitFixture();
  fx.write('app/deploy.yaml', deployment('nginx:1.26'));
  fx.write('app/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: old}\n');
  base = fx.commit('base');
  fx.write('app/deploy.yaml', deployment('nginx:1.27'));
  fx.remove('app/cm.yaml');
  head = fx.commit('head');
  const dir = tempDir('plan');
  appFile = join(dir, 'app.yaml');
  writeFileSync(
    appFile,
    applicationYaml({ spec: { project: 'frozen', source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: { namespace: 'shop' } } }),
  );
  projectFile = join(dir, 'project.yaml');
  // Denies every day from 18:00 UTC for 2 hours.
  writeFileSync(
    projectFile,
    `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: frozen, namespace: argocd}\nspec:\n  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  syncWindows:\n  - {kind: deny, schedule: '0 18 * * *', duration: 2h, applications: ['*'], description: evening freeze}\n`,
  );
});
afterAll(() => fx.cleanup());

/** The cluster after a sync at base, then `kubectl scale --replicas 3`. */
function liveObjects(image = 'nginx:1.26', replicas = 3): KubeObject[] {
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'shop',
        annotations: { [TID]: 'shop:apps/Deployment:shop/web' },
        managedFields: [
          {
            manager: 'argocd-controller',
            operation: 'Apply',
            apiVersion: 'apps/v1',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:metadata': { 'f:annotations': { [`f:${TID}`]: {} } },
              'f:spec': {
                'f:selector': {},
                'f:template': {
                  'f:metadata': { 'f:labels': { 'f:app': {} } },
                  'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:name': {}, 'f:image': {} } } },
                },
              },
            },
          },
          {
            manager: 'kubectl',
            operation: 'Update',
            subresource: 'scale',
            apiVersion: 'apps/v1',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { 'f:replicas': {} } },
          },
        ],
      },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/settings' } },
      data: { mode: 'old' },
    },
  ];
}

const deps = (objects: KubeObject[]) => ({ io: memoryIo().io, opts, gateway: new FakeGateway({ objects }) });

/** What the plan says, in words a test reads. */
function said(r: PlanAppReport) {
  return r.objects.map((o) => ({
    object: `${o.key.kind}/${o.key.name}`,
    action: o.action,
    origin: o.origin,
    fields: o.fields.map((f) => `${renderPath(f.path)} ${f.origin} ${f.verdict} ${f.owners.map((w) => w.manager).join(',')}`),
  }));
}

test('the image is this change, the replicas already there (owned by kubectl), the ConfigMap pruned by this change; exit 1', async () => {
  const at = Date.parse('2026-12-04T12:00:00Z');
  const r = await planApp({ appFile, projectFile, base, at }, deps(liveObjects()));
  expect([r.base, r.head, r.sync, r.refused]).toEqual([base, head, 'manual', undefined]);
  expect(said(r)).toEqual([
    {
      object: 'Deployment/web',
      action: 'update',
      origin: 'this-change',
      fields: ['spec.replicas already-there conflict kubectl', 'spec.template.spec.containers[name=web].image this-change drift argocd-controller'],
    },
    { object: 'ConfigMap/settings', action: 'prune', origin: 'this-change', fields: [] },
  ]);
  expect(r.summary).toEqual({ thisChange: 2, alreadyThere: 1, inSync: 0 });
  expect(r.prune).toEqual({ enabled: true, why: 'a manual sync with --prune' });
  expect(planExitCode({ schemaVersion: PLAN_SCHEMA_VERSION, at: '', apps: [r] })).toBe(1);
});

test('a deny window at --at refuses the sync at head (exit 4); the changes are still listed', async () => {
  const r = await planApp({ appFile, projectFile, base, head, at: Date.parse('2026-12-04T18:30:00Z') }, deps(liveObjects()));
  expect(r.refused).toContain('blocked by the active deny window syncWindows[0] deny "0 18 * * *" for 2h UTC');
  expect(r.refused).toContain('evening freeze');
  expect(r.summary.thisChange).toBe(2);
  expect(planExitCode({ schemaVersion: PLAN_SCHEMA_VERSION, at: '', apps: [r] })).toBe(4);
});

test('a change whose head is already live does nothing live (exit 0), drift already there aside', async () => {
  const live = liveObjects('nginx:1.27').filter((o) => o.kind === 'Deployment');
  const r = await planApp({ appFile, projectFile, base, at: Date.parse('2026-12-04T12:00:00Z') }, deps(live));
  expect(said(r)).toEqual([{ object: 'Deployment/web', action: 'update', origin: 'already-there', fields: ['spec.replicas already-there conflict kubectl'] }]);
  expect(r.summary).toEqual({ thisChange: 0, alreadyThere: 1, inSync: 0 });
  expect(planExitCode({ schemaVersion: PLAN_SCHEMA_VERSION, at: '', apps: [r] })).toBe(0);
});

test('--offline: no cluster, head against base: the image and the ConfigMap are this change; the window at --at still refuses', async () => {
  const deps = { io: memoryIo().io, opts };
  const r = await planAppOffline({ appFile, projectFile, base, head, at: Date.parse('2026-12-04T12:00:00Z'), kubeVersion: '', apiVersions: [] }, deps);
  expect(r.context).toBeUndefined();
  expect([r.base, r.head, r.refused]).toEqual([base, head, undefined]);
  expect(said(r)).toEqual([
    { object: 'Deployment/web', action: 'update', origin: 'this-change', fields: ['spec.template.spec.containers[name=web].image this-change drift '] },
    { object: 'ConfigMap/settings', action: 'prune', origin: 'this-change', fields: [] },
  ]);
  expect(r.summary).toEqual({ thisChange: 2, alreadyThere: 0, inSync: 0 });
  expect(r.warnings).toEqual([]);
  const frozen = await planAppOffline({ appFile, projectFile, base, head, at: Date.parse('2026-12-04T19:59:00Z'), kubeVersion: '', apiVersions: [] }, deps);
  expect(frozen.refused).toContain('evening freeze');
});

test("--offline warns that Helm renders with Helm's defaults only when a source is a Helm chart rendered without --kube-version", async () => {
  const deps = { io: memoryIo().io, opts };
  const at = Date.parse('2026-12-04T12:00:00Z');
  // A directory source: nothing of Helm's is used, nothing said.
  expect((await planAppOffline({ appFile, projectFile, base, head, at }, deps)).warnings).toEqual([]);
  const chart = new GitFixture();
  try {
    chart.write('chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 0.1.0\n');
    chart.write('chart/templates/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: made}\n');
    const one = chart.commit('a chart');
    const dir = tempDir('plan-helm');
    const helm = join(dir, 'helm');
    writeFileSync(helm, '#!/bin/sh\ncase "$1" in\n  template) printf \'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: made\\n\';;\nesac\n', {
      mode: 0o755,
    });
    const file = join(dir, 'app.yaml');
    writeFileSync(
      file,
      applicationYaml({
        spec: { project: 'default', source: { repoURL: chart.repo, path: 'chart', targetRevision: 'main' }, destination: { namespace: 'shop' } },
      }),
    );
    const r = await planAppOffline({ appFile: file, base: one, head: one, at, helm }, deps);
    expect(r.warnings).toEqual([
      "offline: Helm charts are rendered with Helm's defaults, not a cluster's capabilities (give --kube-version and --api-versions to match one)",
    ]);
    expect((await planAppOffline({ appFile: file, base: one, head: one, at, helm, kubeVersion: '1.35.0', apiVersions: ['v1'] }, deps)).warnings).toEqual([]);
  } finally {
    chart.cleanup();
  }
});

describe('what refuses the sync at head before anything else', () => {
  let repo: GitFixture;
  let first: string;
  let empty: string;
  let unserved: string;
  let file: string;
  beforeAll(() => {
    repo = new GitFixture();
    repo.write('app/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: old}\n');
    first = repo.commit('one ConfigMap');
    repo.remove('app/cm.yaml');
    repo.write('app/README.md', 'nothing to deploy\n');
    empty = repo.commit('nothing');
    repo.write('app/widget.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n');
    unserved = repo.commit('a kind nobody serves');
    file = join(tempDir('plan-refusals'), 'app.yaml');
    writeFileSync(file, applicationYaml({ spec: { source: { repoURL: repo.repo, path: 'app', targetRevision: 'main' }, destination: { namespace: 'shop' } } }));
  });
  afterAll(() => repo.cleanup());
  const at = Date.parse('2026-12-04T12:00:00Z');

  test('an empty render without allowEmpty (the sync planner refuses it; exit 4)', async () => {
    const r = await planApp({ appFile: file, base: first, head: empty, at }, deps([]));
    expect(r.refused).toBe('the desired set of shop is empty and allowEmpty is not true: a sync would leave nothing declared');
    expect(planExitCode({ schemaVersion: PLAN_SCHEMA_VERSION, at: '', apps: [r] })).toBe(4);
  });

  test('a kind the cluster does not serve: refused (exit 4), nothing compared', async () => {
    const r = await planApp({ appFile: file, base: first, head: unserved, at }, deps([]));
    expect(r.refused).toBe(
      `${repo.repo}@${unserved.slice(0, 7)}:app/widget.yaml:1: the cluster does not serve Widget in example.com/v1 (Widget/w); no CustomResourceDefinition of this app defines it (with the sync option SkipDryRunOnMissingResource=true a sync applies it once the cluster serves it)`,
    );
    expect([r.objects, r.head]).toEqual([[], unserved]);
    expect(planExitCode({ schemaVersion: PLAN_SCHEMA_VERSION, at: '', apps: [r] })).toBe(4);
  });
});

describe('a multi-source Application: the Git sources that follow --base move to --head, the others stay', () => {
  let shop: GitFixture;
  let extra: GitFixture;
  let baseSha: string;
  let headSha: string;
  let file: string;
  beforeAll(() => {
    shop = new GitFixture();
    shop.write('app/deploy.yaml', deployment('nginx:1.26'));
    baseSha = shop.commit('base');
    shop.write('app/deploy.yaml', deployment('nginx:1.27'));
    headSha = shop.commit('head');
    shop.git(['branch', '-f', 'release', baseSha]);
    shop.git(['branch', '-f', 'pr-1', headSha]);
    extra = new GitFixture();
    extra.write('extra/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {mode: "on"}\n');
    extra.git(['branch', '-f', 'release', extra.commit('extra')]);
    file = join(tempDir('plan-multi'), 'app.yaml');
    writeFileSync(
      file,
      applicationYaml({
        spec: {
          sources: [
            { repoURL: shop.repo, path: 'app', targetRevision: 'release' },
            { repoURL: extra.repo, path: 'extra', targetRevision: 'release' },
          ],
          destination: { namespace: 'shop' },
        },
      }),
    );
  });
  afterAll(() => {
    shop.cleanup();
    extra.cleanup();
  });
  const at = Date.parse('2026-12-04T12:00:00Z');
  const live = () => liveObjects().filter((o) => o.kind === 'Deployment');

  test("with the pull request's repository: only its source moves; the report names it with its commits", async () => {
    const r = await planApp({ appFile: file, base: 'release', head: 'pr-1', repo: shop.repo, at }, deps(live()));
    expect(r.sources).toEqual([{ position: 1, repoURL: shop.repo, path: 'app', base: baseSha, head: headSha }]);
    expect([r.base, r.head, r.refused]).toEqual([baseSha, headSha, undefined]);
    expect(said(r)).toEqual([
      {
        object: 'Deployment/web',
        action: 'update',
        origin: 'this-change',
        fields: ['spec.replicas already-there conflict kubectl', 'spec.template.spec.containers[name=web].image this-change drift argocd-controller'],
      },
      // Declared at base and at head (its source stays at release): not this change.
      { object: 'ConfigMap/extra', action: 'create', origin: 'already-there', fields: [] },
    ]);
    expect(r.warnings).toEqual([]);
  });

  test('without --repo every Git source that follows --base moves: the other repository has no pr-1 (named, nothing planned)', async () => {
    await expect(planApp({ appFile: file, base: 'release', head: 'pr-1', at }, deps(live()))).rejects.toThrow(
      'spec.sources[1].targetRevision "pr-1" names no commit',
    );
  });

  test('no source follows --base: said in a warning, every source read at its targetRevision (nothing is this change)', async () => {
    const r = await planApp({ appFile: file, base: 'main', head: 'pr-1', at }, deps(live()));
    expect(r.sources).toEqual([]);
    expect(r.warnings).toContain(
      'none of the 2 sources of shop follows main (1: release, 2: release): every source is read at its targetRevision at base and at head',
    );
    expect(r.summary.thisChange).toBe(0);
    expect(planExitCode({ schemaVersion: PLAN_SCHEMA_VERSION, at: '', apps: [r] })).toBe(0);
  });
});

test("plan --recursive's cycle line: the Applications above, and the ApplicationSet between when one generated the app", () => {
  expect(ancestry({ chain: ['argocd/root', 'argocd/mid'] }, 'argocd/root')).toEqual(['argocd/root', 'argocd/mid', 'argocd/root']);
  expect(ancestry({ chain: ['argocd/root'], via: 'argocd/set' }, 'argocd/root')).toEqual(['argocd/root', 'ApplicationSet argocd/set', 'argocd/root']);
});

describe('what the sync at head does that a comparison alone does not show', () => {
  const at = Date.parse('2026-12-04T12:00:00Z');
  const exit = (r: PlanAppReport) => planExitCode({ schemaVersion: PLAN_SCHEMA_VERSION, at: '', apps: [r] });
  const appWith = (name: string, spec: Record<string, unknown>, repoURL = fx.repo) => {
    const file = join(tempDir(`plan-${name}`), 'app.yaml');
    writeFileSync(file, applicationYaml({ spec: { source: { repoURL, path: 'app', targetRevision: 'main' }, destination: { namespace: 'shop' }, ...spec } }));
    return file;
  };
  const ignoreReplicas = { ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }] };

  test('an ignored field the sync applies back (no RespectIgnoreDifferences) is counted with its owner; with RespectIgnoreDifferences it stays ignored', async () => {
    // Head is live (the image), the replicas scaled by hand to 5 with kubectl: base = head.
    const live = () => liveObjects('nginx:1.27', 5).filter((o) => o.kind === 'Deployment');
    const r = await planApp({ appFile: appWith('ignored', ignoreReplicas), base: head, head, at }, deps(live()));
    expect(said(r)).toEqual([
      { object: 'Deployment/web', action: 'update', origin: 'already-there', fields: ['spec.replicas already-there conflict kubectl'] },
    ]);
    expect(r.objects[0]!.fields[0]!.rule).toBeDefined();
    expect(r.summary).toEqual({ thisChange: 0, alreadyThere: 1, inSync: 0 });
    expect(exit(r)).toBe(0);
    // A change that sets the replicas the sync takes back: this change's (exit 1).
    expect((await planApp({ appFile: appWith('ignored', ignoreReplicas), base, head, at }, deps(live()))).objects[0]!.fields.map((f) => f.verdict)).toContain(
      'conflict',
    );
    const kept = await planApp(
      { appFile: appWith('respect', { ...ignoreReplicas, syncPolicy: { syncOptions: ['RespectIgnoreDifferences=true'] } }), base: head, head, at },
      deps(live()),
    );
    expect(kept.objects).toEqual([]);
    expect(kept.summary).toEqual({ thisChange: 0, alreadyThere: 0, inSync: 1 });
    // ApplyOutOfSyncOnly=true: the object is otherwise in sync, the sync does not apply it.
    const skipped = await planApp(
      { appFile: appWith('out-of-sync-only', { ...ignoreReplicas, syncPolicy: { syncOptions: ['ApplyOutOfSyncOnly=true'] } }), base: head, head, at },
      deps(live()),
    );
    expect(skipped.summary).toEqual({ thisChange: 0, alreadyThere: 0, inSync: 1 });
  });

  test('automated.prune off: what head no longer declares is kept (KEEP with the reason), not pruned, and not counted', async () => {
    const r = await planApp({ appFile: appWith('no-prune', { syncPolicy: { automated: { prune: false } } }), base, head, at }, deps(liveObjects()));
    expect(r.objects.find((o) => o.key.kind === 'ConfigMap')).toEqual({
      key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'settings' },
      apiVersion: 'v1',
      action: 'keep',
      origin: 'this-change',
      fields: [],
      reason: 'not pruned: automated.prune is off: the candidates stay live, OutOfSync',
    });
    // The image alone: this change; the replicas already there.
    expect(r.summary).toEqual({ thisChange: 1, alreadyThere: 1, inSync: 0 });
  });

  test("an object another app tracks is taken over by the sync at head (sharedWith, Argo CD's SharedResourceWarning)", async () => {
    const live = liveObjects().filter((o) => o.kind === 'Deployment');
    live[0]!.metadata.annotations = { [TID]: 'billing:apps/Deployment:shop/web' };
    const r = await planApp({ appFile: appWith('shared', {}), base, head, at }, deps(live));
    expect(r.objects[0]!.sharedWith).toBe('billing');
    expect(r.refused).toBeUndefined();
  });

  describe('hooks, kinds nothing serves, heads that cannot be rendered', () => {
    let repo: GitFixture;
    let first: string;
    let hooked: string;
    let gadget: string;
    let broken: string;
    beforeAll(() => {
      repo = new GitFixture();
      repo.write('app/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: old}\n');
      first = repo.commit('one ConfigMap');
      repo.write(
        'app/migrate.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\n  annotations: {argocd.argoproj.io/hook: PreSync}\ndata: {step: one}\n',
      );
      hooked = repo.commit('a PreSync hook');
      repo.remove('app/migrate.yaml');
      repo.write(
        'app/gadget.yaml',
        'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\n  annotations: {argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true}\n',
      );
      gadget = repo.commit('a Gadget nothing serves');
      repo.remove('app/gadget.yaml');
      repo.write('app/bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad\ndata: {a: 1}\n');
      broken = repo.commit('invalid YAML');
    });
    afterAll(() => repo.cleanup());
    const live = (): KubeObject[] => [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/settings' } },
        data: { mode: 'old' },
      },
    ];

    test('a hook the head adds runs at the next sync: this change (exit 1); the same hook at base is not', async () => {
      const file = appWith('hooks', {}, repo.repo);
      const r = await planApp({ appFile: file, base: first, head: hooked, at }, deps(live()));
      expect(r.hooks).toEqual([{ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'migrate', phases: ['PreSync'], origin: 'this-change' }]);
      expect(r.summary).toEqual({ thisChange: 1, alreadyThere: 0, inSync: 1 });
      expect(exit(r)).toBe(1);
      const same = await planApp({ appFile: file, base: hooked, head: hooked, at }, deps(live()));
      expect(same.hooks).toEqual([{ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'migrate', phases: ['PreSync'] }]);
      expect([same.summary.thisChange, exit(same)]).toEqual([0, 0]);
    });

    test('SkipDryRunOnMissingResource on a kind no CRD defines: the sync at head fails that object (fail, exit 4)', async () => {
      const r = await planApp({ appFile: appWith('gadget', {}, repo.repo), base: first, head: gadget, at }, deps(live()));
      expect(r.objects).toEqual([
        {
          key: { group: 'example.com', kind: 'Gadget', namespace: 'shop', name: 'g1' },
          apiVersion: 'example.com/v1',
          action: 'fail',
          origin: 'this-change',
          fields: [],
          reason:
            'the cluster does not serve Gadget in example.com/v1 and no CustomResourceDefinition defines it: the sync at head applies the rest and fails it (SkipDryRunOnMissingResource skips only its dry-run)',
        },
      ]);
      expect(r.summary.thisChange).toBe(0);
      expect(exit(r)).toBe(4);
    });

    test("a head that cannot be parsed is the app's refusal, naming the file (exit 4), not an error of the whole plan", async () => {
      const r = await planApp({ appFile: appWith('broken', {}, repo.repo), base: first, head: broken, at }, deps(live()));
      expect(r.refused).toMatch(new RegExp(`^the source cannot be rendered at head, so nothing is compared: .*app/bad\\.yaml:\\d+(:\\d+)?: invalid YAML`));
      expect([r.app, r.objects]).toEqual(['shop', []]);
      expect(exit(r)).toBe(4);
      // A revision that names no commit stays an input error (exit 2).
      await expect(planApp({ appFile: appWith('broken', {}, repo.repo), base: first, head: 'no-such-branch', at }, deps(live()))).rejects.toThrow(
        'names no commit',
      );
    });
  });
});

describe("a head's manifests that cannot be read are told from the command's input by the error's type, not its words", () => {
  const at = Date.parse('2026-12-04T12:00:00Z');
  const exit = (apps: PlanAppReport[]) => planExitCode({ schemaVersion: PLAN_SCHEMA_VERSION, at: '', apps });
  let repo: GitFixture;
  let first: string;
  let broken: string;
  let worded: string;
  let dir: string;
  const appFor = (name: string, path: string) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, applicationYaml({ name, spec: { source: { repoURL: repo.repo, path, targetRevision: 'main' }, destination: { namespace: 'shop' } } }));
    return file;
  };
  const live = (): KubeObject[] =>
    ['shop', 'billing'].map((app) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: app, namespace: 'shop', annotations: { [TID]: `${app}:/ConfigMap:shop/${app}` } },
      data: { mode: 'old' },
    }));
  beforeAll(() => {
    repo = new GitFixture();
    repo.write('shop/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop}\ndata: {mode: old}\n');
    repo.write('billing/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: billing}\ndata: {mode: old}\n');
    first = repo.commit('two apps');
    // The change breaks shop's manifests and changes billing's.
    repo.write('shop/bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad\ndata: {a: 1}\n');
    repo.write('billing/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: billing}\ndata: {mode: new}\n');
    broken = repo.commit('shop broken, billing changed');
    // A manifest whose file name reads like an input error: its parse error is the render's all the same.
    repo.remove('shop/bad.yaml');
    repo.write('shop/names no commit.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad\n');
    worded = repo.commit('a file named like an error');
    dir = tempDir('plan-render-errors');
  });
  afterAll(() => repo.cleanup());

  test('a head whose manifest does not parse: that app refused, naming the file (exit 4); the other app still planned', async () => {
    // As `plan shop billing` plans them: one after the other, each app's report its own.
    const apps: PlanAppReport[] = [];
    for (const name of ['shop', 'billing']) apps.push(await planApp({ appFile: appFor(name, name), base: first, head: broken, at }, deps(live())));
    const [shop, billing] = apps;
    expect(shop!.app).toBe('shop');
    expect(shop!.refused).toMatch(/^the source cannot be rendered at head, so nothing is compared: .*shop\/bad\.yaml:\d+(:\d+)?: invalid YAML/);
    expect(shop!.objects).toEqual([]);
    expect([billing!.app, billing!.refused]).toEqual(['billing', undefined]);
    expect(billing!.objects.map((o) => [`${o.key.kind}/${o.key.name}`, o.action, o.origin])).toEqual([['ConfigMap/billing', 'update', 'this-change']]);
    expect(exit(apps)).toBe(4);
  });

  test('a revision that names no commit is an input error of the whole command (exit 2), not a refusal', async () => {
    const err = await planApp({ appFile: appFor('shop', 'shop'), base: first, head: 'no-such-branch', at }, deps(live())).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect(err).not.toBeInstanceOf(ManifestError);
    expect((err as InputError).message).toMatch(/names no commit/);
    expect(exitCodeFor(err)).toBe(ExitCode.Input);
  });

  test("an input error in a render's words (an invalid YAML --project-file) ends the command (exit 2): the type decides, not the message", async () => {
    const projectFile = join(dir, 'project.yaml');
    writeFileSync(projectFile, 'apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: default\n');
    const err = await planApp({ appFile: appFor('billing', 'billing'), projectFile, base: first, head: broken, at }, deps(live())).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect(err).not.toBeInstanceOf(ManifestError);
    expect((err as Error).message).toMatch(/project\.yaml:\d+:\d+: invalid YAML/);
    expect(exitCodeFor(err)).toBe(ExitCode.Input);
  });

  test("a manifest of the head that does not parse is the render's even when its name reads like an input error (refused, exit 4)", async () => {
    const r = await planApp({ appFile: appFor('shop', 'shop'), base: first, head: worded, at }, deps(live()));
    expect(r.refused).toMatch(/^the source cannot be rendered at head, so nothing is compared: .*shop\/names no commit\.yaml:\d+(:\d+)?: invalid YAML/);
    expect(exit([r])).toBe(4);
  });
});
