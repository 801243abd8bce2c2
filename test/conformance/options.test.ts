// The rules around what counts, through Argo CD's own controller and through kubectl-gitops on the same
// Application: ignoreDifferences by jsonPointers, jqPathExpressions and managedFieldsManagers; an extra
// object with Prune=false and one with IgnoreExtraneous; and what each lists as requiring pruning. Where a rule keeps
// the app Synced, a twin Application without that rule (one twin per rule, in its own namespace, given the same
// drift) must read OutOfSync on exactly the object whose drift the rule hides, in both: the drift is there to hide.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, bothVerdicts, differences, liveObject, onBothSides, rolledOut, summaries } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 1
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: nginx:1.27
`;
const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: tuning
data:
  level: "1"
`;

/** The three rules, by the drift each hides. */
const RULES = {
  replicas: { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] },
  image: { group: 'apps', kind: 'Deployment', jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == "api") | .image'] },
  manager: { kind: 'ConfigMap', name: 'tuning', managedFieldsManagers: ['conformance-editor'] },
};
type Rule = keyof typeof RULES;
/** For each twin, the object its missing rule leaves OutOfSync. */
const TWINS: [Rule, string][] = [
  ['replicas', 'apps/Deployment/<ns>/api'],
  ['image', 'apps/Deployment/<ns>/api'],
  ['manager', '/ConfigMap/<ns>/tuning'],
];

/** The drift the rules hide: 2 replicas, image nginx:1.28, and `level: "9"` applied by conformance-editor. */
async function driftOnIgnoredFields(ns: string): Promise<void> {
  await kubectlOk(['scale', 'deployment/api', '-n', ns, '--replicas=2']);
  await kubectlOk(['set', 'image', 'deployment/api', '-n', ns, 'api=nginx:1.28']);
  await kubectlOk(['apply', '--server-side', '--force-conflicts', '--field-manager=conformance-editor', '-n', ns, '-f', '-'], {
    stdin: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tuning' }, data: { level: '9' } }),
  });
  await rolledOut('api', ns);
}

describe('ignoreDifferences, Prune=false and IgnoreExtraneous through Argo CD and through kubectl-gitops', () => {
  const id = randomBytes(3).toString('hex');
  const app = `options-${id}`;
  let fx: GitFixture;
  let ns: string;
  /** The twins: the same app without one rule each, by the rule left out. */
  const twins = new Map<Rule, { name: string; ns: string }>();

  const compare = async (step: string, name = app, namespace = ns) => {
    const { argo, ours } = await bothVerdicts(name);
    expect(differences(argo, ours, namespace).sort()).toEqual(expectedDifferences(step));
    return { argo, ours };
  };
  const all = (sync: string, more: Record<string, string> = {}) => ({
    app: sync,
    'apps/Deployment/<ns>/api': 'Synced',
    '/ConfigMap/<ns>/tuning': 'Synced',
    ...more,
  });
  const extra = (name: string, annotations: Record<string, string>) =>
    kubectlOk(['apply', '-n', ns, '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, annotations: { 'argocd.argoproj.io/tracking-id': `${app}:/ConfigMap:${ns}/${name}`, ...annotations } },
        data: { left: 'over' },
      }),
    });

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/deployment.yaml', deployment);
    fx.write('app/configmap.yaml', configMap);
    fx.commit('app');
    const repoURL = pathToFileURL(fx.repo).href;
    ns = await createTestNamespace('conf-options');
    for (const [without] of TWINS) twins.set(without, { name: `options-no-${without}-${id}`, ns: await createTestNamespace(`conf-options-no-${without}`) });
    const apps = [
      { name: app, namespace: ns, rules: Object.values(RULES) },
      ...[...twins].map(([without, t]) => ({
        name: t.name,
        namespace: t.ns,
        rules: Object.entries(RULES)
          .filter(([rule]) => rule !== without)
          .map(([, r]) => r),
      })),
    ];
    for (const a of apps) {
      await applyApplication(application({ name: a.name, repoURL, path: 'app', namespace: a.namespace, ignoreDifferences: a.rules }));
      const synced = await runPlugin(['sync', a.name, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
      expect(synced.code).toBe(0);
      await rolledOut('api', a.namespace);
    }
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
    for (const t of twins.values()) await deleteNamespace(t.ns);
  }, T);

  it(
    'drift on ignored fields (jsonPointers, jqPathExpressions, managedFieldsManagers): both Synced; each twin without one rule OutOfSync in both',
    async () => {
      // From Synced: the app and every twin, as synced.
      expect(summaries(await compare('options/before-drift'), ns)).toEqual(onBothSides(all('Synced')));
      for (const t of twins.values()) expect(summaries(await compare('options/twin-before-drift', t.name, t.ns), t.ns)).toEqual(onBothSides(all('Synced')));

      await driftOnIgnoredFields(ns);
      const live = await liveObject('deployment', 'api', ns);
      expect([live?.spec?.replicas, live?.spec?.template?.spec?.containers?.[0]?.image]).toEqual([2, 'nginx:1.28']);
      expect((await liveObject('configmap', 'tuning', ns))?.data).toEqual({ level: '9' });
      expect(summaries(await compare('options/ignored-drift'), ns)).toEqual(onBothSides(all('Synced')));

      // The positive controls: the same drift where one rule is missing shows, on the object that rule covers.
      for (const [without, object] of TWINS) {
        const t = twins.get(without)!;
        await driftOnIgnoredFields(t.ns);
        const both = await compare(`options/twin-without-${without}`, t.name, t.ns);
        expect([without, summaries(both, t.ns)]).toEqual([without, onBothSides(all('OutOfSync', { [object]: 'OutOfSync' }))]);
      }
    },
    T,
  );

  it(
    'an extra object with IgnoreExtraneous: requires pruning, yet the app stays Synced in both, and in `diff`',
    async () => {
      // From Synced: the previous step read the app Synced, its ignored drift aside.
      await extra('tolerated', { 'argocd.argoproj.io/compare-options': 'IgnoreExtraneous' });
      const both = await compare('options/ignore-extraneous');
      expect(summaries(both, ns)).toEqual(onBothSides(all('Synced', { '/ConfigMap/<ns>/tolerated': 'OutOfSync, requires pruning' })));
      const diff = await runPlugin(['diff', app, '--app-namespace', 'argocd', '-o', 'kv']);
      expect(kvValues(diff.stdout).SYNC).toEqual(['Synced']);
      expect(diff.code).toBe(0);
    },
    T,
  );

  it(
    'an extra object with Prune=false as well: the same verdicts, and prune lists what Argo CD lists',
    async () => {
      // From Synced (the previous step's verdict): kept, without IgnoreExtraneous, makes the app OutOfSync.
      await extra('kept', { 'argocd.argoproj.io/sync-options': 'Prune=false' });
      const { argo, ours: oursVerdict } = await compare('options/prune-false');
      expect(summaries({ argo, ours: oursVerdict }, ns)).toEqual(
        onBothSides(all('OutOfSync', { '/ConfigMap/<ns>/tolerated': 'OutOfSync, requires pruning', '/ConfigMap/<ns>/kept': 'OutOfSync, requires pruning' })),
      );
      const argoPrune = Object.entries(argo.resources)
        .filter(([, r]) => r.requiresPruning)
        .map(([k]) => k.split('/').pop())
        .sort();
      expect(argoPrune).toEqual(['kept', 'tolerated']);
      const prune = kvValues((await runPlugin(['prune', app, '--app-namespace', 'argocd', '-o', 'kv'])).stdout);
      const ours = [...(prune.PRUNE ?? []), ...(prune.PRUNE_SKIPPED ?? []).map((l) => l.split(' ')[0]!)].map((k) => k.split('/').pop()).sort();
      expect(ours).toEqual(argoPrune);
      expect(prune.PRUNE_SKIPPED?.[0]).toMatch(/^ConfigMap\/kept /);
    },
    T,
  );
});
