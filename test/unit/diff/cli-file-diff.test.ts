// The diff and normalize commands end to end through runCli (no cluster): output and exit codes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/temp-dir.js';
import { runCli } from '../../../src/cli/app.js';
import { memoryIo } from '../../../src/cli/io.js';
import { jqRunner } from '../../../src/jq/runner.js';

const FX = join(process.cwd(), 'test/fixtures');
const G = join(FX, 'manifests/golden');

afterAll(async () => {
  await (await jqRunner()).close();
});

describe('kubectl gitops diff (file mode)', () => {
  it('exits 1 on drift and prints the table ending with OUTOFSYNC', async () => {
    const m = memoryIo();
    const code = await runCli(
      ['diff', '--desired', join(G, 'desired.yaml'), '--live', join(G, 'live.yaml'), '-f', join(G, 'app.yaml'), '--color', 'never'],
      m.io,
    );
    expect(code).toBe(1);
    expect(m.stdout().trimEnd().split('\n').at(-1)).toBe('OUTOFSYNC');
    expect(m.stderr()).toBe('');
  });

  it('exits 0 in sync, with -o kv', async () => {
    const dir = join(FX, 'diff/extra-live-fields');
    const m = memoryIo();
    const code = await runCli(['diff', '--desired', join(dir, 'desired.yaml'), '--live', join(dir, 'live.yaml'), '-o', 'kv'], m.io);
    expect(code).toBe(0);
    expect(m.stdout()).toBe('SYNC=Synced\n');
  });

  it('reads ignore rules only from the Application file', async () => {
    const dir = join(FX, 'diff/replicas-json-pointer');
    const without = memoryIo();
    expect(await runCli(['diff', '--desired', join(dir, 'desired.yaml'), '--live', join(dir, 'live.yaml'), '-o', 'kv'], without.io)).toBe(1);
    expect(without.stdout()).toBe('SYNC=OutOfSync\nDRIFT=Deployment/orders spec.replicas\n');
    const withApp = memoryIo();
    expect(
      await runCli(['diff', '--desired', join(dir, 'desired.yaml'), '--live', join(dir, 'live.yaml'), '-f', join(dir, 'app.yaml'), '-o', 'kv'], withApp.io),
    ).toBe(0);
  });

  it('reads the Application from standard input with -f -, as kubectl reads -f -', async () => {
    const dir = join(FX, 'diff/replicas-json-pointer');
    const args = ['diff', '--desired', join(dir, 'desired.yaml'), '--live', join(dir, 'live.yaml'), '-f', '-', '-o', 'kv'];
    const piped = memoryIo({ stdin: readFileSync(join(dir, 'app.yaml'), 'utf8') });
    expect(await runCli(args, piped.io)).toBe(0);
    expect(piped.stdout()).toBe('SYNC=Synced\n');
    // What is wrong with it is said of <stdin>, and nothing is compared.
    const broken = memoryIo({ stdin: 'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: [\n' });
    expect(await runCli(args, broken.io)).toBe(2);
    expect(broken.stdout()).toBe('');
    expect(broken.stderr()).toMatch(/^error: <stdin>:4:1: invalid YAML/);
    const empty = memoryIo({ stdin: '' });
    expect(await runCli(args, empty.io)).toBe(2);
    expect(empty.stderr()).toMatch(/^error: <stdin>: no Application found \(standard input is empty\)/);
  });

  it('reads live objects from standard input with --live -', async () => {
    const m = memoryIo({ stdin: readFileSync(join(G, 'live.yaml'), 'utf8') });
    expect(await runCli(['diff', '--desired', join(G, 'desired.yaml'), '--live', '-', '-o', 'kv'], m.io)).toBe(1);
    expect(m.stdout()).toMatch(/^SYNC=OutOfSync\n/);
  });

  it('refuses -f - beside --desired - or --live -: standard input is read once', async () => {
    for (const [flag, other] of [
      ['--desired', '--live'],
      ['--live', '--desired'],
    ] as const) {
      const m = memoryIo({ stdin: 'kind: Application\n' });
      expect(await runCli(['diff', flag, '-', other, join(G, 'live.yaml'), '-f', '-'], m.io)).toBe(2);
      expect(m.stderr()).toMatch(new RegExp(`^error: -f/--app-file and ${flag} cannot both read standard input \\(-\\)`));
    }
  });

  it('exits 2 on input errors, naming the place, and prints no report', async () => {
    const m = memoryIo({ stdin: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n' });
    const code = await runCli(['diff', '--desired', '-', '--live', join(G, 'live.yaml')], m.io);
    expect(code).toBe(2);
    expect(m.stdout()).toBe('');
    expect(m.stderr()).toMatch(/^error: <stdin>:4:1: invalid YAML/);
  });

  it('exits 2 when --desired is missing in file mode', async () => {
    const m = memoryIo();
    expect(await runCli(['diff', '--live', join(G, 'live.yaml')], m.io)).toBe(2);
    expect(m.stderr()).toMatch(/needs --desired/);
  });

  it('prints the documented JSON schema', async () => {
    const m = memoryIo();
    await runCli(['diff', '--desired', join(G, 'desired.yaml'), '--live', join(G, 'live.yaml'), '-o', 'json'], m.io);
    const report = JSON.parse(m.stdout());
    expect(Object.keys(report)).toEqual(['schemaVersion', 'sync', 'objects', 'extras', 'warnings']);
    expect(report.objects[0]).toMatchObject({
      key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'orders' },
      apiVersion: 'apps/v1',
      status: 'drifted',
    });
    expect(Object.keys(report.objects[0].fields[0])).toEqual(['path', 'pointer', 'desired', 'live', 'owners', 'verdict']);
  });
});

describe('kubectl gitops normalize', () => {
  const live = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  uid: 1
  resourceVersion: "9"
  managedFields: [{manager: kubectl}]
  annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}"}
data: {a: "1"}
status: {x: 1}
`;
  it('prints multi-document YAML without server fields, from stdin', async () => {
    const m = memoryIo({ stdin: `${live}---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n` });
    expect(await runCli(['normalize', '-'], m.io)).toBe(0);
    expect(m.stdout()).toBe(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  a: "1"\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n',
    );
  });

  it('prints JSON with -o json, and is idempotent', async () => {
    const m = memoryIo({ stdin: live });
    await runCli(['normalize', '-', '-o', 'json'], m.io);
    const once = m.stdout();
    expect(JSON.parse(once)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' }, data: { a: '1' } });
    const again = memoryIo({ stdin: once });
    await runCli(['normalize', '-', '-o', 'json'], again.io);
    expect(again.stdout()).toBe(once);
  });

  it("masks a Secret's data, and with --argocd-cm the annotations its resource.sensitive.mask.annotations names", async () => {
    const secret =
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  annotations: {example.com/token: tok-1234, note: public}\ndata: {pw: cHctOTk5OQ==}\n';
    const cm = join(tempDir('normalize-cm'), 'argocd-cm.yaml');
    writeFileSync(cm, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata:\n  resource.sensitive.mask.annotations: example.com/token\n');
    const plain = memoryIo({ stdin: secret });
    expect(await runCli(['normalize', '-', '-o', 'json'], plain.io)).toBe(0);
    expect(JSON.parse(plain.stdout()).metadata.annotations).toEqual({ 'example.com/token': 'tok-1234', note: 'public' });
    expect(JSON.parse(plain.stdout()).data).toEqual({ pw: '++++++++' });
    const masked = memoryIo({ stdin: secret });
    expect(await runCli(['normalize', '-', '-o', 'json', '--argocd-cm', cm], masked.io)).toBe(0);
    expect(JSON.parse(masked.stdout())).toMatchObject({
      metadata: { annotations: { 'example.com/token': '++++++++', note: 'public' } },
      data: { pw: '++++++++' },
    });
    expect(masked.stdout()).not.toContain('tok-1234');
  });
});
