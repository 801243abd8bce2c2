// Every diff fixture triple through file mode (runFileDiff) and cluster mode (liveDiff against the fake gateway holding
// the same live objects), and status on the same cluster: all read the one comparison, so each object, field, verdict, value and owner must be the same.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { tempDir } from '../../support/temp-dir.js';
import { COMMON_TYPES, FakeGateway } from '../../support/fake-gateway.js';
import type { ResourceType } from '../../../src/model/resource-type.js';
import { memoryIo } from '../../../src/cli/io.js';
import { runFileDiff } from '../../../src/workflows/diff/file-diff.js';
import { liveDiff } from '../../../src/workflows/diff/live-diff.js';
import { runStatus } from '../../../src/workflows/status/status.js';
import { jqRunner } from '../../../src/jq/runner.js';
import { renderDiff } from '../../../src/render/diff.js';
import { renderLiveDiff } from '../../../src/render/live-diff.js';
import { paint } from '../../../src/render/colour.js';
import { keyOf, keyString, type KubeObject } from '../../../src/model/object.js';
import { TRACKING_ID } from '../../../src/model/keys.js';
import { buildTrackingId, instanceName } from '../../../src/tracking/tracking-id.js';
import type { GlobalOptions } from '../../../src/model/context.js';
import type { ObjectDiff } from '../../../src/diff/types.js';
import { renderPath } from '../../../src/model/field-path.js';
import { applicationYaml } from '../../support/application.js';

const ROOT = join(process.cwd(), 'test/fixtures/diff');
const CASES = readdirSync(ROOT)
  .filter((d) => existsSync(join(ROOT, d, 'expected.yaml')))
  .sort();
const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };
const MINIMAL_APP = applicationYaml({ spec: { destination: { namespace: 'shop' } } });

/** The common types plus one for each kind the fixture's objects use (served as a namespaced resource). */
function typesFor(objects: readonly KubeObject[]): ResourceType[] {
  const types = [...COMMON_TYPES];
  for (const o of objects) {
    const [group, version] = o.apiVersion.includes('/') ? (o.apiVersion.split('/') as [string, string]) : ['', o.apiVersion];
    if (types.some((t) => t.group === group && t.kind === o.kind)) continue;
    types.push({
      group,
      version,
      kind: o.kind,
      resource: `${o.kind.toLowerCase()}s`,
      namespaced: true,
      verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'],
    });
  }
  return types;
}

function objectsOf(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .flatMap((o) => (o === null ? [] : o.kind === 'List' ? ((o as unknown as { items: KubeObject[] }).items ?? []) : [o]));
}

/** What each mode says of each object: the verdicts and everything the fields carry. */
function verdicts(objects: readonly ObjectDiff[]) {
  return objects.map((o) => ({
    object: `${o.key.kind}/${o.key.namespace}/${o.key.name}`,
    status: o.status,
    fields: o.fields.map((f) => ({ ...f, owners: f.owners.map((x) => `${x.manager} ${x.operation}`) })),
  }));
}

afterAll(async () => {
  await (await jqRunner()).close();
});

describe('file mode, cluster mode and status give identical verdicts on every diff fixture', () => {
  it('runs every fixture', () => expect(CASES.length).toBeGreaterThanOrEqual(15));

  it.each(CASES)('%s', async (name) => {
    const dir = join(ROOT, name);
    const work = tempDir(`parity-${name}`);
    const appFile = join(work, 'app.yaml');
    if (existsSync(join(dir, 'app.yaml'))) copyFileSync(join(dir, 'app.yaml'), appFile);
    else writeFileSync(appFile, MINIMAL_APP);
    const app = parse(readFileSync(appFile, 'utf8')) as { metadata: { name: string; namespace: string }; spec: { destination: { namespace: string } } };
    const destNs = app.spec.destination.namespace;
    const desiredDir = join(work, 'desired');
    mkdirSync(desiredDir);
    copyFileSync(join(dir, 'desired.yaml'), join(desiredDir, 'desired.yaml'));
    const desiredKeys = new Set(objectsOf(join(dir, 'desired.yaml')).map((o) => keyString({ ...keyOf(o), namespace: o.metadata.namespace ?? destNs })));

    // The live objects as the app left them: each desired one carries the app's mark (as a dump of the cluster would).
    const instance = instanceName({ name: app.metadata.name, namespace: app.metadata.namespace });
    const live = objectsOf(join(dir, 'live.yaml')).map((o) => {
      const key = { ...keyOf(o), namespace: o.metadata.namespace ?? '' };
      if (!desiredKeys.has(keyString(key)) || o.metadata.annotations?.[TRACKING_ID]) return o;
      return { ...o, metadata: { ...o.metadata, annotations: { ...(o.metadata.annotations ?? {}), [TRACKING_ID]: buildTrackingId(instance, key, destNs) } } };
    });
    const liveFile = join(work, 'live.yaml');
    writeFileSync(liveFile, live.map((o) => stringify(o)).join('---\n'));

    const file = await runFileDiff({ desired: join(desiredDir, 'desired.yaml'), live: liveFile, appFile, fieldManager: 'argocd-controller' });
    const types = typesFor([...live, ...objectsOf(join(dir, 'desired.yaml'))]);
    const cluster = await liveDiff(
      { appFile, desired: desiredDir, serverSide: false },
      { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: live, types }) },
    );
    // status reads the same comparison: each resource's sync status and the app's agree with the diff.
    const status = (await runStatus({ appFile, desired: desiredDir }, { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: live, types }) })).report;
    expect(status.sync.status).toBe(cluster.sync);
    expect(status.resources.map((r) => `${r.kind}/${r.name} ${r.status}`).sort()).toEqual(
      cluster.objects.map((o) => `${o.key.kind}/${o.key.name} ${o.status === 'in-sync' ? 'Synced' : 'OutOfSync'}`).sort(),
    );

    expect(cluster.sync).toBe(file.report.sync);
    expect(verdicts(cluster.objects)).toEqual(verdicts(file.report.objects));
    expect(cluster.extras).toEqual([]);
    // And both are what the fixture expects.
    const expected = parse(readFileSync(join(dir, 'expected.yaml'), 'utf8')) as {
      sync: string;
      objects: { object: string; status: string; fields: { path: string; verdict: string }[] }[];
      secretsNeverShown?: string[];
    };
    expect(file.report.sync).toBe(expected.sync);
    expect(
      file.report.objects.map((o) => `${o.key.kind}/${o.key.name} ${o.status} ${o.fields.map((f) => `${renderPath(f.path)} ${f.verdict}`).join(', ')}`),
    ).toEqual(expected.objects.map((o) => `${o.object} ${o.status} ${o.fields.map((f) => `${f.path} ${f.verdict}`).join(', ')}`));
    for (const secret of expected.secretsNeverShown ?? []) {
      for (const format of ['table', 'json', 'yaml', 'kv'] as const) {
        expect(renderDiff(file.report, format, paint(false))).not.toContain(secret);
        expect(renderLiveDiff(cluster, format, paint(false))).not.toContain(secret);
      }
    }
  });
});
