// Bad input corpus (test/fixtures/bad/): every case is refused with exit 2 and an error naming the file and line (or the field), and the cluster is unchanged (uid and resourceVersion of every object compared before and after `sync` and `prune --confirm`).
import { jest } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestNamespace, kubectlOk, repoRoot, runPlugin } from '../support/index.js';
import { baselineObjects, pluginExpect, snapshot, snapshotChanges, tempDir, writeApp, writeDesired } from './support.js';
import { countsClaims, reportClaims, tally } from '../support/claims.js';

countsClaims('bad-input.inputs', 'bad-input.refusals');

jest.setTimeout(300_000);

const BAD = join(repoRoot, 'test', 'fixtures', 'bad');

interface BadCase {
  name: string;
  /** The --desired folder or file. */
  desired?: string;
  /** The -f Application file (default: the suite's good app). */
  app?: string;
  /** What stderr must say: where (file and line or field) and what. */
  error: RegExp;
}

/** Manifest cases: the desired folder is the bad one (were it accepted, the baseline would be pruned). */
const manifestCases: BadCase[] = [
  { name: 'YAML syntax error', desired: 'yaml-syntax', error: /yaml-syntax\/app\.yaml:1[34]:\d+: invalid YAML/ },
  { name: 'JSON syntax error', desired: 'json-syntax', error: /json-syntax\/objects\.json:5:\d+: invalid JSON/ },
  { name: 'binary file', desired: 'binary', error: /binary\/blob\.yaml:1(:\d+)?: / },
  { name: 'alias bomb', desired: 'alias-bomb', error: /alias-bomb\/bomb\.yaml:\d+: .*alias/i },
  { name: 'duplicate keys', desired: 'duplicate-keys', error: /duplicate-keys\/dup\.yaml:7:\d+: .*duplicate/i },
  {
    name: 'the same object twice',
    desired: 'duplicate-object',
    error: /declared twice: at \S*duplicate-object\/a\.yaml:1 and at \S*duplicate-object\/b\.yaml:1/,
  },
  { name: 'numeric name', desired: 'numeric-name', error: /numeric-name\/cm\.yaml:1: .*metadata\.name/ },
  { name: "YAML's .nan (no JSON number)", desired: 'non-finite', error: /non-finite\/deploy\.yaml:7: Deployment\/ratio: spec\.replicas is NaN/ },
  { name: 'a list where a map belongs (metadata)', desired: 'list-for-map', error: /list-for-map\/cm\.yaml:1: .*metadata/ },
  { name: 'missing kind', desired: 'missing-kind', error: /missing-kind\/cm\.yaml:1: .*no kind/ },
  { name: 'missing name', desired: 'missing-name', error: /missing-name\/cm\.yaml:1: .*metadata\.name/ },
  { name: 'a document that is a list', desired: 'not-an-object', error: /not-an-object\/list\.yaml:1: .*not an object/ },
  { name: 'unknown kind (discovery)', desired: 'unknown-kind', error: /unknown-kind\/thing\.yaml:1: .*Frobnicator/ },
];

/** Application cases: a good desired set that drops one baseline object (were the app accepted, that object would be pruned or the rest re-stamped). */
const appCases: BadCase[] = [
  { name: 'Application YAML syntax error', app: 'yaml-syntax.yaml', error: /apps\/yaml-syntax\.yaml:\d+:\d+: invalid YAML/ },
  {
    name: 'Application with wrong types',
    app: 'wrong-types.yaml',
    error: /apps\/wrong-types\.yaml: Application spec\.destination\.namespace: must be a string/,
  },
  {
    name: 'automated.prune as a string',
    app: 'automated-prune-string.yaml',
    error: /automated-prune-string\.yaml: Application spec\.syncPolicy\.automated\.prune: must be true or false/,
  },
  {
    name: 'syncOptions not a list',
    app: 'sync-options-not-list.yaml',
    error: /sync-options-not-list\.yaml: Application spec\.syncPolicy\.syncOptions: must be a list/,
  },
  { name: 'ignoreDifferences not a list', app: 'ignore-not-list.yaml', error: /ignore-not-list\.yaml: Application spec\.ignoreDifferences: must be a list/ },
  {
    name: 'ignoreDifferences with an invalid JSON pointer',
    app: 'bad-pointer.yaml',
    error: /bad-pointer\.yaml: Application spec\.ignoreDifferences\[0\]\.jsonPointers\[0\]: "spec\/replicas" is not a JSON pointer/,
  },
  { name: 'not an Application', app: 'not-an-application.yaml', error: /not-an-application\.yaml: not an Argo CD Application/ },
];

let ns: string;
let work: ReturnType<typeof tempDir>;
let goodApp: string;
let goodDesired: string;
let fewerDesired: string;
let clusterScoped: [string, string][];

beforeAll(async () => {
  ns = await createTestNamespace('hardening-bad');
  work = tempDir('bad');
  const objects = baselineObjects(ns);
  goodApp = writeApp(work.dir, { name: `bad-${ns}`, destinationNamespace: ns, prune: true });
  goodDesired = writeDesired(work.dir, 'good', objects);
  fewerDesired = writeDesired(
    work.dir,
    'fewer',
    objects.filter((o) => o.metadata.name !== 'gamma'),
  );
  clusterScoped = [['clusterrole', `hardening-${ns}`]];
  await pluginExpect(['sync', '-f', goodApp, '--desired', goodDesired], 0);
  // The namespace's own objects (default ServiceAccount, root CA ConfigMap) appear on their own: wait for them.
  for (let i = 0; i < 60 && !(await kubectlOk(['get', 'configmap', 'kube-root-ca.crt', '-n', ns, '--ignore-not-found', '-o', 'name'])); i++)
    await new Promise((r) => setTimeout(r, 500));
});

afterAll(async () => {
  reportClaims();
  work?.cleanup();
  if (ns) await kubectlOk(['delete', 'clusterrole', `hardening-${ns}`, '--ignore-not-found']);
});

/** Runs `sync` and `prune --confirm` with the case's inputs; each must exit 2 naming the place, and change nothing. */
async function expectRefused(c: BadCase): Promise<void> {
  const desired = c.desired ? (c.desired.startsWith('/') ? c.desired : join(BAD, c.desired)) : fewerDesired;
  const app = c.app ? join(BAD, 'apps', c.app) : goodApp;
  for (const cmd of [['sync'], ['prune', '--confirm']]) {
    const before = await snapshot(ns, clusterScoped);
    const res = await runPlugin([...cmd, '-f', app, '--desired', desired, '-n', ns]);
    const after = await snapshot(ns, clusterScoped);
    expect({ cmd: cmd[0], code: res.code, stderr: res.stderr }).toEqual({ cmd: cmd[0], code: 2, stderr: expect.stringMatching(c.error) });
    // One clear line, not a stack trace.
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(snapshotChanges(before, after)).toEqual([]);
    tally('bad-input.refusals');
  }
  tally('bad-input.inputs');
}

describe('bad manifests', () => {
  for (const c of manifestCases) it(`${c.name}: exit 2, names the place, cluster unchanged`, () => expectRefused(c));

  it('a very large file (about 24 MB, 120,000 documents) with an error on its last line: exit 2 naming that line, in bounded time', async () => {
    const parts: string[] = [];
    for (let i = 0; i < 120_000; i++) parts.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-${i}\ndata:\n  payload: "${'x'.repeat(120)}"\n`);
    parts.push('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata: {a: [1, 2}\n');
    const text = parts.join('---\n');
    const lastLine = text.split('\n').length - 1;
    const file = join(work.dir, 'big', 'huge.yaml');
    writeDesired(work.dir, 'big', []);
    writeFileSync(file, text);
    expect(text.length).toBeGreaterThan(20_000_000);
    const started = Date.now();
    await expectRefused({ name: 'huge', desired: join(work.dir, 'big'), error: new RegExp(`huge\\.yaml:${lastLine}(:\\d+)?: `) });
    expect(Date.now() - started).toBeLessThan(150_000);
  });

  it('a field of the wrong type only the server knows (replicas: three): refused by the server-side dry-run before anything changes, naming the object and the field', async () => {
    const before = await snapshot(ns, clusterScoped);
    const res = await runPlugin(['sync', '-f', goodApp, '--desired', join(BAD, 'wrong-type-in-spec'), '-n', ns]);
    expect(snapshotChanges(before, await snapshot(ns, clusterScoped))).toEqual([]);
    expect(res.code).toBe(3); // the API server refused it: a cluster answer, not an input the tool could check
    expect(res.stdout + res.stderr).toMatch(/replicas-as-text[\s\S]*spec\.replicas/);
    expect(res.stdout + res.stderr).toMatch(/nothing was applied or deleted/);
  });

  test('labels given as a list: exit 2 (an input error, found before the cluster is asked)', async () => {
    await expectRefused({ name: 'labels-list', desired: 'labels-list', error: /labels-list\/cm\.yaml:\d+: .*metadata\.labels/ });
  });
});

describe('bad Applications', () => {
  for (const c of appCases) it(`${c.name}: exit 2, names the field, cluster unchanged`, () => expectRefused(c));

  it("ignoreDifferences with an invalid jq expression: exit 2 with jq's own compile error", async () => {
    await expectRefused({
      name: 'bad jq',
      app: 'bad-jq.yaml',
      error: /bad-jq\.yaml: Application spec\.ignoreDifferences\[0\]\.jqPathExpressions\[0\] "\.data\[\[" does not compile: (?!starting jq)/,
    });
  });

  it('ignoreDifferences with an invalid jq expression: never exit 0, and nothing changes', async () => {
    const before = await snapshot(ns, clusterScoped);
    const res = await runPlugin(['sync', '-f', join(BAD, 'apps', 'bad-jq.yaml'), '--desired', fewerDesired, '-n', ns]);
    expect(snapshotChanges(before, await snapshot(ns, clusterScoped))).toEqual([]);
    expect(res.code).toBe(2);
  });

  it('unknown sync options: a warning naming each, and an in-sync dry-run changes nothing', async () => {
    const before = await snapshot(ns, clusterScoped);
    const res = await runPlugin(['sync', '--dry-run', '-f', join(BAD, 'apps', 'unknown-sync-option.yaml'), '--desired', goodDesired, '-n', ns]);
    expect(res.stderr).toMatch(/syncOptions Bogus=true: not supported/);
    expect(res.stderr).toMatch(/syncOptions CreateNamespace=maybe: expected CreateNamespace=true or CreateNamespace=false/);
    expect(res.code).toBe(0);
    expect(snapshotChanges(before, await snapshot(ns, clusterScoped))).toEqual([]);
  });
});

describe('bad live state', () => {
  it('an invalid tracking-id on a live object: never pruned, named with the reason; the rest of the app is untouched', async () => {
    for (const [name, mark] of [
      ['marked-garbage', 'no-colons-here'],
      ['marked-half', `bad-${ns}:/ConfigMap`],
      ['marked-empty-app', `:/ConfigMap:${ns}/marked-empty-app`],
    ] as const) {
      await kubectlOk(['create', 'configmap', name, '-n', ns, '--from-literal=k=v']);
      await kubectlOk(['annotate', 'configmap', name, '-n', ns, `argocd.argoproj.io/tracking-id=${mark}`]);
    }
    const before = await snapshot(ns, clusterScoped);
    const listed = await runPlugin(['prune', '-f', goodApp, '--desired', goodDesired, '-n', ns, '-o', 'json']);
    expect(listed.code).toBe(0);
    const report = JSON.parse(listed.stdout) as { entries: { name: string }[]; notOwned: { name: string; reason: string }[] };
    expect(report.entries.map((e) => e.name)).toEqual([]);
    for (const name of ['marked-garbage', 'marked-half', 'marked-empty-app']) {
      expect(report.notOwned.find((n) => n.name === name)?.reason).toMatch(/malformed tracking-id/);
    }
    const pruned = await runPlugin(['prune', '--confirm', '-f', goodApp, '--desired', goodDesired, '-n', ns]);
    expect(pruned.code).toBe(0);
    const synced = await runPlugin(['sync', '-f', goodApp, '--desired', goodDesired, '-n', ns]);
    expect(synced.code).toBe(0);
    expect(snapshotChanges(before, await snapshot(ns, clusterScoped))).toEqual([]);
  });
});
