// Syncs take fields back as Argo CD does (server-side apply with force), naming each field and its manager (HEALED=);
// --no-force-conflicts is the cautious mode: when the dry-run predicts conflicts nothing at all is written, exit 3,
// and NEXT_COMMAND names the command that goes on. The same for rollback, whose closing line never claims a rollback
// that did not happen.
import { stringify } from 'yaml';
import { GitFixture } from '../support/git-source.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin, type RunResult } from './support/index.js';
import { tempDir, writeApp, writeDesired } from './hardening/support.js';

const TIMEOUT = 180_000;
let ns: string;
let work: ReturnType<typeof tempDir>;

beforeAll(async () => {
  ns = await createTestNamespace('force-conflicts');
  work = tempDir('force-conflicts');
}, TIMEOUT);

afterAll(async () => {
  work?.cleanup();
  if (ns) await deleteNamespace(ns);
}, 60_000);

const meta = async (kind: string, name: string) =>
  JSON.parse(await kubectlOk(['get', kind, name, '-n', ns, '-o', 'json'])) as {
    metadata: { resourceVersion: string; generation?: number; labels?: Record<string, string> };
    spec: Record<string, unknown>;
    data?: Record<string, string>;
  };

function deployment(image: string): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
    },
  };
}
const service = (labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', labels },
  spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
});

test(
  'after kubectl scale and kubectl set image: --no-force-conflicts writes nothing and names the command; sync takes both fields back',
  async () => {
    const app = writeApp(work.dir, { name: 'web', destinationNamespace: ns, prune: false });
    const first = writeDesired(work.dir, 'web-1', [deployment('registry.invalid/web:1'), service({ tier: 'one' })]);
    expect((await runPlugin(['sync', '-f', app, '--desired', first])).code).toBe(0);
    await kubectlOk(['scale', 'deployment', 'web', '-n', ns, '--replicas=3']);
    await kubectlOk(['set', 'image', 'deployment/web', '-n', ns, 'web=registry.invalid/web:hotfix']);
    // The Service changes in Git too: a sync that went ahead would write it.
    const next = writeDesired(work.dir, 'web-2', [deployment('registry.invalid/web:1'), service({ tier: 'two' })]);
    const svcBefore = (await meta('service', 'web')).metadata.resourceVersion;
    // The Deployment's status moves on its own (the controller scales): its spec's generation is what a write would change.
    const deployBefore = (await meta('deployment', 'web')).metadata.generation;

    const args = ['sync', '-f', app, '--desired', next, '-o', 'kv'];
    const cautious = await runPlugin([...args, '--no-force-conflicts']);
    expect(cautious.code).toBe(3);
    const kv = kvValues(cautious.stdout);
    expect(kv.APPLIED).toEqual(['0']);
    expect(kv.CONFLICT).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Deployment\/web spec\.replicas kubectl/),
        expect.stringMatching(/^Deployment\/web spec\.template\.spec\.containers\[name=web\]\.image kubectl-set$/),
      ]),
    );
    expect(kv.STOPPED?.[0]).toMatch(/^the server-side dry-run found \d+ field\(s\) owned by .*kubectl-set.*\(--no-force-conflicts\)$/);
    // The same command line without --no-force-conflicts (the test harness adds --kubeconfig to what it runs).
    expect(kv.NEXT_COMMAND?.[0]).toMatch(new RegExp(`^kubectl gitops ${args.join(' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --kubeconfig \\S+$`));
    expect((await meta('service', 'web')).metadata.resourceVersion).toBe(svcBefore);
    expect((await meta('service', 'web')).metadata.labels).toEqual({ tier: 'one' });
    expect((await meta('deployment', 'web')).metadata.generation).toBe(deployBefore);
    expect((await meta('deployment', 'web')).spec.replicas).toBe(3);

    // The default: both fields taken back, each named with the manager it was taken from.
    const forced = await runPlugin(args);
    expect({ code: forced.code, stderr: forced.stderr }).toEqual({ code: 0, stderr: '' });
    const healed = kvValues(forced.stdout).HEALED ?? [];
    expect(healed).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Deployment\/web spec\.replicas kubectl/),
        'Deployment/web spec.template.spec.containers[name=web].image kubectl-set',
      ]),
    );
    expect(kvValues(forced.stdout).APPLIED).toEqual(['2']);
    const d = await meta('deployment', 'web');
    expect(d.spec.replicas).toBe(1);
    expect((d.spec.template as { spec: { containers: { image: string }[] } }).spec.containers[0]!.image).toBe('registry.invalid/web:1');
    expect((await meta('service', 'web')).metadata.labels).toEqual({ tier: 'two' });
  },
  TIMEOUT,
);

describe('rollback after kubectl patch', () => {
  let fx: GitFixture;
  const plugin = (args: string[]): Promise<RunResult> => runPlugin([...args, '--app-namespace', ns]);
  const color = async () => (await meta('configmap', 'rb-config')).data?.color;

  beforeAll(async () => {
    fx = new GitFixture();
  });
  afterAll(() => fx?.cleanup());

  test(
    'restores the recorded revision and takes the patched field back; --no-force-conflicts changes nothing and says so',
    async () => {
      const cm = (c: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rb-config' }, data: { color: c } });
      fx.write('app/cm.yaml', cm('red'));
      fx.commit('red');
      await applyYaml(
        `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: rb, namespace: ${ns}}\nspec:\n  project: default\n  source: {repoURL: ${fx.repo}, path: app, targetRevision: main}\n  destination: {server: https://kubernetes.default.svc, namespace: ${ns}}\n`,
      );
      expect((await plugin(['sync', 'rb'])).code).toBe(0);
      fx.write('app/cm.yaml', cm('blue'));
      fx.commit('blue');
      expect((await plugin(['sync', 'rb'])).code).toBe(0);
      expect(await color()).toBe('blue');
      await kubectlOk(['patch', 'configmap', 'rb-config', '-n', ns, '--type=merge', '-p', '{"data":{"color":"green"}}']);
      const before = (await meta('configmap', 'rb-config')).metadata.resourceVersion;

      const cautious = await plugin(['rollback', 'rb', '0', '-o', 'kv', '--no-force-conflicts']);
      expect(cautious.code).toBe(3);
      expect(cautious.stderr).toMatch(
        new RegExp(
          `^rollback of Application ${ns}/rb to history ID 0 \\(revision [0-9a-f]+\\) failed: nothing was changed \\(the server-side dry-run found 1 field\\(s\\) owned by kubectl-patch`,
          'm',
        ),
      );
      expect(cautious.stderr).not.toMatch(/^rolled back/m);
      expect(kvValues(cautious.stdout).CONFLICT).toEqual(['ConfigMap/rb-config data.color kubectl-patch']);
      expect(kvValues(cautious.stdout).NEXT_COMMAND?.[0]).toMatch(/^kubectl gitops rollback rb 0 -o kv --app-namespace \S+ --kubeconfig \S+$/);
      expect((await meta('configmap', 'rb-config')).metadata.resourceVersion).toBe(before);

      const res = await plugin(['rollback', 'rb', '0', '-o', 'kv']);
      expect(res.code).toBe(0);
      expect(res.stderr).toMatch(new RegExp(`^rolled back Application ${ns}/rb to history ID 0`, 'm'));
      expect(kvValues(res.stdout).HEALED).toEqual(['ConfigMap/rb-config data.color kubectl-patch']);
      expect(await color()).toBe('red');
    },
    TIMEOUT,
  );
});
