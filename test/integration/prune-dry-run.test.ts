// `prune --confirm` dry-runs, on the real API server, the declared objects the cluster does not hold yet before it
// deletes anything, as a `sync --prune` stops at its whole-set dry-run: a ConfigMap renamed in Git to a name the server
// refuses, or moved to a namespace that does not exist, keeps its old object (exit 3, nothing deleted), where the prune
// used to delete it and leave the app with neither. A rename the server accepts is pruned as before (the new object is
// not created: creating is a sync's work).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubectl, kvValues, runPlugin } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 120_000;
let ns: string;
let root: string;

beforeAll(async () => {
  ns = await createTestNamespace('prune-dry-run');
  root = tempDir('prune-dry-run');
});

afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

const configMap = (name: string, namespace?: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}data:\n  k: v\n`;

function desired(dir: string, text: string): string {
  const path = join(root, dir);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'cm.yaml'), text);
  return path;
}

const exists = async (name: string) => (await kubectl(['get', 'configmap', name, '-n', ns, '-o', 'name'])).code === 0;

test(
  'a rename the server refuses (a name with a capital, a namespace that does not exist): nothing deleted, exit 3; an accepted one is pruned',
  async () => {
    const app = join(root, 'app.yaml');
    writeFileSync(app, applicationYaml({ name: 'renamed', spec: { destination: inCluster(ns) } }));
    expect((await runPlugin(['sync', '-f', app, '--desired', desired('v1', configMap('settings'))])).code).toBe(0);
    expect(await exists('settings')).toBe(true);

    const badName = await runPlugin(['prune', '-f', app, '--desired', desired('v2', configMap('Settings-v2')), '--confirm', '-o', 'kv']);
    expect(badName.code).toBe(3);
    expect(badName.stderr).toMatch(
      /pruning renamed: nothing was deleted: the server-side dry-run refused 1 declared object\(s\) not yet in the cluster \(ConfigMap\/Settings-v2 in \S+: .*Invalid value: "Settings-v2"/,
    );
    expect(await exists('settings')).toBe(true);

    const missingNs = `${ns}-nowhere`;
    const badNs = await runPlugin(['prune', '-f', app, '--desired', desired('v3', configMap('settings', missingNs)), '--confirm', '-o', 'kv']);
    expect(badNs.code).toBe(3);
    expect(badNs.stderr).toMatch(new RegExp(`\\(ConfigMap/settings in ${missingNs}: .*namespaces "${missingNs}" not found`));
    expect(await exists('settings')).toBe(true);

    const good = await runPlugin(['prune', '-f', app, '--desired', desired('v4', configMap('settings-v2')), '--confirm', '-o', 'kv']);
    expect(good.code).toBe(0);
    expect(kvValues(good.stdout).PRUNED).toEqual(['ConfigMap/settings']);
    expect([await exists('settings'), await exists('settings-v2')]).toEqual([false, false]);
  },
  TIMEOUT,
);
