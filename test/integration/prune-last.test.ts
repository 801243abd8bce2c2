// When a sync prunes, on the real API server: the order of creations and deletions read back from the server's own
// watch (every event since a resourceVersion taken before the sync), with and without PruneLast.
//
// Argo CD documents PruneLast (the app-level option, or `argocd.argoproj.io/sync-options: PruneLast=true` on an
// object) as pruning "as a final, implicit wave of a sync operation, after the other resources have been deployed
// and become healthy, and after all other waves completed successfully". This tool prunes after every apply of
// every wave in all cases (docs/concepts/differences.md, "When a sync prunes"), in reverse wave order, and an object annotated
// PruneLast=true after every other prune candidate. The three cases below prove each of those on the server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { apiRequest } from './support/api.js';
import { createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 180_000;
let ns: string;
let root: string;

function writeApp(name: string, syncOptions: string[]): string {
  const file = join(root, `${name}.yaml`);
  writeFileSync(file, applicationYaml({ name, spec: { destination: inCluster(ns), ...(syncOptions.length > 0 ? { syncPolicy: { syncOptions } } : {}) } }));
  return file;
}

/** A folder of ConfigMaps, each `[name, wave, sync-options annotation or '']`. */
function writeDesired(dir: string, objects: [string, number, string][]): string {
  const path = join(root, dir);
  mkdirSync(path, { recursive: true });
  for (const [name, wave, options] of objects) {
    const annotations: Record<string, string> = { 'argocd.argoproj.io/sync-wave': String(wave) };
    if (options) annotations['argocd.argoproj.io/sync-options'] = options;
    writeFileSync(
      join(path, `${name}.yaml`),
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, annotations: ${JSON.stringify(annotations)}}\ndata: {k: v}\n`,
    );
  }
  return path;
}

/** The namespace's ConfigMap list resourceVersion: a watch from it replays everything after. */
async function listVersion(): Promise<string> {
  // From the API server itself: `kubectl get` prints a List of its own making, without the list's resourceVersion.
  const res = await apiRequest('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`);
  const rv = (res.body as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
  if (res.status !== 200 || !rv) throw new Error(`listing ConfigMaps in ${ns}: ${res.status} without a resourceVersion`);
  return rv;
}

/**
 * The ConfigMap events in the namespace since `from`, in the server's order, as `ADDED name` and `DELETED name`: a
 * deletion counts when it was asked for — the first event showing a deletionTimestamp (a foreground delete, the
 * default, only marks the object; the garbage collector removes it later, in its own order) or else its DELETED event.
 */
async function eventsSince(from: string, prefix: string): Promise<string[]> {
  const res = await apiRequest('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=false&resourceVersion=${from}&timeoutSeconds=2`);
  expect(res.status).toBe(200);
  const text = typeof res.body === 'string' ? res.body : `${JSON.stringify(res.body)}\n`;
  const deleting = new Set<string>();
  const out: string[] = [];
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    const e = JSON.parse(line) as { type: string; object: { metadata?: { name?: string; deletionTimestamp?: string }; message?: string } };
    // A watch the server cannot serve from that resourceVersion (410 Gone) ends with an ERROR event: say so.
    if (e.type === 'ERROR') throw new Error(`watching ConfigMaps in ${ns} from resourceVersion ${from}: ${e.object.message ?? JSON.stringify(e.object)}`);
    const name = e.object.metadata?.name ?? '';
    if (!name.startsWith(prefix)) continue;
    if (e.type === 'ADDED') out.push(`ADDED ${name}`);
    else if ((e.type === 'DELETED' || e.object.metadata?.deletionTimestamp) && !deleting.has(name)) {
      deleting.add(name);
      out.push(`DELETED ${name}`);
    }
  }
  return out;
}

/** Syncs `after` with --prune once `before` is synced; returns the server's events of the second sync and its reports. */
async function syncAndWatch(
  app: string,
  prefix: string,
  before: string,
  after: string,
): Promise<{ events: string[]; kv: Record<string, string[]>; json: { prune: { last: boolean; results: { name: string; outcome: string }[] } } }> {
  const first = await runPlugin(['sync', '-f', app, '--desired', before, '-o', 'kv'], { env: { ARGOCD_SYNC_WAVE_DELAY: '0' } });
  // Warnings are allowed on stderr (another suite's CRD may vanish between discovery and the prune scan's list).
  expect({ code: first.code, errors: first.stderr.split('\n').filter((l) => l.startsWith('error')) }).toEqual({ code: 0, errors: [] });
  const from = await listVersion();
  const res = await runPlugin(['sync', '-f', app, '--desired', after, '--prune', '-o', 'json'], { env: { ARGOCD_SYNC_WAVE_DELAY: '0' } });
  if (res.code !== 0) throw new Error(`sync --prune exited ${res.code}\nstdout:\n${res.stdout}\nstderr:\n${res.stderr}`);
  const events = await eventsSince(from, prefix);
  // The same end state again, for the kv report: nothing left to prune, nothing applied twice.
  const again = await runPlugin(['sync', '-f', app, '--desired', after, '--prune', '-o', 'kv']);
  if (again.code !== 0) throw new Error(`the second sync --prune exited ${again.code}\nstdout:\n${again.stdout}\nstderr:\n${again.stderr}`);
  return { events, kv: kvValues(again.stdout), json: JSON.parse(res.stdout) as never };
}

async function names(prefix: string): Promise<string[]> {
  const out = await kubectlOk(['get', 'configmaps', '-n', ns, '-o', 'jsonpath={.items[*].metadata.name}']);
  return out
    .split(/\s+/)
    .filter((n) => n.startsWith(prefix))
    .sort();
}

beforeAll(async () => {
  ns = await createTestNamespace('prune-last');
  root = tempDir('prune-last');
}, TIMEOUT);
afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

test(
  'without PruneLast the prune still runs after every apply of every wave, in reverse wave order',
  async () => {
    const app = writeApp('plain', []);
    const before = writeDesired('plain-1', [
      ['plain-keep', 0, ''],
      ['plain-old-w0', 0, ''],
      ['plain-old-w2', 2, ''],
    ]);
    const after = writeDesired('plain-2', [
      ['plain-keep', 0, ''],
      ['plain-new-w0', 0, ''],
      ['plain-new-w1', 1, ''],
      ['plain-new-w3', 3, ''],
    ]);
    const { events, json, kv } = await syncAndWatch(app, 'plain-', before, after);
    // Argo CD would delete old-w2 in (mirrored) wave 2, before new-w3 is created; here every creation comes first.
    expect(events).toEqual(['ADDED plain-new-w0', 'ADDED plain-new-w1', 'ADDED plain-new-w3', 'DELETED plain-old-w2', 'DELETED plain-old-w0']);
    expect(json.prune.last).toBe(false);
    expect(json.prune.results.map((r) => `${r.name} ${r.outcome}`)).toEqual(['plain-old-w2 pruned', 'plain-old-w0 pruned']);
    expect(kv.PRUNED).toBeUndefined();
    expect(await names('plain-')).toEqual(['plain-keep', 'plain-new-w0', 'plain-new-w1', 'plain-new-w3']);
  },
  TIMEOUT,
);

test(
  'an object annotated PruneLast=true is deleted after every apply and after every other prune, whatever its wave',
  async () => {
    const app = writeApp('annotated', []);
    // old-last has the highest wave: in reverse wave order it would be deleted first.
    const before = writeDesired('annotated-1', [
      ['ann-keep', 0, ''],
      ['ann-old-w0', 0, ''],
      ['ann-old-w1', 1, ''],
      ['ann-old-last', 4, 'PruneLast=true'],
    ]);
    const after = writeDesired('annotated-2', [
      ['ann-keep', 0, ''],
      ['ann-new-w0', 0, ''],
      ['ann-new-w2', 2, ''],
    ]);
    const { events, json } = await syncAndWatch(app, 'ann-', before, after);
    expect(events).toEqual(['ADDED ann-new-w0', 'ADDED ann-new-w2', 'DELETED ann-old-w1', 'DELETED ann-old-w0', 'DELETED ann-old-last']);
    expect(json.prune.last).toBe(false);
    expect(json.prune.results.map((r) => r.name)).toEqual(['ann-old-w1', 'ann-old-w0', 'ann-old-last']);
    expect(await names('ann-')).toEqual(['ann-keep', 'ann-new-w0', 'ann-new-w2']);
  },
  TIMEOUT,
);

test(
  'the app-level PruneLast=true: every prune after every apply of every wave, and the report says the option was set',
  async () => {
    const app = writeApp('applevel', ['PruneLast=true']);
    const before = writeDesired('applevel-1', [
      ['app-keep', 1, ''],
      ['app-old-w0', 0, ''],
      ['app-old-w5', 5, ''],
    ]);
    const after = writeDesired('applevel-2', [
      ['app-keep', 1, ''],
      ['app-new-w-1', -1, ''],
      ['app-new-w6', 6, ''],
    ]);
    const { events, json } = await syncAndWatch(app, 'app-', before, after);
    expect(events).toEqual(['ADDED app-new-w-1', 'ADDED app-new-w6', 'DELETED app-old-w5', 'DELETED app-old-w0']);
    expect(json.prune.last).toBe(true);
    expect(json.prune.results.map((r) => `${r.name} ${r.outcome}`)).toEqual(['app-old-w5 pruned', 'app-old-w0 pruned']);
    expect(await names('app-')).toEqual(['app-keep', 'app-new-w-1', 'app-new-w6']);
  },
  TIMEOUT,
);
