// App-of-apps (issue #32): `sync ROOT --recursive` syncs the child Applications the parent applied, wave by wave,
// each wave waiting for its children's freshly computed sync status and health; a Degraded child of the first wave
// stops the walk before the second (exit 3); an Application that renders itself is refused (exit 4); a child whose
// destination no kubeconfig context reaches is refused through its own destination resolution (exit 4).
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, runPlugin } from './support/index.js';

const TIMEOUT = 240_000;

interface Child {
  namespace: string;
  name: string;
  wave: number;
  outcome: string;
  sync?: string;
  health?: string;
  message?: string;
}

interface AppObject {
  status?: { sync?: { status?: string }; health?: { status?: string }; operationState?: { phase: string; startedAt: string; finishedAt: string } };
}

describe('app-of-apps: sync --recursive', () => {
  let fx: GitFixture;
  let ns: string;

  const child = (name: string, path: string, wave: number) =>
    applicationYaml({ name, namespace: ns, spec: { source: { repoURL: fx.repo, path, targetRevision: 'main' }, destination: inCluster(ns) } }).replace(
      /^metadata:\n/m,
      `metadata:\n  annotations: {argocd.argoproj.io/sync-wave: "${wave}"}\n`,
    );
  const root = (name: string, path: string) =>
    applicationYaml({ name, namespace: ns, spec: { source: { repoURL: fx.repo, path, targetRevision: 'main' }, destination: inCluster(ns) } });
  const getApp = async (name: string) => JSON.parse(await kubectlOk(['get', 'application', name, '-n', ns, '-o', 'json'])) as AppObject;
  const sync = (name: string) => runPlugin(['sync', name, '--recursive', '--app-namespace', ns, '--timeout', '90s', '-o', 'json']);

  beforeAll(async () => {
    fx = new GitFixture();
    ns = await createTestNamespace('app-of-apps');
    for (const c of ['a', 'b', 'c', 'd', 'e'])
      fx.write(`children/${c}/cm.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: child-${c}}\ndata: {v: "1"}\n`);
    fx.write(
      'children/failing/job.yaml',
      `apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  backoffLimit: 0
  template:
    metadata: {labels: {kgitops.test/kwok-fate: fail}}
    spec: {restartPolicy: Never, containers: [{name: run, image: registry.local/job:1}]}
`,
    );
    // Three children in two waves; the bad root's first-wave child runs a Job that fails (its others deploy objects of their own).
    fx.write('root/apps.yaml', [child('good-a', 'children/a', 0), child('good-b', 'children/b', 1), child('good-c', 'children/c', 1)].join('---\n'));
    fx.write('root-bad/apps.yaml', [child('bad-a', 'children/failing', 0), child('bad-b', 'children/d', 1), child('bad-c', 'children/e', 1)].join('---\n'));
    fx.write('loop/self.yaml', root('loop', 'loop'));
    // A child whose destination no kubeconfig context reaches, before an in-cluster one.
    fx.write('children/far/cm.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: child-far}\ndata: {v: "1"}\n`);
    fx.write(
      'root-far/apps.yaml',
      [
        applicationYaml({
          name: 'far',
          namespace: ns,
          spec: {
            source: { repoURL: fx.repo, path: 'children/far', targetRevision: 'main' },
            destination: { server: 'https://kubernetes.invalid:6443', namespace: ns },
          },
        }),
        child('near', 'children/e', 1),
      ].join('---\n'),
    );
    fx.commit('app of apps');
    await applyYaml([root('good', 'root'), root('bad', 'root-bad'), root('loop', 'loop'), root('remote', 'root-far')].join('---\n'));
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'three children in two waves, all healthy: each synced and recorded, the second wave started after the first one finished',
    async () => {
      const res = await runPlugin(['sync', 'good', '--recursive', '--app-namespace', ns, '--timeout', '90s', '-o', 'json', '-v']);
      expect(res.code).toBe(0);
      // -v: the children were synced and polled through one pool with one watch-fed cache, whose cost is said once.
      expect(res.stderr.match(/^sync --recursive: .*$/gm)).toEqual([
        expect.stringMatching(
          /^sync --recursive: \d+ API requests, \d+ retried, in \d+ ms, for 3 Applications from one watch-fed cache per cluster \(1 cluster, /,
        ),
      ]);
      const report = JSON.parse(res.stdout) as { children: Child[]; childrenStopped?: string };
      expect(report.childrenStopped).toBeUndefined();
      expect(report.children.map((c) => [c.name, c.wave, c.outcome, c.sync, c.health])).toEqual([
        ['good-a', 0, 'synced', 'Synced', 'Healthy'],
        ['good-b', 1, 'synced', 'Synced', 'Healthy'],
        ['good-c', 1, 'synced', 'Synced', 'Healthy'],
      ]);
      for (const c of ['a', 'b', 'c']) expect(JSON.parse(await kubectlOk(['get', 'configmap', `child-${c}`, '-n', ns, '-o', 'json'])).data).toEqual({ v: '1' });
      // The API server's record of each child's sync: wave 1 started once wave 0 had finished.
      const ops = Object.fromEntries(
        await Promise.all(['good-a', 'good-b', 'good-c'].map(async (n) => [n, (await getApp(n)).status?.operationState] as const)),
      );
      for (const op of Object.values(ops)) expect(op?.phase).toBe('Succeeded');
      expect(Date.parse(ops['good-b']!.startedAt)).toBeGreaterThanOrEqual(Date.parse(ops['good-a']!.finishedAt));
      expect(Date.parse(ops['good-c']!.startedAt)).toBeGreaterThanOrEqual(Date.parse(ops['good-a']!.finishedAt));
      const kv = await runPlugin(['sync', 'good', '--recursive', '--app-namespace', ns, '-o', 'kv']);
      expect(kv.code).toBe(0);
      expect(kv.stdout).toContain(`CHILD=${ns}/good-a 1 0 synced Synced Healthy\nCHILD=${ns}/good-b 1 1 synced Synced Healthy\n`);

      // status --recursive compares each child afresh: a change by hand in one child shows there, not in the stored status.
      await kubectlOk(['patch', 'configmap', 'child-b', '-n', ns, '--type', 'merge', '-p', '{"data":{"v":"by hand"}}']);
      const status = await runPlugin(['status', 'good', '--recursive', '--no-record', '--app-namespace', ns, '-o', 'json']);
      expect(status.code).toBe(0);
      const children = (JSON.parse(status.stdout) as { children: { name: string; sync: string; health: string }[] }).children;
      expect(children.map((c) => [c.name, c.sync, c.health])).toEqual([
        ['good-a', 'Synced', 'Healthy'],
        ['good-b', 'OutOfSync', 'Healthy'],
        ['good-c', 'Synced', 'Healthy'],
      ]);
      expect((await getApp('good-b')).status?.sync?.status).toBe('Synced');
      // status --tree --recursive: each child Application is a node with its own live verdict, its objects under it.
      const tree = await runPlugin(['status', 'good', '--recursive', '--tree', '--no-record', '--app-namespace', ns]);
      expect(tree.code).toBe(0);
      const rows = tree.stdout
        .split('\n')
        .filter((l) => /^(KIND\/NAME|Application\/|└─ |├─ )/.test(l))
        .map((l) => l.trimEnd().split(/\s{2,}/));
      expect(rows).toEqual([
        ['KIND/NAME', 'STATUS', 'HEALTH', 'MESSAGE'],
        ['Application/good-a', 'Synced', 'Healthy', 'application Synced'],
        ['└─ ConfigMap/child-a', 'Synced', '-'],
        ['Application/good-b', 'Synced', 'Healthy', 'application OutOfSync'],
        ['└─ ConfigMap/child-b', 'OutOfSync', '-', 'drifted (1 field)'],
        ['Application/good-c', 'Synced', 'Healthy', 'application Synced'],
        ['└─ ConfigMap/child-c', 'Synced', '-'],
      ]);
      expect(tree.stdout).not.toContain('Child Applications (compared live):');
      // diff --recursive: the parent itself is in sync, a child is not: exit 1, the child named.
      const diff = await runPlugin(['diff', 'good', '--recursive', '--app-namespace', ns, '-o', 'kv']);
      expect({ code: diff.code, lines: diff.stdout.split('\n').filter((l) => /^(SYNC|CHILD)=/.test(l)) }).toEqual({
        code: 1,
        lines: ['SYNC=Synced', `CHILD=${ns}/good-a 1 Synced Healthy`, `CHILD=${ns}/good-b 1 OutOfSync Healthy`, `CHILD=${ns}/good-c 1 Synced Healthy`],
      });
      expect((await runPlugin(['diff', 'good', '--app-namespace', ns, '-o', 'kv'])).code).toBe(0);
    },
    TIMEOUT,
  );

  test(
    "a Degraded child in the first wave: the second wave's children are not synced, exit 3, and the reason is said",
    async () => {
      const res = await sync('bad');
      expect(res.code).toBe(3);
      const report = JSON.parse(res.stdout) as { children: Child[]; childrenStopped?: string };
      expect(report.children.map((c) => [c.name, c.outcome, c.health ?? '-'])).toEqual([
        ['bad-a', 'unhealthy', 'Degraded'],
        ['bad-b', 'not-synced', '-'],
        ['bad-c', 'not-synced', '-'],
      ]);
      expect(report.childrenStopped).toMatch(new RegExp(`^child Application ${ns}/bad-a \\(wave 0\\) is Synced and Degraded: `));
      // bad-b and bad-c exist (the parent applied them) but were never synced.
      for (const n of ['bad-b', 'bad-c']) expect((await getApp(n)).status?.operationState).toBeUndefined();
      for (const cm of ['child-d', 'child-e']) expect((await kubectl(['get', 'configmap', cm, '-n', ns])).stderr).toContain('NotFound');
      expect((await getApp('bad-a')).status?.operationState?.phase).toBe('Succeeded');
      const table = await runPlugin(['sync', 'bad', '--recursive', '--app-namespace', ns, '--timeout', '90s']);
      expect(table.code).toBe(3);
      expect(table.stdout).toMatch(/^CHILD APPLICATION\s+WAVE\s+RESULT\s+SYNC\s+HEALTH\s+MESSAGE$/m);
      expect(table.stdout).toMatch(/^INCOMPLETE: .*; child Applications: 0 synced, 1 failed, 2 not synced$/m);
      const status = await runPlugin(['status', 'bad', '--recursive', '--no-record', '--app-namespace', ns, '-o', 'kv']);
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(new RegExp(`^CHILD=${ns}/bad-a 1 Synced Degraded\nCHILD_REASON=${ns}/bad-a Job/migrate`, 'm'));
      // Never synced: its ConfigMap is missing (OutOfSync), which does not count in its health (setApplicationHealth).
      expect(status.stdout).toContain(`CHILD=${ns}/bad-b 1 OutOfSync Healthy\n`);
    },
    TIMEOUT,
  );

  test(
    "a child Application outside the parent's destination namespace, removed from the parent's render, is pruned: the scan covers the namespaces status.resources records",
    async () => {
      const dest = await createTestNamespace('aoa-dest');
      try {
        const parent = applicationYaml({
          name: 'elsewhere',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'root-elsewhere', targetRevision: 'main' }, destination: inCluster(dest) },
        });
        fx.write('children/elsewhere/cm.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: child-elsewhere}\ndata: {v: "1"}\n`);
        fx.write('root-elsewhere/apps.yaml', child('moved-away', 'children/elsewhere', 0));
        fx.write('root-elsewhere/cm.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: parent-own}\ndata: {v: "1"}\n`);
        fx.commit('a parent whose child lives outside its destination namespace');
        await applyYaml(parent);
        const first = await sync('elsewhere');
        expect(first.code).toBe(0);
        expect((JSON.parse(first.stdout) as { children: Child[] }).children.map((c) => [c.name, c.outcome])).toEqual([['moved-away', 'synced']]);
        expect(JSON.parse(await kubectlOk(['get', 'application', 'elsewhere', '-n', ns, '-o', 'json'])).status.resources).toEqual(
          expect.arrayContaining([expect.objectContaining({ kind: 'Application', namespace: ns, name: 'moved-away' })]),
        );
        // The child leaves the render; the parent's only desired object is in its destination namespace.
        fx.remove('root-elsewhere/apps.yaml');
        fx.commit('the child leaves the parent');
        const diff = await runPlugin(['diff', 'elsewhere', '--app-namespace', ns, '-o', 'kv']);
        expect(diff.stdout.split('\n')).toContain('EXTRA=Application/moved-away');
        const pruned = await runPlugin(['sync', 'elsewhere', '--prune', '--app-namespace', ns, '--timeout', '90s', '-o', 'kv']);
        expect(pruned.code).toBe(0);
        expect(pruned.stdout).toMatch(/^PRUNED=Application\/moved-away/m);
        expect((await kubectl(['get', 'application', 'moved-away', '-n', ns])).stderr).toContain('NotFound');
        expect(JSON.parse(await kubectlOk(['get', 'configmap', 'parent-own', '-n', dest, '-o', 'json'])).data).toEqual({ v: '1' });
      } finally {
        await deleteNamespace(dest);
      }
    },
    TIMEOUT,
  );

  test(
    'an Application that renders itself is refused before any child sync (exit 4)',
    async () => {
      const res = await sync('loop');
      expect(res.code).toBe(4);
      const report = JSON.parse(res.stdout) as { children: Child[]; childrenStopped?: string };
      expect(report.children.map((c) => [c.name, c.outcome])).toEqual([['loop', 'not-synced']]);
      expect(report.childrenStopped).toBe(
        `refusing to sync the child Applications of ${ns}/loop: ${ns}/loop is its own ancestor (${ns}/loop -> ${ns}/loop); none of them was synced`,
      );
    },
    TIMEOUT,
  );

  test(
    'a child goes through its own destination resolution: one whose cluster no kubeconfig context reaches is refused (exit 4), nothing of it applied, the next wave not synced',
    async () => {
      const res = await sync('remote');
      expect(res.code).toBe(4);
      const report = JSON.parse(res.stdout) as { children: Child[]; childrenStopped?: string };
      expect(report.children.map((c) => [c.name, c.outcome])).toEqual([
        ['far', 'refused'],
        ['near', 'not-synced'],
      ]);
      expect(report.children[0]!.message).toContain('https://kubernetes.invalid:6443');
      expect(report.childrenStopped).toMatch(new RegExp(`^child Application ${ns}/far \\(wave 0\\) was refused: `));
      expect((await kubectl(['get', 'configmap', 'child-far', '-n', ns])).stderr).toContain('NotFound');
      // status --recursive names the same refusal for that child.
      const status = await runPlugin(['status', 'remote', '--recursive', '--no-record', '--app-namespace', ns, '-o', 'kv']);
      expect(status.stdout).toMatch(new RegExp(`^CHILD=${ns}/far 1 Unknown Unknown\nCHILD_ERROR=${ns}/far .*https://kubernetes\\.invalid:6443`, 'm'));
    },
    TIMEOUT,
  );
});

describe('app-of-apps: plan --recursive', () => {
  let fx: GitFixture;
  let ns: string;
  let base: string;
  let head: string;

  const child = (name: string, path: string, targetRevision: string, finalizer = false) =>
    applicationYaml({
      name,
      namespace: ns,
      ...(finalizer ? { finalizers: ['resources-finalizer.argocd.argoproj.io'] } : {}),
      spec: { source: { repoURL: fx.repo, path, targetRevision }, destination: inCluster(ns) },
    });
  const rootApp = (name: string, path: string) =>
    applicationYaml({ name, namespace: ns, spec: { source: { repoURL: fx.repo, path, targetRevision: 'release' }, destination: inCluster(ns) } });
  const cm = (name: string, v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {v: "${v}"}\n`;

  beforeAll(async () => {
    fx = new GitFixture();
    ns = await createTestNamespace('plan-recursive');
    // At base (branch release, tag v1): a root rendering three children, one of them pinned to the tag.
    for (const k of ['a', 'b', 'pin']) fx.write(`kids/${k}/cm.yaml`, cm(`kid-${k}`, '1'));
    // And an ApplicationSet: one Application per folder of sets/ (its git generator reads release).
    const appSet = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: ApplicationSet',
      `metadata: {name: pset, namespace: ${ns}}`,
      'spec:',
      `  generators: [{git: {repoURL: "${fx.repo}", revision: release, directories: [{path: "sets/*"}]}}]`,
      '  template:',
      `    metadata: {name: '{{path.basename}}-gen', namespace: ${ns}}`,
      '    spec:',
      '      project: default',
      `      source: {repoURL: "${fx.repo}", path: '{{path}}', targetRevision: release}`,
      `      destination: {server: https://kubernetes.default.svc, namespace: ${ns}}`,
      '',
    ].join('\n');
    fx.write('sets/x/cm.yaml', cm('gen-x', '1'));
    fx.write(
      'root/apps.yaml',
      [child('p-a', 'kids/a', 'release'), child('p-b', 'kids/b', 'release', true), child('p-pin', 'kids/pin', 'v1'), appSet].join('---\n'),
    );
    // An app that renders itself.
    fx.write('loop/self.yaml', rootApp('ploop', 'loop'));
    base = fx.commit('base');
    fx.git(['branch', '-f', 'release', base]);
    fx.git(['tag', 'v1', base]);
    // The pull request (pr-1): kid-a's value changes, so does the pinned child's file (which it does not follow),
    // p-b is no longer rendered and p-c is new.
    fx.write('kids/a/cm.yaml', cm('kid-a', '2'));
    fx.write('kids/pin/cm.yaml', cm('kid-pin', '2'));
    fx.write('kids/c/cm.yaml', cm('kid-c', '1'));
    fx.write('sets/y/cm.yaml', cm('gen-y', '1'));
    fx.write('root/apps.yaml', [child('p-a', 'kids/a', 'release'), child('p-pin', 'kids/pin', 'v1'), child('p-c', 'kids/c', 'release'), appSet].join('---\n'));
    head = fx.commit('head');
    fx.git(['branch', '-f', 'pr-1', head]);
    await applyYaml([rootApp('proot', 'root'), rootApp('ploop', 'loop')].join('---\n'));
    const synced = await runPlugin(['sync', 'proot', '--recursive', '--app-namespace', ns, '--timeout', '90s', '-o', 'kv']);
    expect(synced.code).toBe(0);
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'the root and each child it renders at base or head: a changed child, a pinned one left alone, one that appears, one that disappears with its objects; nothing changes',
    async () => {
      const versions = () =>
        kubectlOk(['get', 'configmaps,applications', '-n', ns, '-o', 'jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}']);
      const before = await versions();
      const res = await runPlugin(['plan', 'proot', '--recursive', '--app-namespace', ns, '--base', 'release', '--head', 'pr-1', '-o', 'kv']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(1);
      const kid = (name: string) => `${ns}/${name}`;
      expect(res.stdout).toBe(
        [
          // The root: a child Application created and one pruned, both this change; the other two unchanged.
          'APP=proot',
          `BASE=${base}`,
          `HEAD=${head}`,
          'CREATE=Application/p-c this-change',
          'PRUNE=Application/p-b this-change',
          'THIS_CHANGE=2',
          'ALREADY_THERE=0',
          'IN_SYNC=3',
          // It follows release: its source moves to the head, its value changes.
          `APP=${kid('p-a')}`,
          `PARENT=${kid('proot')}`,
          `BASE=${base}`,
          `HEAD=${head}`,
          'CHANGE=ConfigMap/kid-a data.v',
          'THIS_CHANGE=1',
          'ALREADY_THERE=0',
          'IN_SYNC=0',
          // Pinned to the tag v1: read there at base and at head, so the pull request's edit of its file changes nothing.
          `APP=${kid('p-pin')}`,
          `PARENT=${kid('proot')}`,
          `BASE=${base}`,
          `HEAD=${base}`,
          'THIS_CHANGE=0',
          'ALREADY_THERE=0',
          'IN_SYNC=1',
          // Rendered at head only: everything it declares is created.
          `APP=${kid('p-c')}`,
          `PARENT=${kid('proot')}`,
          'BASE=release',
          `HEAD=${head}`,
          'PRESENCE=appears',
          'CREATE=ConfigMap/kid-c this-change',
          'THIS_CHANGE=1',
          'ALREADY_THERE=0',
          'IN_SYNC=0',
          // Rendered at base only: the root's sync prunes it, and its finalizer takes its ConfigMap with it.
          `APP=${kid('p-b')}`,
          `PARENT=${kid('proot')}`,
          'BASE=release',
          'HEAD=pr-1',
          'PRESENCE=disappears',
          `PRESENCE_NOTE=no longer rendered by ${kid('proot')} at head: its sync at head prunes the Application, and its resources finalizer deletes its objects`,
          'PRUNE=ConfigMap/kid-b this-change',
          'THIS_CHANGE=2',
          'ALREADY_THERE=0',
          'IN_SYNC=0',
          // The ApplicationSet's Applications, generated at base and at head (never synced: nothing of theirs is live).
          `APP=${kid('x-gen')}`,
          `PARENT=${kid('pset')}`,
          `BASE=${base}`,
          `HEAD=${head}`,
          'CREATE=ConfigMap/gen-x already-there',
          'THIS_CHANGE=0',
          'ALREADY_THERE=1',
          'IN_SYNC=0',
          `APP=${kid('y-gen')}`,
          `PARENT=${kid('pset')}`,
          'BASE=release',
          `HEAD=${head}`,
          'PRESENCE=appears',
          'CREATE=ConfigMap/gen-y this-change',
          'THIS_CHANGE=1',
          'ALREADY_THERE=0',
          'IN_SYNC=0',
          '',
        ].join('\n'),
      );
      // JSON names each child's parent; an app that renders itself is refused there (exit 4); --offline does not go with it.
      const doc = JSON.parse(
        (await runPlugin(['plan', 'proot', '--recursive', '--app-namespace', ns, '--base', 'release', '--head', 'pr-1', '-o', 'json'])).stdout,
      ) as {
        apps: { app: string; parent?: string; presence?: string }[];
      };
      expect(doc.apps.map((a) => [a.app, a.parent ?? '', a.presence ?? ''])).toEqual([
        ['proot', '', ''],
        ['p-a', kid('proot'), ''],
        ['p-pin', kid('proot'), ''],
        ['p-c', kid('proot'), 'appears'],
        ['p-b', kid('proot'), 'disappears'],
        ['x-gen', kid('pset'), ''],
        ['y-gen', kid('pset'), 'appears'],
      ]);
      const loop = await runPlugin(['plan', 'ploop', '--recursive', '--app-namespace', ns, '--base', 'release', '--head', 'pr-1', '-o', 'kv']);
      expect(loop.code).toBe(4);
      expect(loop.stdout).toContain(
        `APP=${kid('ploop')}\nPARENT=${kid('ploop')}\nBASE=release\nHEAD=pr-1\nREFUSED=its own ancestor (${kid('ploop')} -> ${kid('ploop')}): not followed\n`,
      );
      expect((await runPlugin(['plan', 'proot', '--recursive', '--offline', '--base', 'release'])).code).toBe(2);
      expect(await versions()).toBe(before);
    },
    TIMEOUT,
  );
});
