// `plan` on the local control plane, as the issue asks: a commit changes a Deployment's image and removes a ConfigMap,
// while the Deployment was scaled by hand with `kubectl scale`. The plan says the image is this change, the replicas
// drift already there owned by kubectl, the ConfigMap would be pruned by this change (-o json and -o kv exactly, exit
// 1); a sync at head that a deny window blocks at --at is refused (exit 4); nothing is changed by either. --offline,
// with no cluster at all, compares the head render with the base render only.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { tempDir } from '../support/temp-dir.js';
import { applyYaml, childEnv, createTestNamespace, deleteNamespace, kubectl, kubectlOk, pluginPath, run, runPlugin, kvValues as kv } from './support/index.js';

const T = 180_000;

const deployment = (image: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: "${image}"}]\n`;

describe('plan', () => {
  let fx: GitFixture;
  let ns: string;
  let cp: string;
  let base: string;
  let head: string;
  let appFile: string;
  let context: string;
  let server: string;
  // A deny window that starts on the hour 5 to 6 hours from now and lasts an hour: a sync now is let through.
  const start = Math.floor(Date.now() / 3600_000) * 3600_000 + 6 * 3600_000;
  const schedule = `0 ${new Date(start).getUTCHours()} * * *`;
  const inWindow = new Date(start + 30 * 60_000).toISOString();

  /**
   * The live objects as a plan could change them: uid, generation (the spec), labels, annotations and data: the proof
   * that a plan changed nothing. Not the resourceVersion: the Deployment controller's status writes (the rollout of
   * the scale in beforeAll) move it at any time.
   */
  const versionsIn = (namespace: string, kinds = 'deployments,configmaps') =>
    kubectlOk([
      'get',
      kinds,
      '-n',
      namespace,
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}/{.metadata.uid}/{.metadata.generation}/{.metadata.labels}/{.metadata.annotations}/{.data}/{.spec} {end}',
    ]);
  const versions = () => versionsIn(ns);
  const plan = (...extra: string[]) => runPlugin(['plan', '-f', appFile, '--argocd-namespace', cp, '--base', base, ...extra]);

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/deploy.yaml', deployment('nginx:1.26'));
    fx.write('app/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: old}\n');
    base = fx.commit('base');
    fx.write('app/deploy.yaml', deployment('nginx:1.27'));
    fx.remove('app/cm.yaml');
    head = fx.commit('new image, no settings');
    ns = await createTestNamespace('plan');
    cp = await createTestNamespace('plan-cp');
    await applyYaml(
      `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: frozen, namespace: ${cp}}\nspec:\n  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  syncWindows:\n  - {kind: deny, schedule: '${schedule}', duration: 1h, applications: ['web'], description: release freeze}\n`,
    );
    appFile = join(tempDir('kgitops-plan'), 'app.yaml');
    writeFileSync(
      appFile,
      applicationYaml({
        name: 'web',
        namespace: cp,
        spec: { project: 'frozen', source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) },
      }),
    );
    context = (await kubectlOk(['config', 'current-context'])).trim();
    server = (await kubectlOk(['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}'])).trim();
    // Synced at base, then scaled by hand.
    const synced = await runPlugin(['sync', '-f', appFile, '--argocd-namespace', cp, '--revision', base, '-o', 'kv']);
    expect([synced.code, synced.stderr]).toEqual([0, '']);
    await kubectlOk(['scale', 'deployment', 'web', '-n', ns, '--replicas', '3']);
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
    if (cp) await deleteNamespace(cp);
  }, T);

  test(
    'the image is this change, the replicas already there owned by kubectl, the ConfigMap pruned by this change (-o json, -o kv; exit 1); nothing changes',
    async () => {
      const before = await versions();
      const res = await plan('--head', head, '-o', 'json');
      expect([res.code, res.stderr]).toEqual([1, '']);
      const doc = JSON.parse(res.stdout);
      // The time of our apply is the sync's: checked for its form, then left out of the exact comparison.
      const owners = doc.apps[0].objects[0].fields[1].owners;
      expect(owners[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      delete owners[0].time;
      expect(Date.parse(doc.at)).toBeGreaterThan(Date.now() - 120_000);
      expect(doc).toEqual({
        schemaVersion: 1,
        at: doc.at,
        apps: [
          {
            app: 'web',
            context,
            server,
            base,
            head,
            sync: 'manual',
            prune: { enabled: true, why: 'a manual sync with --prune' },
            objects: [
              {
                group: 'apps',
                kind: 'Deployment',
                namespace: ns,
                name: 'web',
                apiVersion: 'apps/v1',
                action: 'update',
                origin: 'this-change',
                wave: 0,
                fields: [
                  {
                    path: 'spec.replicas',
                    pointer: '/spec/replicas',
                    origin: 'already-there',
                    verdict: 'conflict',
                    base: 1,
                    desired: 1,
                    live: 3,
                    owners: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', subresource: 'scale' }],
                  },
                  {
                    path: 'spec.template.spec.containers[name=web].image',
                    pointer: '/spec/template/spec/containers/0/image',
                    origin: 'this-change',
                    verdict: 'drift',
                    base: 'nginx:1.26',
                    desired: 'nginx:1.27',
                    live: 'nginx:1.26',
                    owners: [{ manager: 'argocd-controller', operation: 'Apply', apiVersion: 'apps/v1' }],
                  },
                ],
              },
              { group: '', kind: 'ConfigMap', namespace: ns, name: 'settings', apiVersion: 'v1', action: 'prune', origin: 'this-change', fields: [] },
            ],
            hooks: [],
            summary: { thisChange: 2, alreadyThere: 1, inSync: 0 },
            warnings: [],
          },
        ],
      });

      // Without --head: the Application's targetRevision (main, the head commit); the same plan as kv lines.
      const kvRes = await plan('-o', 'kv');
      expect([kvRes.code, kvRes.stderr]).toEqual([1, '']);
      expect(kvRes.stdout).toBe(
        [
          'APP=web',
          `BASE=${base}`,
          `HEAD=${head}`,
          'DRIFT=Deployment/web spec.replicas',
          'OWNER=Deployment/web spec.replicas kubectl',
          'CHANGE=Deployment/web spec.template.spec.containers[name=web].image',
          'PRUNE=ConfigMap/settings this-change',
          'THIS_CHANGE=2',
          'ALREADY_THERE=1',
          'IN_SYNC=0',
          '',
        ].join('\n'),
      );
      expect(await versions()).toBe(before);
    },
    T,
  );

  test(
    'a sync at head that a deny window blocks at --at is refused (exit 4), the window named; the changes are still listed',
    async () => {
      const before = await versions();
      const res = await plan('--at', inWindow, '-o', 'kv');
      expect([res.code, res.stderr]).toEqual([4, '']);
      const lines = kv(res.stdout);
      expect(lines.REFUSED).toEqual([
        `project frozen: sync blocked by the active deny window syncWindows[0] deny "${schedule}" for 1h UTC (applications web): release freeze; it opens at ${new Date(start + 3600_000).toISOString()}`,
      ]);
      expect(lines.CHANGE).toEqual(['Deployment/web spec.template.spec.containers[name=web].image']);
      expect(lines.PRUNE).toEqual(['ConfigMap/settings this-change']);
      const md = await plan('--at', inWindow, '-o', 'markdown');
      expect(md.code).toBe(4);
      expect(md.stdout).toContain(
        `| web | \`${base.slice(0, 7)}\` | \`${head.slice(0, 7)}\` | 2 | 1 | 0 | refused: project frozen: sync blocked by the active deny window`,
      );
      expect(await versions()).toBe(before);
    },
    T,
  );

  test(
    'what the sync at head writes beyond the comparison: an ignored field without RespectIgnoreDifferences is taken back (counted, its owner named); automated.prune off keeps what head drops (KEEP=, not PRUNE=)',
    async () => {
      const before = await versions();
      const withSpec = (name: string, extra: Record<string, unknown>) => {
        const file = join(tempDir(`kgitops-plan-${name}`), 'app.yaml');
        writeFileSync(
          file,
          applicationYaml({
            name: 'web',
            namespace: cp,
            spec: { project: 'frozen', source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns), ...extra },
          }),
        );
        return file;
      };
      const ignore = { ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }] };
      const planOf = (file: string, from: string, to: string) =>
        runPlugin(['plan', '-f', file, '--argocd-namespace', cp, '--base', from, '--head', to, '-o', 'kv']);
      // base = head: the sync at head applies the Deployment whole and takes the replicas back from kubectl (already there, exit 0).
      const taken = await planOf(withSpec('ignored', ignore), head, head);
      expect([taken.code, taken.stderr]).toEqual([0, '']);
      expect(taken.stdout).toBe(
        [
          'APP=web',
          `BASE=${head}`,
          `HEAD=${head}`,
          'DRIFT=Deployment/web spec.replicas',
          'OWNER=Deployment/web spec.replicas kubectl',
          'DRIFT=Deployment/web spec.template.spec.containers[name=web].image',
          'PRUNE=ConfigMap/settings already-there',
          'THIS_CHANGE=0',
          'ALREADY_THERE=3',
          'IN_SYNC=0',
          '',
        ].join('\n'),
      );
      // RespectIgnoreDifferences=true: the replicas stay as kubectl set them.
      const kept = await planOf(withSpec('respect', { ...ignore, syncPolicy: { syncOptions: ['RespectIgnoreDifferences=true'] } }), head, head);
      expect([kept.code, kv(kept.stdout).DRIFT, kv(kept.stdout).ALREADY_THERE]).toEqual([
        0,
        ['Deployment/web spec.template.spec.containers[name=web].image'],
        ['2'],
      ]);
      // An automated sync without prune: the ConfigMap head drops stays (KEEP=, not counted); the image alone is this change.
      const noPrune = await planOf(withSpec('no-prune', { syncPolicy: { automated: { prune: false } } }), base, head);
      expect([noPrune.code, noPrune.stderr]).toEqual([1, '']);
      const lines = kv(noPrune.stdout);
      expect([lines.PRUNE, lines.KEEP, lines.THIS_CHANGE]).toEqual([
        undefined,
        ['ConfigMap/settings this-change not pruned: automated.prune is off: the candidates stay live, OutOfSync'],
        ['1'],
      ]);
      expect(await versions()).toBe(before);
    },
    T,
  );

  test(
    '--offline, with no kubeconfig at all: the head render against the base render, every difference this change (exit 1)',
    async () => {
      const res = await run(
        pluginPath,
        ['plan', '-f', appFile, '--offline', '--base', base, '--head', head, '--kube-version', '1.35.0', '--api-versions', 'v1', '-o', 'kv'],
        { env: { ...childEnv(), KUBECONFIG: '/nonexistent/kubeconfig' } },
      );
      // The AppProject is the cluster's: offline, Argo CD's default is checked instead, and that is said.
      expect(res.stderr).toBe(
        "warning: the cluster does not serve AppProjects (no Argo CD CRD): project frozen is unknown and Argo CD's default project is used (give --project-file)\n",
      );
      expect(res.code).toBe(1);
      expect(res.stdout).toBe(
        [
          'OFFLINE=true',
          'APP=web',
          `BASE=${base}`,
          `HEAD=${head}`,
          'CHANGE=Deployment/web spec.template.spec.containers[name=web].image',
          'PRUNE=ConfigMap/settings this-change',
          'THIS_CHANGE=2',
          'ALREADY_THERE=0',
          'IN_SYNC=0',
          '',
        ].join('\n'),
      );
    },
    T,
  );

  test(
    '--all -A -l --repo: the apps that follow the base branch of the repository are planned, the others left out with the reason',
    async () => {
      // A pull request from pr-1 (the head commit) into release (the base commit).
      fx.git(['branch', '-f', 'release', base]);
      fx.git(['branch', '-f', 'pr-1', head]);
      const appsA = await createTestNamespace('plan-all-a');
      const appsB = await createTestNamespace('plan-all-b');
      const dest = await createTestNamespace('plan-all-dest');
      const destMulti = await createTestNamespace('plan-all-multi');
      const label = { 'kgitops.test/plan-all': appsA };
      try {
        const app = (name: string, namespace: string, repoURL: string, targetRevision: string) =>
          applicationYaml({ name, namespace, labels: label, spec: { source: { repoURL, path: 'app', targetRevision }, destination: inCluster(dest) } });
        await applyYaml(
          [
            app('web-a', appsA, fx.repo, 'release'),
            app('pinned', appsA, fx.repo, base),
            app('elsewhere', appsB, 'https://git.invalid/org/other.git', 'release'),
            // Several sources: the one that follows release moves to pr-1; the values source pinned to the base commit stays.
            applicationYaml({
              name: 'multi',
              namespace: appsA,
              labels: label,
              spec: {
                sources: [
                  { repoURL: fx.repo, path: 'app', targetRevision: 'release' },
                  { repoURL: fx.repo, targetRevision: base, ref: 'values' },
                ],
                destination: inCluster(destMulti),
              },
            }),
          ].join('---\n'),
        );
        const synced = await runPlugin(['sync', 'web-a', '--app-namespace', appsA, '-o', 'kv']);
        expect([synced.code, synced.stderr]).toEqual([0, '']);
        const before = await versionsIn(dest);
        const res = await runPlugin([
          'plan',
          '--all',
          '-A',
          '-l',
          `kgitops.test/plan-all=${appsA}`,
          '--repo',
          `${fx.repo}/`,
          '--base',
          'release',
          '--head',
          'pr-1',
          '-o',
          'kv',
        ]);
        expect([res.code, res.stderr]).toEqual([1, '']);
        expect(res.stdout).toBe(
          [
            // Never synced: its Deployment is created either way (the base declared it too: already there).
            `APP=${appsA}/multi`,
            `BASE=${base}`,
            `HEAD=${head}`,
            `SOURCE=1 ${fx.repo} ${base} ${head}`,
            'CREATE=Deployment/web already-there',
            'THIS_CHANGE=0',
            'ALREADY_THERE=1',
            'IN_SYNC=0',
            `APP=${appsA}/web-a`,
            `BASE=${base}`,
            `HEAD=${head}`,
            'CHANGE=Deployment/web spec.template.spec.containers[name=web].image',
            'PRUNE=ConfigMap/settings this-change',
            'THIS_CHANGE=2',
            'ALREADY_THERE=0',
            'IN_SYNC=0',
            `SKIPPED=${appsA}/pinned it follows ${base}, not release`,
            `SKIPPED=${appsB}/elsewhere its source is another repository (https://git.invalid/org/other.git)`,
            '',
          ].join('\n'),
        );
        // Without -A only --app-namespace's Applications are listed; the JSON names each app's namespace.
        const one = await runPlugin(['plan', '--all', '--app-namespace', appsA, '--repo', fx.repo, '--base', 'release', '--head', 'pr-1', '-o', 'json']);
        expect(one.code).toBe(1);
        const doc = JSON.parse(one.stdout);
        expect(doc.apps.map((a: { namespace: string; app: string }) => `${a.namespace}/${a.app}`)).toEqual([`${appsA}/multi`, `${appsA}/web-a`]);
        expect(doc.apps[0].sources).toEqual([{ position: 1, repoURL: fx.repo, path: 'app', base, head }]);
        expect(doc.skipped).toEqual([{ namespace: appsA, name: 'pinned', reason: `it follows ${base}, not release` }]);
        // A base nothing follows: nothing to plan, exit 0.
        const none = await runPlugin(['plan', '--all', '--app-namespace', appsA, '--base', 'no-such-branch']);
        expect(none.code).toBe(0);
        expect(none.stdout).toContain('No Application follows the base revision: nothing to plan.');
        expect(await versionsIn(dest)).toBe(before);
        // --all with an Application named is a usage error.
        expect((await runPlugin(['plan', 'web-a', '--all', '--base', 'release'])).code).toBe(2);
      } finally {
        await Promise.all([deleteNamespace(appsA), deleteNamespace(appsB), deleteNamespace(dest), deleteNamespace(destMulti)]);
      }
    },
    T,
  );

  test(
    '-f appset.yaml: its apps generated at base and at head: one changed, one that appears, one that disappears with its objects (exit 1); --base-app-file: the file as it was at base',
    async () => {
      // Runs last: it moves main, which the tests above plan as their default head.
      const cm = (name: string, v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {v: "${v}"}\n`;
      fx.write('sets/a/cm.yaml', cm('set-a', '1'));
      fx.write('sets/b/cm.yaml', cm('set-b', '1'));
      const setsBase = fx.commit('sets a and b');
      fx.git(['branch', '-f', 'sets-base', setsBase]);
      fx.write('sets/a/cm.yaml', cm('set-a', '2'));
      fx.remove('sets/b/cm.yaml');
      fx.write('sets/c/cm.yaml', cm('set-c', '1'));
      const setsHead = fx.commit('a changed, b gone, c new');
      fx.git(['branch', '-f', 'sets-pr', setsHead]);
      const appsNs = await createTestNamespace('plan-appset');
      const dest = await createTestNamespace('plan-appset-dest');
      try {
        const appSet = [
          'apiVersion: argoproj.io/v1alpha1',
          'kind: ApplicationSet',
          `metadata: {name: sets, namespace: ${appsNs}}`,
          'spec:',
          `  generators: [{git: {repoURL: "${fx.repo}", revision: sets-base, directories: [{path: "sets/*"}]}}]`,
          '  template:',
          "    metadata: {name: '{{path.basename}}-set'}",
          '    spec:',
          '      project: default',
          `      source: {repoURL: "${fx.repo}", path: '{{path}}', targetRevision: sets-base}`,
          `      destination: {server: https://kubernetes.default.svc, namespace: ${dest}}`,
          '',
        ].join('\n');
        const file = join(tempDir('kgitops-plan-appset'), 'appset.yaml');
        writeFileSync(file, appSet);
        // The apps at base are live: the ApplicationSet written and its Applications synced.
        await applyYaml(appSet);
        const synced = await runPlugin(['appset', 'sync', 'sets', '--app-namespace', appsNs, '--recursive', '-o', 'kv']);
        expect([synced.code, synced.stderr]).toEqual([0, '']);
        const live = async () => [await versionsIn(dest, 'configmaps'), await versionsIn(appsNs, 'applications.argoproj.io')];
        const before = await live();
        const planSet = (...extra: string[]) =>
          runPlugin(['plan', '-f', file, '--app-namespace', appsNs, '--base', 'sets-base', '--head', 'sets-pr', ...extra]);
        const res = await planSet('-o', 'kv');
        expect([res.code, res.stderr]).toEqual([1, '']);
        expect(res.stdout).toBe(
          [
            `APPLICATION_SET=${appsNs}/sets`,
            `APP=${appsNs}/a-set`,
            `BASE=${setsBase}`,
            `HEAD=${setsHead}`,
            'CHANGE=ConfigMap/set-a data.v',
            'THIS_CHANGE=1',
            'ALREADY_THERE=0',
            'IN_SYNC=0',
            `APP=${appsNs}/c-set`,
            'BASE=sets-base',
            `HEAD=${setsHead}`,
            'PRESENCE=appears',
            'CREATE=ConfigMap/set-c this-change',
            'THIS_CHANGE=1',
            'ALREADY_THERE=0',
            'IN_SYNC=0',
            `APP=${appsNs}/b-set`,
            'BASE=sets-base',
            'HEAD=sets-pr',
            'PRESENCE=disappears',
            'PRESENCE_NOTE=no longer generated at head: the ApplicationSet controller deletes the Application, and its resources finalizer deletes its objects',
            'PRUNE=ConfigMap/set-b this-change',
            'THIS_CHANGE=2',
            'ALREADY_THERE=0',
            'IN_SYNC=0',
            '',
          ].join('\n'),
        );
        const md = await planSet('-o', 'markdown');
        expect(md.stdout).toContain(`| ${appsNs}/c-set | \`sets-base\` | \`${setsHead.slice(0, 7)}\` | 1 | 0 | 0 | appears: changes live objects |`);
        // The pull request edits the ApplicationSet file itself: at base it left sets/a out, at head it no longer does. With
        // the file as it was at base (--base-app-file), a-set appears (its ConfigMap's change is this change's).
        const baseFile = join(tempDir('kgitops-plan-appset-base'), 'appset.yaml');
        writeFileSync(baseFile, appSet.replace('directories: [{path: "sets/*"}]', 'directories: [{path: "sets/*"}, {path: sets/a, exclude: true}]'));
        const appears = (app: string, change: string) => [
          `APP=${appsNs}/${app}`,
          'BASE=sets-base',
          `HEAD=${setsHead}`,
          'PRESENCE=appears',
          change,
          'THIS_CHANGE=1',
          'ALREADY_THERE=0',
          'IN_SYNC=0',
        ];
        const edited = await planSet('--base-app-file', baseFile, '-o', 'kv');
        expect([edited.code, edited.stderr]).toEqual([1, '']);
        const lines = res.stdout.split('\n');
        expect(edited.stdout).toBe(
          [
            `APPLICATION_SET=${appsNs}/sets`,
            ...appears('a-set', 'CHANGE=ConfigMap/set-a data.v'),
            ...appears('c-set', 'CREATE=ConfigMap/set-c this-change'),
            ...lines.slice(lines.indexOf(`APP=${appsNs}/b-set`)),
          ].join('\n'),
        );
        // The pull request adds the ApplicationSet file (/dev/null at base: nothing generated there): each app at head appears.
        const added = await planSet('--base-app-file', '/dev/null', '-o', 'kv');
        expect([added.code, added.stderr]).toEqual([1, '']);
        expect(added.stdout).toBe(
          [
            `APPLICATION_SET=${appsNs}/sets`,
            ...appears('a-set', 'CHANGE=ConfigMap/set-a data.v'),
            ...appears('c-set', 'CREATE=ConfigMap/set-c this-change'),
            '',
          ].join('\n'),
        );
        // Nothing changed, and without --head the plan of an ApplicationSet is refused as a usage error.
        expect(await live()).toEqual(before);
        expect((await runPlugin(['plan', '-f', file, '--app-namespace', appsNs, '--base', 'sets-base'])).code).toBe(2);
      } finally {
        await kubectl(['delete', 'applications', '--all', '-n', appsNs, '--wait=false']);
        await kubectl(['patch', 'applications', 'a-set', 'b-set', '-n', appsNs, '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
        await Promise.all([deleteNamespace(appsNs), deleteNamespace(dest)]);
      }
    },
    T,
  );
});
