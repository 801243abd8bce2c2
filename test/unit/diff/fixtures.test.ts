// Runs every fixture triple under test/fixtures/diff/<case>/ (desired.yaml, live.yaml, optional app.yaml, expected.yaml) through file-mode diff.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runFileDiff } from '../../../src/workflows/diff/file-diff.js';
import { jqRunner } from '../../../src/jq/runner.js';
import { renderDiff } from '../../../src/render/diff.js';
import { paint } from '../../../src/render/colour.js';
import type { FieldDiff } from '../../../src/diff/types.js';
import { renderPath } from '../../../src/model/field-path.js';

const ROOT = join(process.cwd(), 'test/fixtures/diff');
const CASES = readdirSync(ROOT)
  .filter((d) => existsSync(join(ROOT, d, 'expected.yaml')))
  .sort();

interface ExpectedField {
  path: string;
  pointer?: string;
  desired?: unknown;
  live?: unknown;
  liveAbsent?: boolean;
  verdict: FieldDiff['verdict'];
  rule?: { index: number; type: string; value?: string };
  owners?: string[];
}
interface Expected {
  sync: 'Synced' | 'OutOfSync';
  objects: { object: string; status: string; fields: ExpectedField[] }[];
  secretsNeverShown?: string[];
}

afterAll(async () => {
  await (await jqRunner()).close();
});

describe('diff fixtures', () => {
  it('covers the cases the issue requires', () => {
    for (const c of [
      'extra-live-fields',
      'list-defaults',
      'list-reordered',
      'list-shorter',
      'list-longer',
      'replicas-json-pointer',
      'jq-ignore',
      'managed-fields-manager',
      'nested-map-drift',
      'annotation-label-drift',
      'label-removed-live',
      'secret-drift',
      'number-vs-string',
      'quantities',
    ]) {
      expect(CASES).toContain(c);
    }
  });

  it.each(CASES)('%s', async (name) => {
    const dir = join(ROOT, name);
    const expected = parse(readFileSync(join(dir, 'expected.yaml'), 'utf8')) as Expected;
    const appFile = join(dir, 'app.yaml');
    const { report } = await runFileDiff({
      desired: join(dir, 'desired.yaml'),
      live: join(dir, 'live.yaml'),
      appFile: existsSync(appFile) ? appFile : undefined,
      fieldManager: 'argocd-controller',
    });
    expect(report.warnings).toEqual([]);
    expect(report.sync).toBe(expected.sync);
    expect(report.objects.map((o) => `${o.key.kind}/${o.key.name}`)).toEqual(expected.objects.map((o) => o.object));
    report.objects.forEach((o, i) => {
      const want = expected.objects[i]!;
      expect({ object: want.object, status: o.status }).toEqual({ object: want.object, status: want.status });
      expect(o.fields.map((f) => `${renderPath(f.path)} ${f.verdict}`)).toEqual(want.fields.map((f) => `${f.path} ${f.verdict}`));
      o.fields.forEach((f, j) => {
        const w = want.fields[j]!;
        if (w.pointer !== undefined) expect(f.pointer).toBe(w.pointer);
        if ('desired' in w) expect(f.desired).toEqual(w.desired);
        if ('live' in w) expect(f.live).toEqual(w.live);
        if (w.liveAbsent) expect('live' in f).toBe(false);
        if (w.rule) expect(f.rule).toMatchObject(w.rule);
        if (w.verdict !== 'ignored') expect(f.rule).toBeUndefined();
        if (w.owners) expect(f.owners.map((x) => x.manager)).toEqual(w.owners);
      });
    });
    if (expected.secretsNeverShown) {
      for (const format of ['table', 'json', 'yaml', 'kv'] as const) {
        const text = renderDiff(report, format, paint(false));
        for (const secret of expected.secretsNeverShown) expect(text).not.toContain(secret);
      }
    }
  });
});
