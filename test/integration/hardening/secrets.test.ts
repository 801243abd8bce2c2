// Secrets never leak: random values planted in Secret data, stringData and a client-side last-applied annotation are searched for (raw and base64) in every output of every command, in every output mode, with -v and with an error forced.
import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { applyYaml, createTestNamespace, kubectl, kubectlOk, pluginPath, run, runPlugin, type RunResult } from '../support/index.js';
import { configMap, tempDir, writeApp, writeDesired } from './support.js';
import { GitFixture } from '../../support/git-source.js';
import { countsClaims, reportClaims, tally } from '../support/claims.js';

countsClaims('secrets.values', 'secrets.runs', 'secrets.annotation-runs');

jest.setTimeout(300_000);

const TRACKING = 'argocd.argoproj.io/tracking-id';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** A random value that cannot appear by chance. */
const secretValue = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;

const planted = {
  liveData: secretValue('live-data'),
  desiredData: secretValue('desired-data'),
  desiredStringData: secretValue('desired-string'),
  lastAppliedData: secretValue('applied-data'),
  lastAppliedString: secretValue('applied-string'),
  orphanString: secretValue('orphan-string'),
  errorValue: secretValue('error-value'),
};

/** Every form a planted value could leak in: raw, base64, and base64 without its padding tail. */
function needles(): { what: string; text: string }[] {
  const out: { what: string; text: string }[] = [];
  for (const [what, v] of Object.entries(planted)) {
    out.push({ what: `${what} (raw)`, text: v });
    const enc = b64(v);
    out.push({ what: `${what} (base64)`, text: enc.replace(/=+$/, '').slice(0, -2) });
  }
  return out;
}

/** The planted values found in an output, as `what` labels. */
function leaks(res: RunResult): string[] {
  const all = res.stdout + '\n' + res.stderr;
  return needles()
    .filter((n) => all.includes(n.text))
    .map((n) => n.what);
}

let ns: string;
let app: string;
let appName: string;
let desired: string;
let errorDesired: string;
let liveFile: string;
let work: ReturnType<typeof tempDir>;

/** (Re)creates the live side: `db` applied client-side (last-applied holds its data), `orphan` (stringData in last-applied) carrying the app's mark. */
async function plantLive(): Promise<void> {
  await kubectlOk(['delete', 'secret', 'db', 'orphan', 'api', '-n', ns, '--ignore-not-found', '--wait=true']);
  const db = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: ns, annotations: { [TRACKING]: `${appName}:/Secret:${ns}/db` } },
    type: 'Opaque',
    data: { password: b64(planted.liveData), applied: b64(planted.lastAppliedData) },
  };
  const orphan = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'orphan', namespace: ns, annotations: { [TRACKING]: `${appName}:/Secret:${ns}/orphan` } },
    type: 'Opaque',
    stringData: { token: planted.orphanString, more: planted.lastAppliedString },
  };
  await applyYaml(`${stringify(db)}---\n${stringify(orphan)}`);
  const seen = await kubectlOk(['get', 'secret', 'db', 'orphan', '-n', ns, '-o', 'yaml']);
  // The planted values really are in the live objects, last-applied included (else the search proves nothing).
  expect(seen).toContain(b64(planted.liveData));
  expect(seen).toContain(planted.orphanString);
  expect(seen).toContain('kubectl.kubernetes.io/last-applied-configuration');
  writeFileSync(liveFile, seen);
}

beforeAll(async () => {
  ns = await createTestNamespace('hardening-secrets');
  appName = `sec-${ns}`;
  work = tempDir('secrets');
  // selfHeal: the Secret planted by kubectl's client-side apply is taken over (as Argo CD's self-heal would).
  app = writeApp(work.dir, { name: appName, destinationNamespace: ns, prune: true, selfHeal: true });
  liveFile = join(work.dir, 'live.yaml');
  desired = writeDesired(work.dir, 'desired', [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db' },
      type: 'Opaque',
      data: { password: b64(planted.desiredData), applied: b64(planted.lastAppliedData) },
    },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'api' }, type: 'Opaque', stringData: { key: planted.desiredStringData } },
    configMap('plain'),
  ]);
  // Secrets whose data the server cannot type (a list, a map where a string belongs): the server's error quotes the value,
  // so they are refused when the manifests are read.
  errorDesired = writeDesired(work.dir, 'error', [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, type: 'Opaque', data: [planted.errorValue] },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'api' }, type: 'Opaque', stringData: { key: { nested: planted.errorValue } } },
  ]);
  await plantLive();
});

afterAll(() => {
  tally('secrets.values', Object.keys(planted).length);
  reportClaims();
  work?.cleanup();
});

// -v 9 logs every request and response body: Secret values must be masked there too.
const MODES: string[][] = [[], ['-o', 'kv'], ['-o', 'env'], ['-o', 'json'], ['-o', 'yaml'], ['-v'], ['-v', '9']];

/** Runs one command line in every mode (`MODES` unless told) and returns `command mode: leaked value` lines, each run's exit code, and the runs. */
async function leaksOf(
  base: string[],
  opts: { reset?: boolean; modes?: string[][]; offline?: boolean } = {},
): Promise<{ found: string[]; codes: number[]; runs: { mode: string; res: RunResult }[] }> {
  const found: string[] = [];
  const codes: number[] = [];
  const runs: { mode: string; res: RunResult }[] = [];
  for (const mode of opts.modes ?? MODES) {
    if (opts.reset) await plantLive();
    // An offline command (normalize) takes no --kubeconfig: it is run without one.
    const res = opts.offline ? await run(pluginPath, [...base, ...mode]) : await runPlugin([...base, ...mode]);
    codes.push(res.code);
    runs.push({ mode: mode.join(' ') || 'table', res });
    for (const l of leaks(res)) found.push(`${base[0]} ${mode.join(' ') || 'table'}: ${l}`);
    tally('secrets.runs');
  }
  return { found, codes, runs };
}

/** Every `Kind/name` a parsed JSON or YAML report names anywhere (an object with both a kind and a name). */
function namedObjects(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) namedObjects(x, out);
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const meta = o.metadata as Record<string, unknown> | undefined;
    const name = typeof o.name === 'string' ? o.name : typeof meta?.name === 'string' ? meta.name : undefined;
    if (typeof o.kind === 'string' && name) out.add(`${o.kind}/${name}`);
    for (const x of Object.values(o)) namedObjects(x, out);
  }
  return out;
}

/**
 * That each run printed the report it should (so a run that crashed early with empty output cannot pass as "no leak"):
 * in every mode the verdict (when there is one) and each object. Table, -v and kv/env name objects as `Kind/name`;
 * json and yaml must parse and hold each object.
 */
function expectReports(runs: { mode: string; res: RunResult }[], want: { verdict?: string; objects: string[] }): void {
  const problems: string[] = [];
  for (const { mode, res } of runs) {
    const out = res.stdout;
    if (mode === '-o json' || mode === '-o yaml') {
      let parsed: unknown;
      try {
        parsed = mode === '-o json' ? JSON.parse(out) : parseAllDocuments(out).map((d) => d.toJS() as unknown);
      } catch (e) {
        problems.push(`${mode}: does not parse: ${String(e)}`);
        continue;
      }
      const named = namedObjects(parsed);
      for (const o of want.objects) if (!named.has(o)) problems.push(`${mode}: does not name ${o}`);
      if (want.verdict && !JSON.stringify(parsed).includes(`"${want.verdict}"`)) problems.push(`${mode}: no ${want.verdict}`);
    } else {
      // `Kind/name`, or a table row with the kind and the name in their columns (status: KIND NAMESPACE NAME).
      const names = (o: string) => {
        const [kind, name] = o.split('/') as [string, string];
        return out.includes(o) || new RegExp(`(^|\\s)${kind}\\s+(\\S+\\s+)?${name}(\\s|$)`, 'm').test(out);
      };
      for (const o of want.objects) if (!names(o)) problems.push(`${mode}: does not name ${o}`);
      if (want.verdict && !out.toLowerCase().includes(want.verdict.toLowerCase())) problems.push(`${mode}: no ${want.verdict}`);
    }
  }
  expect(problems).toEqual([]);
}

/** What the diff and status runs against the cluster must name: db drifted, api and plain missing, orphan extra. */
const DIFF_OBJECTS = ['Secret/db', 'Secret/api', 'ConfigMap/plain', 'Secret/orphan'];

describe('no planted secret value appears in any output', () => {
  it('diff (file mode, --live from a dump with last-applied)', async () => {
    const r = await leaksOf(['diff', '-f', app, '--desired', desired, '--live', liveFile, '-n', ns]);
    expect(r.codes.every((c) => c === 1)).toBe(true);
    expect(r.found).toEqual([]);
  });

  it('diff against the cluster', async () => {
    const r = await leaksOf(['diff', '-f', app, '--desired', desired, '-n', ns]);
    expect([...new Set(r.codes)]).toEqual([1]); // drift: db differs, api and plain are missing, orphan is extra
    expectReports(r.runs, { verdict: 'OutOfSync', objects: DIFF_OBJECTS });
    expect(r.found).toEqual([]);
  });

  it('diff --server-side', async () => {
    const r = await leaksOf(['diff', '--server-side', '-f', app, '--desired', desired, '-n', ns]);
    expect([...new Set(r.codes)]).toEqual([1]);
    expectReports(r.runs, { verdict: 'OutOfSync', objects: DIFF_OBJECTS });
    expect(r.found).toEqual([]);
  });

  it('sync --dry-run', async () => {
    const r = await leaksOf(['sync', '--dry-run', '-f', app, '--desired', desired, '-n', ns]);
    expect(r.codes.every((c) => c === 0)).toBe(true);
    expect(r.found).toEqual([]);
  });

  it('status', async () => {
    const r = await leaksOf(['status', '-f', app, '--desired', desired, '-n', ns]);
    expect([...new Set(r.codes)]).toEqual([0]); // status exits 0 whenever it produced its report
    expectReports(r.runs, { verdict: 'OutOfSync', objects: DIFF_OBJECTS });
    expect(r.found).toEqual([]);
  });

  it('manifests (as argocd app manifests: each Secret with stringData folded into data, every value a + run)', async () => {
    // YAML (the default, as -o yaml), JSON, and YAML with every request and response logged.
    const r = await leaksOf(['manifests', '-f', app, '--desired', desired, '-n', ns], {
      modes: [
        ['-o', 'yaml'],
        ['-o', 'json'],
        ['-v', '9'],
      ],
    });
    expect([...new Set(r.codes)]).toEqual([0]);
    expectReports(
      r.runs.filter((x) => x.mode !== '-v 9'),
      { objects: ['Secret/db', 'Secret/api', 'ConfigMap/plain'] },
    );
    expect(r.runs.find((x) => x.mode === '-v 9')!.res.stdout).toBe(r.runs.find((x) => x.mode === '-o yaml')!.res.stdout);
    expect(r.found).toEqual([]);
    const items = (JSON.parse(r.runs.find((x) => x.mode === '-o json')!.res.stdout) as { items: { metadata: { name: string }; data?: unknown }[] }).items;
    expect(items.filter((o) => o.metadata.name !== 'plain').map((o) => [o.metadata.name, o.data])).toEqual([
      ['api', { key: '++++++++' }],
      ['db', { applied: '++++++++', password: '++++++++' }],
    ]);
  });

  it('prune (list)', async () => {
    const r = await leaksOf(['prune', '-f', app, '--desired', desired, '-n', ns]);
    expect(r.codes.every((c) => c === 0)).toBe(true);
    expect(r.found).toEqual([]);
  });

  it('sync (applies, heals the drifted Secret, prunes the orphan), every mode from a fresh plant', async () => {
    const r = await leaksOf(['sync', '-f', app, '--desired', desired, '-n', ns, '--prune'], { reset: true });
    expect(r.codes.every((c) => c === 0)).toBe(true);
    expect(r.found).toEqual([]);
    // It really did the work whose report was searched.
    const api = JSON.parse(await kubectlOk(['get', 'secret', 'api', '-n', ns, '-o', 'json'])) as { data: Record<string, string> };
    expect(api.data.key).toBe(b64(planted.desiredStringData));
    expect(await kubectlOk(['get', 'secret', 'orphan', '-n', ns, '--ignore-not-found', '-o', 'name'])).toBe('');
  });

  it('prune --confirm, every mode from a fresh plant', async () => {
    const r = await leaksOf(['prune', '--confirm', '-f', app, '--desired', desired, '-n', ns], { reset: true });
    expect(r.codes.every((c) => c === 0)).toBe(true);
    expect(r.found).toEqual([]);
  });

  test('errors forced (Secrets whose data the server cannot type): refused when read, exit 2, in sync, sync --dry-run, diff --server-side and diff, with -v', async () => {
    await plantLive();
    // Refusing is not vacuous: the API server's own message quotes the value (kubectl shows it as is), as Argo CD would.
    const raw = await kubectl(['apply', '--server-side', '--dry-run=server', '-n', ns, '-f', join(errorDesired, '000.yaml')]);
    expect(raw.code).not.toBe(0);
    expect(raw.stdout + raw.stderr).toContain(planted.errorValue);
    const before = await kubectlOk(['get', 'secrets', '-n', ns, '-o', 'jsonpath={.items[*].metadata.resourceVersion}']);
    const found: string[] = [];
    for (const base of [['sync'], ['sync', '--dry-run'], ['diff', '--server-side'], ['diff']]) {
      const r = await leaksOf([...base, '-f', app, '--desired', errorDesired, '-n', ns]);
      expect({ run: base.join(' '), codes: [...new Set(r.codes)] }).toEqual({ run: base.join(' '), codes: [2] });
      // The refusal names the file, the Secret and the field.
      expect(r.runs[0]!.res.stderr).toMatch(/000\.yaml:\d+: document 1 \(Secret\/db\): data must be a map of strings, got a list/);
      found.push(...r.found.map((f) => `${base.join(' ')} | ${f}`));
    }
    expect(found).toEqual([]);
    // Nothing was changed.
    expect(await kubectlOk(['get', 'secrets', '-n', ns, '-o', 'jsonpath={.items[*].metadata.resourceVersion}'])).toBe(before);
  });

  it('errors forced with a bad kubeconfig context and -v', async () => {
    const r = await leaksOf(['sync', '-f', app, '--desired', desired, '-n', ns, '--context', 'no-such-context']);
    expect([...new Set(r.codes)]).toEqual([2]); // a context the kubeconfig does not have is bad input
    expect(r.found).toEqual([]);
  });
});

describe("a Secret's annotations that argocd-cm names (resource.sensitive.mask.annotations)", () => {
  const token = { desired: secretValue('annotation-desired'), live: secretValue('annotation-live') };
  let ns2: string;
  let app2: string;
  let desired2: string;
  let cm: string;
  let dir: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    ns2 = await createTestNamespace('hardening-annotations');
    dir = tempDir('secret-annotations');
    const name = `ann-${ns2}`;
    app2 = writeApp(dir.dir, { name, destinationNamespace: ns2 });
    const tokened = (value: string, extra: Record<string, string> = {}) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tokened', annotations: { 'openshift.io/token-secret.value': value, team: 'shop', ...extra } },
      type: 'Opaque',
      data: { k: b64('x') },
    });
    desired2 = writeDesired(dir.dir, 'desired', [tokened(token.desired)]);
    cm = join(dir.dir, 'argocd-cm.yaml');
    writeFileSync(
      cm,
      stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'argocd-cm', namespace: 'argocd' },
        data: { 'resource.sensitive.mask.annotations': 'api-key, openshift.io/token-secret.value' },
      }),
    );
    // Live with another token (applied server-side by another manager, so no last-applied copy holds it).
    const live = tokened(token.live, { [TRACKING]: `${name}:/Secret:${ns2}/tokened` });
    await kubectlOk(['apply', '--server-side', '--field-manager', 'someone', '-n', ns2, '-f', '-'], { stdin: stringify(live) });
  });
  afterAll(() => dir?.cleanup());
  const found = (res: RunResult) =>
    Object.entries(token)
      .filter(([, v]) => (res.stdout + res.stderr).includes(v))
      .map(([k]) => k);

  it('no value of one appears in diff, status, sync --dry-run or manifests, in any mode; without the setting diff shows both', async () => {
    const leaked: string[] = [];
    const runs: { mode: string; res: RunResult }[] = [];
    for (const command of [['diff'], ['status'], ['sync', '--dry-run'], ['manifests']]) {
      const modes =
        command[0] === 'manifests'
          ? [
              ['-o', 'yaml'],
              ['-o', 'json'],
              ['-v', '9'],
            ]
          : MODES;
      for (const mode of modes) {
        const res = await runPlugin([...command, '-f', app2, '--desired', desired2, '-n', ns2, '--argocd-cm', cm, ...mode]);
        if (command[0] === 'diff' || command[0] === 'status') runs.push({ mode: mode.join(' ') || 'table', res });
        leaked.push(...found(res).map((f) => `${command.join(' ')} ${mode.join(' ') || 'table'}: ${f}`));
        tally('secrets.annotation-runs');
      }
    }
    expect(leaked).toEqual([]);
    // Each diff and status run printed its report: the Secret, drifted.
    expectReports(runs, { verdict: 'OutOfSync', objects: ['Secret/tokened'] });
    // Not vacuous: without the setting the annotation is no Secret value (as in Argo CD) and the diff shows both.
    const plain = await runPlugin(['diff', '-f', app2, '--desired', desired2, '-n', ns2, '-o', 'json']);
    expect([plain.code, found(plain).sort()]).toEqual([1, ['desired', 'live']]);
  });
});

describe('normalize', () => {
  test('of a live dump holding Secrets (data, stringData, last-applied): no planted value in any mode', async () => {
    await plantLive();
    // normalize prints YAML or JSON only: -o kv and -o env are refused as bad input (exit 2, nothing printed), so
    // they are checked for that and the leak search runs over the modes that print the objects.
    const refused = await leaksOf(['normalize', liveFile], {
      modes: [
        ['-o', 'kv'],
        ['-o', 'env'],
      ],
    });
    expect(refused.runs.map((x) => ({ mode: x.mode, code: x.res.code, stdout: x.res.stdout }))).toEqual([
      { mode: '-o kv', code: 2, stdout: '' },
      { mode: '-o env', code: 2, stdout: '' },
    ]);
    const r = await leaksOf(['normalize', liveFile], { modes: MODES.filter((m) => m[1] !== 'kv' && m[1] !== 'env'), offline: true });
    expect([...new Set(r.codes)]).toEqual([0]);
    expect(r.runs.map((x) => x.mode)).toEqual(['table', '-o json', '-o yaml', '-v', '-v 9']);
    // Each printed both Secrets, their values masked: the YAML modes as documents, -o json as a List.
    for (const { mode, res } of r.runs) {
      const docs = mode === '-o json' ? (JSON.parse(res.stdout) as { items: unknown[] }).items : parseAllDocuments(res.stdout).map((d) => d.toJS() as unknown);
      const secrets = (docs as { kind: string; metadata: { name: string }; data?: Record<string, string> }[]).filter((d) => d.kind === 'Secret');
      expect({ mode, secrets: secrets.map((x) => `${x.metadata.name} ${JSON.stringify(x.data)}`).sort() }).toEqual({
        mode,
        secrets: [`db ${JSON.stringify({ applied: '++++++++', password: '++++++++' })}`, `orphan ${JSON.stringify({ more: '++++++++', token: '++++++++' })}`],
      });
    }
    expect(r.found).toEqual([]);
  });
});

describe('render failures never quote a Secret value (the message is printed and recorded in the Application)', () => {
  const value = secretValue('render-failure');
  let fx: GitFixture;
  let ns3: string;

  beforeAll(async () => {
    fx = new GitFixture();
    ns3 = await createTestNamespace('hardening-render-fail');
    // An unquoted value read as a YAML alias; a Jsonnet syntax error on the value's line; a secretGenerator literal
    // written with ':' (kustomize names the literal); a Helm values file whose value is an alias (helm names it).
    fx.write('alias/s.yaml', `apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  password: *${value}\n`);
    fx.write('jsonnet/s.jsonnet', `{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' },\n  stringData: { password: '${value}' + } }\n`);
    fx.write('kustomize/kustomization.yaml', `secretGenerator:\n- name: gen\n  literals: ["password:${value}"]\n`);
    fx.write('helm/Chart.yaml', 'apiVersion: v2\nname: leak\nversion: 0.1.0\n');
    fx.write('helm/values.yaml', `password: *${value}\n`);
    fx.write('helm/templates/s.yaml', 'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: {{ .Values.password | quote }}}\n');
    fx.commit('render failures');
    const apps = ['alias', 'jsonnet', 'kustomize', 'helm'].map((p) =>
      stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: `fail-${p}`, namespace: ns3 },
        spec: {
          project: 'default',
          source: { repoURL: fx.repo, path: p, targetRevision: 'main', ...(p === 'jsonnet' ? { directory: { jsonnet: {} } } : {}) },
          destination: { server: 'https://kubernetes.default.svc', namespace: ns3 },
        },
      }),
    );
    await applyYaml(apps.join('---\n'));
  });
  afterAll(async () => {
    fx?.cleanup();
    if (ns3) await kubectl(['delete', 'namespace', ns3, '--wait=false', '--ignore-not-found']);
  });

  it.each(['alias', 'jsonnet', 'kustomize', 'helm'])(
    '%s: status, diff and sync fail naming the file or the tool, and nothing they print or record holds the value',
    async (p) => {
      const outputs: string[] = [];
      for (const args of [['status'], ['diff'], ['sync'], ['status', '-o', 'json']]) {
        const res = await runPlugin([...args, `fail-${p}`, '--app-namespace', ns3, '--argocd-namespace', ns3]);
        expect({ args, failed: res.code === 2 || res.code === 3 }).toEqual({ args, failed: true });
        outputs.push(res.stdout, res.stderr);
      }
      const said = outputs.join('\n');
      expect(said).toMatch(
        p === 'kustomize'
          ? /kustomize build failed|kubectl kustomize failed/
          : p === 'helm'
            ? /helm template failed/
            : p === 'jsonnet'
              ? /evaluating Jsonnet/
              : /s\.yaml/,
      );
      const recorded = await kubectlOk(['get', 'application', `fail-${p}`, '-n', ns3, '-o', 'json']);
      expect(recorded).toContain('ComparisonError');
      for (const text of [said, recorded]) {
        expect(text).not.toContain(value);
        expect(text).not.toContain(value.slice(-16));
      }
    },
  );
});
