// The rules around the Application on the local control plane: AppProject violations of each kind refused with
// nothing changed (uids and resourceVersions), a deny window active now refusing `sync` and shown by `status` and
// `windows`. Each suite's AppProjects live in a control-plane namespace of its own (--argocd-namespace), so
// parallel suites never see each other's projects.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, runPlugin, type RunResult, kvValues as kv } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

let ns: string;
let cp: string;
let root: string;
let desired: string;
let clusterRole: string;

/** The Application file: in the control-plane namespace (or another one), naming `project`. */
function appFile(project: string, opts: { appNamespace?: string; repoURL?: string; name?: string } = {}): string {
  const file = join(root, `app-${project}-${opts.appNamespace ?? cp}.yaml`);
  writeFileSync(
    file,
    applicationYaml({
      name: opts.name ?? 'rules',
      namespace: opts.appNamespace ?? cp,
      spec: { project, source: { repoURL: opts.repoURL ?? 'https://git.example.com/team/rules.git', path: 'deploy' }, destination: inCluster(ns) },
    }),
  );
  return file;
}

function writeDesired(version: string): void {
  writeFileSync(
    join(desired, 'all.yaml'),
    `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {version: "${version}"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ${clusterRole}}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
`,
  );
}

async function project(name: string, spec: string): Promise<void> {
  await applyYaml(`apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: ${name}, namespace: ${cp}}\nspec:\n${spec}`);
}

function sync(app: string, ...extra: string[]): Promise<RunResult> {
  return runPlugin(['sync', '-f', app, '--desired', desired, '--argocd-namespace', cp, '-o', 'kv', ...extra]);
}

/** uid and resourceVersion of everything the app declares (the proof that nothing changed). */
async function versions(): Promise<string> {
  const cm = JSON.parse(await kubectlOk(['get', 'configmap', 'settings', '-n', ns, '-o', 'json']));
  const cr = JSON.parse(await kubectlOk(['get', 'clusterrole', clusterRole, '-o', 'json']));
  return `${cm.metadata.uid}/${cm.metadata.resourceVersion} ${cr.metadata.uid}/${cr.metadata.resourceVersion}`;
}

beforeAll(async () => {
  ns = await createTestNamespace('rules');
  cp = await createTestNamespace('rules-cp');
  clusterRole = `${ns}-reader`;
  root = tempDir('rules');
  desired = join(root, 'desired');
  mkdirSync(desired);
  writeDesired('1');
});

afterAll(async () => {
  await kubectlOk(['delete', 'clusterrole', clusterRole, '--ignore-not-found']).catch(() => undefined);
  if (ns) await deleteNamespace(ns);
  if (cp) await deleteNamespace(cp);
});

test("the default project, absent from the cluster, is Argo CD's: everything is permitted", async () => {
  const res = await sync(appFile('default'));
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  expect(kv(res.stdout).APPLIED).toEqual(['2']);
});

describe('AppProject violations are refused (exit 4), naming the rule, with nothing changed', () => {
  let before: string;
  beforeAll(async () => {
    before = await versions();
    writeDesired('2'); // a sync that went through would change the ConfigMap
    await project(
      'wrong-repo',
      "  sourceRepos: ['https://git.example.com/other/*', '!https://git.example.com/team/rules']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n",
    );
    await project(
      'wrong-dest',
      `  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '!${ns}'}, {server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n`,
    );
    await project(
      'wrong-server',
      "  sourceRepos: ['*']\n  destinations: [{server: 'https://prod.example.com', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n",
    );
    await project('no-cluster-kinds', "  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n");
    await project(
      'blacklisted',
      "  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n  clusterResourceBlacklist: [{group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: '*-reader'}]\n",
    );
    await project(
      'ns-blacklist',
      "  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n  namespaceResourceBlacklist: [{group: '', kind: 'Config*'}]\n",
    );
    await project(
      'ns-whitelist',
      "  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n  namespaceResourceWhitelist: [{group: apps, kind: Deployment}]\n",
    );
    await project(
      'closed-ns',
      "  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n  sourceNamespaces: ['team-*']\n",
    );
  });

  it.each([
    ['sourceRepos', 'wrong-repo', {}, "application repo https://git.example.com/team/rules.git is not permitted in project 'wrong-repo'"],
    ['destinations (a ! negation)', 'wrong-dest', {}, "do not match any of the allowed destinations in project 'wrong-dest'"],
    ['destinations (the server)', 'wrong-server', {}, "application destination server 'https://kubernetes.default.svc'"],
    [
      'clusterResourceWhitelist',
      'no-cluster-kinds',
      {},
      'resource rbac.authorization.k8s.io:ClusterRole is not permitted in project no-cluster-kinds: clusterResourceWhitelist is empty',
    ],
    ['clusterResourceBlacklist (a name glob)', 'blacklisted', {}, 'clusterResourceBlacklist lists rbac.authorization.k8s.io/ClusterRole'],
    [
      'namespaceResourceBlacklist',
      'ns-blacklist',
      {},
      'resource :ConfigMap is not permitted in project ns-blacklist: namespaceResourceBlacklist lists /ConfigMap',
    ],
    ['namespaceResourceWhitelist', 'ns-whitelist', {}, 'namespaceResourceWhitelist does not list /ConfigMap'],
    [
      'sourceNamespaces',
      'closed-ns',
      { appNamespace: 'elsewhere' },
      "application 'rules' in namespace 'elsewhere' is not permitted to use project 'closed-ns'",
    ],
    ['a project that does not exist', 'nope', {}, 'Application referencing project nope which does not exist'],
  ])('%s', async (_rule, name, opts, message) => {
    const res = await sync(appFile(name, opts as { appNamespace?: string }));
    expect(res.code).toBe(4);
    const refused = kv(res.stdout).REFUSED?.[0] ?? '';
    expect(refused).toContain(message);
    expect(await versions()).toBe(before);
    // prune --confirm is refused the same way.
    const prune = await runPlugin([
      'prune',
      '-f',
      appFile(name, opts as { appNamespace?: string }),
      '--desired',
      desired,
      '--argocd-namespace',
      cp,
      '--confirm',
    ]);
    expect(prune.code).toBe(4);
    expect(prune.stderr).toContain('nothing was deleted');
  });

  it("status compares what the project refuses as not live and marks it Unknown, as Argo CD's comparison: the ClusterRole, live as rendered, is not Synced", async () => {
    const res = await runPlugin(['status', '-f', appFile('no-cluster-kinds'), '--desired', desired, '--argocd-namespace', cp, '-o', 'kv']);
    expect(res.stderr).toBe('');
    const v = kv(res.stdout);
    expect(v.SYNC).toEqual(['OutOfSync']);
    // The ConfigMap drifted (version 2 is not synced); the ClusterRole is live exactly as rendered, but not permitted.
    expect(v.RESOURCE).toEqual(['ConfigMap/settings OutOfSync -', `ClusterRole/${clusterRole} Unknown Missing`]);
    const json = JSON.parse(
      (await runPlugin(['status', '-f', appFile('no-cluster-kinds'), '--desired', desired, '--argocd-namespace', cp, '-o', 'json'])).stdout,
    );
    expect(json.resources.find((r: { kind: string }) => r.kind === 'ClusterRole')).toMatchObject({
      status: 'Unknown',
      syncReason: 'not-permitted',
      notPermitted: 'not permitted in project no-cluster-kinds: clusterResourceWhitelist is empty (no cluster-scoped kind is allowed)',
    });
    expect(await versions()).toBe(before);
  });

  it('a project that permits everything lets the same sync through', async () => {
    await project(
      'open',
      "  sourceRepos: ['https://git.example.com/team/*']\n  destinations: [{name: in-cluster, namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n",
    );
    const res = await sync(appFile('open'));
    expect(res.code).toBe(0);
    expect(await versions()).not.toBe(before);
  });
});

describe('settings this tool does not carry out refuse the sync (never pass in silence)', () => {
  it('a project that requires signed commits (signatureKeys) and local manifests (--desired): exit 4 as Argo CD refuses a local sync, nothing changed', async () => {
    writeDesired('signed');
    const before = await versions();
    await project(
      'signed',
      "  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n  signatureKeys: [{keyID: 4AEE18F83AFDEB23}]\n",
    );
    const res = await sync(appFile('signed'));
    expect(res.code).toBe(4);
    expect(res.stdout).toContain(
      'REFUSED=project signed: Cannot use local sync when signature keys are required: project signed lists signatureKeys (4AEE18F83AFDEB23), and --desired is local',
    );
    expect(await versions()).toBe(before);
  });

  it("impersonation on in argocd-cm: the sync writes as the project's destination ServiceAccount, with its rights; no matching entry is refused (exit 4)", async () => {
    const cm = join(root, 'argocd-cm-impersonation.yaml');
    writeFileSync(cm, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata: {application.sync.impersonation.enabled: "true"}\n');
    const open = "  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n";
    // A ServiceAccount that may manage ConfigMaps of the destination namespace, and nothing else.
    await applyYaml(
      `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: deployer, namespace: ${ns}}\n---\n` +
        `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: deployer, namespace: ${ns}}\nrules: [{apiGroups: [""], resources: [configmaps], verbs: ["*"]}]\n---\n` +
        `apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: deployer, namespace: ${ns}}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: deployer}\nsubjects: [{kind: ServiceAccount, name: deployer, namespace: ${ns}}]\n`,
    );
    const own = join(root, 'impersonated');
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: imp-settings}\ndata: {v: "1"}\n');
    const run = (file: string, ...extra: string[]) =>
      runPlugin(['sync', '-f', file, '--desired', own, '--argocd-namespace', cp, '--argocd-cm', cm, '-o', 'kv', ...extra]);

    // No entry for this destination namespace: Argo CD ends the operation in Error with its words.
    await project('impersonated-elsewhere', `${open}  destinationServiceAccounts: [{server: '*', namespace: not-${ns}, defaultServiceAccount: deployer}]\n`);
    const refused = await run(appFile('impersonated-elsewhere'));
    expect(refused.code).toBe(4);
    expect(refused.stdout).toMatch(
      new RegExp(
        `^REFUSED=project impersonated-elsewhere: failed to find a matching service account to impersonate: no matching service account found for destination server https://kubernetes.default.svc and namespace ${ns}`,
      ),
    );
    expect(kv(refused.stdout).PHASE).toEqual(['Error']);
    expect((await kubectl(['get', 'configmap', 'imp-settings', '-n', ns])).code).not.toBe(0);

    // A matching entry: the writes carry Impersonate-User (the -v 7 log shows the header), and the ServiceAccount's
    // rights are the ones that count.
    await project('impersonated', `${open}  destinationServiceAccounts: [{server: '*', namespace: '${ns}', defaultServiceAccount: deployer}]\n`);
    const user = `system:serviceaccount:${ns}:deployer`;
    const synced = await run(appFile('impersonated'), '--v=7');
    expect({ code: synced.code, sa: kv(synced.stdout).SERVICE_ACCOUNT, phase: kv(synced.stdout).PHASE }).toEqual({ code: 0, sa: [user], phase: ['Succeeded'] });
    const applyLog = synced.stderr.split('\n');
    const applyAt = applyLog.findIndex((l) => /^I PATCH \S+\/configmaps\/imp-settings\?fieldManager=argocd-controller&force=true /.test(l));
    expect(applyAt).toBeGreaterThanOrEqual(0);
    expect(applyLog.slice(applyAt + 1).find((l) => /^I {3}request header Impersonate-User:/.test(l))).toBe(`I   request header Impersonate-User: ${user}`);
    expect(JSON.parse(await kubectlOk(['get', 'configmap', 'imp-settings', '-n', ns, '-o', 'json'])).data).toEqual({ v: '1' });

    // A Secret the ServiceAccount may not write: the sync stops before its first write (exit 3), as the
    // ServiceAccount's sync would; the ConfigMap is not touched (with the caller's own rights it would have been).
    writeFileSync(join(own, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: imp-settings}\ndata: {v: "2"}\n');
    writeFileSync(join(own, 'secret.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata: {name: imp-secret}\nstringData: {k: v}\n');
    const stopped = await run(appFile('impersonated'));
    expect(stopped.code).toBe(3);
    expect(kv(stopped.stdout).STOPPED?.[0]).toMatch(/secrets/);
    expect(JSON.parse(await kubectlOk(['get', 'configmap', 'imp-settings', '-n', ns, '-o', 'json'])).data).toEqual({ v: '1' });
    expect((await kubectl(['get', 'secret', 'imp-secret', '-n', ns])).code).not.toBe(0);
  }, 180_000);
});

describe('sync windows', () => {
  // A deny window that started a minute ago (UTC) and lasts two hours: active now, it opens at a known time.
  const started = new Date(Math.floor((Date.now() - 60_000) / 60_000) * 60_000);
  const schedule = `${started.getUTCMinutes()} ${started.getUTCHours()} * * *`;
  const opens = new Date(started.getTime() + 2 * 3600_000).toISOString();
  let before: string;

  beforeAll(async () => {
    await project(
      'frozen',
      `  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n  syncWindows:\n  - {kind: deny, schedule: '${schedule}', duration: 2h, applications: ['rul*'], description: release freeze}\n  - {kind: allow, schedule: '0 0 1 1 *', duration: 1h, applications: ['other-app']}\n`,
    );
    await project(
      'frozen-manual',
      `  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n  syncWindows:\n  - {kind: deny, schedule: '${schedule}', duration: 2h, namespaces: ['${ns}'], manualSync: true}\n`,
    );
    writeDesired('3');
    before = await versions();
  });

  it('a deny window active now refuses sync, naming the window and when it opens; nothing changes', async () => {
    const res = await sync(appFile('frozen'));
    expect(res.code).toBe(4);
    const refused = kv(res.stdout).REFUSED?.[0] ?? '';
    expect(refused).toContain(`blocked by the active deny window syncWindows[0] deny "${schedule}" for 2h UTC`);
    expect(refused).toContain('release freeze');
    expect(refused).toContain(`it opens at ${opens}`);
    expect(await versions()).toBe(before);
  });

  it('status shows the active window and that a sync is blocked until it opens', async () => {
    const res = await runPlugin(['status', '-f', appFile('frozen'), '--desired', desired, '--argocd-namespace', cp, '-o', 'kv']);
    expect(res.code).toBe(0);
    const lines = kv(res.stdout);
    expect(lines.SYNC_WINDOW).toEqual([`0 deny "${schedule}" 2h UTC active until ${opens}`]);
    expect(lines.SYNC_ALLOWED).toEqual(['false']);
    expect(lines.SYNC_OPENS).toEqual([opens]);
    const table = await runPlugin(['status', '-f', appFile('frozen'), '--desired', desired, '--argocd-namespace', cp]);
    expect(table.stdout).toMatch(/Project:\s+frozen/);
    expect(table.stdout).toMatch(new RegExp(`Sync Now:\\s+manual blocked until ${opens.replace(/\./g, '\\.')}, automated blocked until`));
  });

  it('the windows command lists them in every output mode', async () => {
    const base = ['windows', '-f', appFile('frozen'), '--argocd-namespace', cp];
    const json = JSON.parse((await runPlugin([...base, '-o', 'json'])).stdout);
    expect(json.project.windows).toHaveLength(1); // the allow window names another application
    expect(json.project.windows[0]).toMatchObject({ index: 0, kind: 'deny', active: true, until: opens, matches: true, description: 'release freeze' });
    expect(json.project.manualSync).toEqual({ allowed: false, reason: expect.stringContaining('release freeze'), opensAt: opens });
    const all = JSON.parse((await runPlugin([...base, '--all', '-o', 'json'])).stdout);
    expect(all.project.windows.map((w: { index: number; matches: boolean }) => [w.index, w.matches])).toEqual([
      [0, true],
      [1, false],
    ]);
    const yaml = await runPlugin([...base, '-o', 'yaml']);
    expect(yaml.stdout).toContain('kind: deny');
    const kvOut = kv((await runPlugin([...base, '-o', 'kv'])).stdout);
    expect(kvOut.MANUAL_SYNC).toEqual(['blocked']);
    expect(kvOut.MANUAL_SYNC_OPENS).toEqual([opens]);
    const table = await runPlugin(base);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/ID\s+KIND\s+SCHEDULE/);
    expect(table.stdout).toContain('release freeze');
  });

  it('manualSync lets a manual sync through the deny window', async () => {
    const res = await sync(appFile('frozen-manual'));
    expect(res.code).toBe(0);
    expect(await versions()).not.toBe(before);
    const windows = kv((await runPlugin(['windows', '-f', appFile('frozen-manual'), '--argocd-namespace', cp, '-o', 'kv'])).stdout);
    expect(windows.MANUAL_SYNC).toEqual(['allowed']);
    expect(windows.AUTOMATED_SYNC).toEqual(['blocked']);
  });
});

describe("argocd-cmd-params-cm: Applications outside the control plane's namespace need application.namespaces", () => {
  let cp2: string;
  let before: string;
  const run = (app: string, ...extra: string[]) => runPlugin(['sync', '-f', app, '--desired', desired, '--argocd-namespace', cp2, '-o', 'kv', ...extra]);
  beforeAll(async () => {
    cp2 = await createTestNamespace('rules-cp2');
    await applyYaml(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cmd-params-cm, namespace: ${cp2}}\ndata:\n  application.namespaces: "team-*, /^ops-[0-9]+$/"\n`,
    );
    writeDesired('3');
    before = await versions();
  });
  afterAll(async () => {
    if (cp2) await deleteNamespace(cp2);
  });

  it('refuses an Application in a namespace the list does not name (exit 4, nothing changed), for sync, prune --confirm and status', async () => {
    const app = appFile('default', { appNamespace: 'ops-x' });
    const res = await run(app);
    expect(res.code).toBe(4);
    expect(kv(res.stdout).REFUSED?.[0]).toContain(
      `Argo CD does not reconcile Application ops-x/rules: namespace ops-x is neither the control plane's (${cp2}) nor listed in application.namespaces (team-*,/^ops-[0-9]+$/) of ConfigMap ${cp2}/argocd-cmd-params-cm`,
    );
    expect(await versions()).toBe(before);
    const prune = await runPlugin(['prune', '-f', app, '--desired', desired, '--argocd-namespace', cp2, '--confirm']);
    expect(prune.code).toBe(4);
    expect(prune.stderr).toContain('nothing was deleted');
    const status = await runPlugin(['status', '-f', app, '--desired', desired, '--argocd-namespace', cp2, '-o', 'json']);
    expect(JSON.stringify(JSON.parse(status.stdout).project)).toContain('Argo CD does not reconcile Application ops-x/rules');
  });

  it('lets through an Application whose namespace a glob or a /regexp/ lists, and one in the control plane namespace', async () => {
    for (const appNamespace of ['team-a', 'ops-12', cp2]) {
      const res = await run(appFile('default', { appNamespace }));
      // The same objects taken over from the previous app's namespace: Argo CD's shared-resource warning, no refusal.
      expect([appNamespace, res.code, kv(res.stdout).REFUSED]).toEqual([appNamespace, 0, undefined]);
    }
    expect(await versions()).not.toBe(before);
  });

  it('reads the list from --argocd-cmd-params-cm FILE instead of the cluster', async () => {
    const file = join(root, 'cmd-params.yaml');
    writeFileSync(file, 'application.namespaces: team-b\n');
    const res = await run(appFile('default', { appNamespace: 'team-a' }), '--argocd-cmd-params-cm', file);
    expect(res.code).toBe(4);
    expect(kv(res.stdout).REFUSED?.[0]).toContain(`nor listed in application.namespaces (team-b) of ${file}`);
  });
});
