// Fuzzing manifest parsing: any text, any YAML tree, any JSON either yields objects or a clear InputError, never another exception, never a hang.
import fc from 'fast-check';
import { Document, parseAllDocuments, stringify, visit } from 'yaml';
import { goPlainScalar, goYamlTags } from '../../../src/manifest/go-scalars.js';
import { InputError } from '../../../src/model/errors.js';
import { parseManifests, type ManifestObject } from '../../../src/manifest/parse.js';
import { isPlainObject } from '../../../src/model/object.js';
import { anyText, json, kubeObject, RUNS, tree, yamlishText } from './arbitraries.js';

/** YAML text of a value as kubectl would read it back: a string that go-yaml v2 would read as another value is quoted. */
function goYaml(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && goPlainScalar(node.value) !== undefined) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString();
}

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

/**
 * The refusals only Kubernetes makes, of text a YAML parser reads: each document (or each item of a `*List`) must be
 * an object with an apiVersion, a kind, metadata, a name (or a hook's generateName), a string namespace and maps
 * of strings for labels and annotations. Returns the message pattern of the first rule broken, or undefined.
 */
function kubernetesRefusal(values: unknown[]): RegExp | undefined {
  for (const v of values) {
    if (!isPlainObject(v)) return /is not an object/;
    if (isListDocument(v)) {
      if (v.items !== undefined && v.items !== null && !Array.isArray(v.items)) return /whose items is not a list/;
      if (v.items === undefined || v.items === null) return /without an items list/;
      for (const item of (v.items as unknown[] | null | undefined) ?? []) {
        const broken = objectRefusal(item);
        if (broken) return broken;
      }
      continue;
    }
    const broken = objectRefusal(v);
    if (broken) return broken;
  }
  return undefined;
}

function isListDocument(v: Record<string, unknown>): boolean {
  return v.kind === 'List' || (typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items));
}

function listItems(v: unknown): unknown[] {
  return isPlainObject(v) && isListDocument(v) ? ((v.items as unknown[] | null | undefined) ?? []) : [v];
}

function objectRefusal(v: unknown): RegExp | undefined {
  if (!isPlainObject(v)) return /is not an object/;
  if (typeof v.apiVersion !== 'string' || v.apiVersion === '') return /has no apiVersion/;
  if (typeof v.kind !== 'string' || v.kind === '') return /has no kind/;
  const meta = v.metadata;
  if (!isPlainObject(meta)) return /has no metadata$/;
  const annotations = meta.annotations;
  const hook = isPlainObject(annotations) && ['argocd.argoproj.io/hook', 'helm.sh/hook'].some((k) => typeof annotations[k] === 'string');
  const generated = typeof meta.generateName === 'string' && meta.generateName !== '' && hook;
  if (meta.name !== undefined && meta.name !== null && typeof meta.name !== 'string') return /metadata\.name must be a string/;
  if ((typeof meta.name !== 'string' || meta.name === '') && !generated) return /has no metadata\.name/;
  if (meta.namespace !== undefined && typeof meta.namespace !== 'string') return /metadata\.namespace must be a string/;
  for (const field of ['labels', 'annotations']) {
    const m = meta[field];
    if (m === undefined || m === null) continue;
    if (!isPlainObject(m) || Object.values(m).some((x) => typeof x !== 'string')) return new RegExp(`metadata\\.${field}(\\.| must)`);
  }
  if (v.kind === 'Secret' && v.apiVersion === 'v1')
    for (const field of ['data', 'stringData']) {
      const m = v[field];
      if (m === undefined || m === null) continue;
      if (!isPlainObject(m) || Object.values(m).some((x) => typeof x !== 'string' && x !== null)) return new RegExp(`\\(Secret/[^)]*\\): ${field}(\\.| must)`);
    }
  return undefined;
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
        const text = docs.map((d) => goYaml(d)).join('---\n');
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
        const yamlText = objs.map((o) => goYaml(o)).join('---\n');
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
        const text = objs.map((o) => goYaml(o)).join('---\n');
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
          const docs = parseAllDocuments(text, { uniqueKeys: true, strict: true, customTags: goYamlTags as never });
          const list = Array.isArray(docs) ? docs : [docs];
          const referenceError = list.some((d) => d.errors.length > 0);
          const r = parseOutcome(text, 'ref.yaml');
          if (referenceError) {
            expect('error' in r).toBe(true);
            return;
          }
          let values: unknown[];
          try {
            values = list
              .filter((d) => d.contents !== null)
              .map((d) => d.toJS({ maxAliasCount: 100 }))
              .filter((v) => v !== null && v !== undefined);
          } catch {
            // The reference cannot build the values (an alias bomb, an alias with no anchor): so we refuse too.
            expect('error' in r).toBe(true);
            return;
          }
          // Both ways: where the reference reads the text, we refuse only for a rule Kubernetes makes (listed), and
          // exactly when that rule is broken; otherwise we read the same objects.
          const rule = kubernetesRefusal(values);
          if (rule) {
            expect('error' in r).toBe(true);
            if ('error' in r) expect(r.error.message).toMatch(rule);
            return;
          }
          if ('error' in r) throw new Error(`refused text the reference reads as Kubernetes objects: ${r.error.message}`);
          expect(r.objects.map((o) => o.object)).toEqual(values.flatMap(listItems));
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
