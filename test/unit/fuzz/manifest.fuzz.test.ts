// Fuzzing manifest parsing: any text, any YAML tree, any JSON either yields objects or a clear InputError, never another exception, never a hang.
import fc from 'fast-check';
import { parseAllDocuments, stringify } from 'yaml';
import { InputError } from '../../../src/model/errors.js';
import { parseManifests, type ManifestObject } from '../../../src/manifest/parse.js';
import { isPlainObject } from '../../../src/model/object.js';
import { anyText, json, kubeObject, RUNS, tree, yamlishText } from './arbitraries.js';

/** Parses and classifies the outcome; fails on a crash or on a call slower than the bound. */
function parseOutcome(text: string, file: string): { objects: ManifestObject[] } | { error: InputError } {
  const started = performance.now();
  try {
    return { objects: parseManifests(text, file) };
  } catch (err) {
    if (!(err instanceof InputError))
      throw new Error(`parseManifests threw ${(err as Error)?.constructor?.name}: ${String((err as Error)?.message ?? err)}`, { cause: err });
    // The message names the file (and a line or document) so a user can find the problem.
    expect(err.message.startsWith(file)).toBe(true);
    return { error: err };
  } finally {
    expect(performance.now() - started).toBeLessThan(2000);
  }
}

function expectWellFormed(objects: ManifestObject[], file: string): void {
  for (const o of objects) {
    expect(typeof o.object.apiVersion).toBe('string');
    expect(typeof o.object.kind).toBe('string');
    expect(typeof o.object.metadata.name).toBe('string');
    expect(o.source.file).toBe(file);
    expect(o.source.line).toBeGreaterThanOrEqual(1);
  }
}

describe('manifest parsing never crashes', () => {
  it('arbitrary text (any code unit): objects or InputError', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const r = parseOutcome(text, 'fuzz.yaml');
        if ('objects' in r) expectWellFormed(r.objects, 'fuzz.yaml');
      }),
      { numRuns: RUNS.text },
    );
  });

  it('YAML-ish text (anchors, aliases, tags, directives, flow, markers): objects or InputError', () => {
    fc.assert(
      fc.property(yamlishText, (text) => {
        const r = parseOutcome(text, 'edge.yaml');
        if ('objects' in r) expectWellFormed(r.objects, 'edge.yaml');
      }),
      { numRuns: RUNS.text },
    );
  });

  it('arbitrary text read as a .json file: objects or InputError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyText,
          json.map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const r = parseOutcome(text, 'fuzz.json');
          if ('objects' in r) expectWellFormed(r.objects, 'fuzz.json');
        },
      ),
      { numRuns: RUNS.text },
    );
  });

  it('arbitrary YAML trees (any shape, several documents): objects or InputError', () => {
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 3 }), (docs) => {
        const text = docs.map((d) => stringify(d)).join('---\n');
        const r = parseOutcome(text, 'trees.yaml');
        if ('objects' in r) expectWellFormed(r.objects, 'trees.yaml');
        else {
          // Only documents that are not Kubernetes objects may be refused.
          expect(docs.some((d) => !isPlainObject(d) || typeof d.apiVersion !== 'string' || typeof d.kind !== 'string')).toBe(true);
        }
      }),
      { numRuns: RUNS.tree },
    );
  });

  it('well-formed objects round-trip through YAML and JSON unchanged, one per document, lines increasing', () => {
    fc.assert(
      fc.property(fc.array(kubeObject, { minLength: 1, maxLength: 4 }), (objs) => {
        const yamlText = objs.map((o) => stringify(o)).join('---\n');
        const fromYaml = parseManifests(yamlText, 'ok.yaml');
        expect(fromYaml.map((o) => o.object)).toEqual(objs);
        const lines = fromYaml.map((o) => o.source.line);
        expect([...lines].sort((a, b) => a - b)).toEqual(lines);
        expect(new Set(lines).size).toBe(lines.length);
        const fromJson = parseManifests(JSON.stringify(objs[0]), 'ok.json');
        expect(fromJson.map((o) => o.object)).toEqual([objs[0]]);
      }),
      { numRuns: RUNS.object },
    );
  });

  it('never mutates or shares the text it was given: parsing twice gives equal results', () => {
    fc.assert(
      fc.property(fc.array(kubeObject, { minLength: 1, maxLength: 2 }), (objs) => {
        const text = objs.map((o) => stringify(o)).join('---\n');
        const a = parseManifests(text, 'x.yaml');
        a[0]!.object.metadata.name = 'changed';
        const b = parseManifests(text, 'x.yaml');
        expect(b[0]!.object).toEqual(objs[0]);
      }),
      { numRuns: 100 },
    );
  });

  it('agrees with the yaml package (the reference parser) on YAML-ish text: same objects when it accepts, a refusal when the reference finds an error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          yamlishText,
          fc
            .tuple(
              kubeObject,
              fc.constantFrom<'PLAIN' | 'QUOTE_DOUBLE' | 'QUOTE_SINGLE' | 'BLOCK_LITERAL'>('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL'),
              fc.boolean(),
            )
            .map(([o, defaultStringType, flow]) => stringify(o, { defaultStringType, collectionStyle: flow ? 'flow' : 'any' })),
        ),
        (text) => {
          const docs = parseAllDocuments(text, { uniqueKeys: true, strict: true });
          const list = Array.isArray(docs) ? docs : [docs];
          const referenceError = list.some((d) => d.errors.length > 0);
          const r = parseOutcome(text, 'ref.yaml');
          if (referenceError) {
            expect('error' in r).toBe(true);
            return;
          }
          if ('error' in r) return; // the reference accepts more than Kubernetes objects
          let values: unknown[];
          try {
            values = list
              .filter((d) => d.contents !== null)
              .map((d) => d.toJS({ maxAliasCount: 100 }))
              .filter((v) => v !== null && v !== undefined);
          } catch {
            return;
          }
          const flat = values.flatMap((v) => ((v as { kind?: string; items?: unknown[] }).kind === 'List' ? ((v as { items?: unknown[] }).items ?? []) : [v]));
          expect(r.objects.map((o) => o.object)).toEqual(flat);
        },
      ),
      { numRuns: RUNS.text },
    );
  });

  it('alias bombs of any fan-out and depth are refused quickly with an InputError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 3, max: 12 }), (fan, depth) => {
        const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: bomb}', 'x0: &a0 ["lol"]'];
        for (let i = 1; i <= depth; i++) lines.push(`x${i}: &a${i} [${Array.from({ length: fan }, () => `*a${i - 1}`).join(', ')}]`);
        const r = parseOutcome(lines.join('\n') + '\n', 'bomb.yaml');
        if (fan ** depth > 1000) expect('error' in r).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
