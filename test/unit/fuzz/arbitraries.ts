// Shared fast-check arbitraries for the fuzz suites: bounded JSON trees, Kubernetes-shaped objects, YAML-ish text, FieldsV1 tries.
import fc from 'fast-check';
import type { JsonObject, JsonValue, KubeObject } from '../../../src/model/object.js';

/**
 * Seeds: `npm test` is reproducible (a fixed seed, so CI fails only on a change, never on the luck of the
 * draw); `npm run fuzz` (FUZZ_SEED=random, FUZZ_SCALE=10) explores new inputs, and a failure prints the
 * seed and path to replay with FUZZ_SEED=<seed>. Whatever a campaign finds becomes a plain unit test.
 */
const seedEnv = process.env.FUZZ_SEED;
if (seedEnv !== 'random') fc.configureGlobal({ seed: seedEnv !== undefined && seedEnv !== '' ? Number(seedEnv) : 20261130 });
const scale = Math.max(1, Number(process.env.FUZZ_SCALE ?? '1') || 1);

/** How many runs each fuzz property makes (kept in one place for the documentation's figures). */
export const RUNS = Object.fromEntries(
  Object.entries({ text: 2000, tree: 1000, object: 500, fields: 1000, tracking: 3000, diff: 400, app: 1000 }).map(([k, n]) => [k, n * scale]),
) as { readonly [K in 'text' | 'tree' | 'object' | 'fields' | 'tracking' | 'diff' | 'app']: number };

/** Any JSON value, depth and width bounded (no -0: JSON has none). */
export const json: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 4, depthSize: 'small' }).map((v) => JSON.parse(JSON.stringify(v)) as JsonValue);

const keyName = fc.oneof(
  fc.constantFrom(
    'name',
    'image',
    'ports',
    'containers',
    'env',
    'value',
    'labels',
    'data',
    'spec',
    'items',
    'kind',
    'metadata',
    'containerPort',
    'key',
    '<<',
    '~',
    'null',
    'true',
    '0',
    'on',
    'yes',
  ),
  fc.string({ maxLength: 8 }),
);

/** A JSON tree whose maps use Kubernetes-ish keys (so lists of maps with `name` appear). */
export const tree: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ maxLength: 10 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(keyName, tie('v'), { noNullPrototype: true, maxKeys: 5 }),
  ),
})).v;

const dnsName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,14}[a-z0-9])?$/);

/** A well-formed object (apiVersion, kind, metadata.name) with arbitrary other content. */
export const kubeObject: fc.Arbitrary<KubeObject> = fc
  .record({
    apiVersion: fc.constantFrom('v1', 'apps/v1', 'example.com/v1alpha1'),
    kind: fc.constantFrom('ConfigMap', 'Deployment', 'Secret', 'Thing'),
    name: dnsName,
    namespace: fc.option(dnsName, { nil: undefined }),
    labels: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.string({ maxLength: 6 }), { noNullPrototype: true, maxKeys: 3 }),
    annotations: fc.dictionary(fc.stringMatching(/^[a-z./-]{1,12}$/), fc.string({ maxLength: 12 }), { noNullPrototype: true, maxKeys: 3 }),
    rest: fc.dictionary(fc.constantFrom('spec', 'data', 'stringData', 'status', 'rules', 'x'), tree, { noNullPrototype: true, maxKeys: 4 }),
    server: fc.boolean(),
  })
  .map(({ apiVersion, kind, name, namespace, labels, annotations, rest, server }) => {
    const metadata: KubeObject['metadata'] = { name, labels, annotations };
    if (namespace !== undefined) metadata.namespace = namespace;
    if (server) Object.assign(metadata, { uid: 'u-1', resourceVersion: '42', generation: 3, creationTimestamp: '2026-01-01T00:00:00Z' });
    const body = { ...(rest as JsonObject) };
    // A core Secret's data and stringData are maps of strings (anything else is refused when read): its values as text.
    if (kind === 'Secret' && apiVersion === 'v1')
      for (const f of ['data', 'stringData'])
        if (f in body) {
          const v = body[f];
          if (v !== null && typeof v === 'object' && !Array.isArray(v)) body[f] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, JSON.stringify(x)]));
          else delete body[f];
        }
    return { apiVersion, kind, metadata, ...body } as KubeObject;
  });

/** Text built from YAML's sharp edges: indicators, anchors, aliases, tags, document markers, tabs, quotes. */
export const yamlishText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'apiVersion: v1\n',
        'kind: ConfigMap\n',
        'metadata:\n',
        '  name: x\n',
        '  namespace: 12\n',
        'data:\n',
        '  k: v\n',
        '---\n',
        '...\n',
        '- ',
        '? ',
        ': ',
        '&a ',
        '*a',
        '*b ',
        '&b [*a, *a]\n',
        '!!str ',
        '!!binary ',
        '!custom ',
        '<<: *a\n',
        '{',
        '}',
        '[',
        ']',
        ',',
        '"',
        "'",
        '|\n',
        '>-\n',
        '#c\n',
        '\t',
        '  ',
        '\n',
        '%YAML 1.2\n',
        '%TAG ! tag:x,2000:\n',
        'kind: List\nitems:\n',
        'null',
        '~',
        '0x1F',
        '1e400',
        '.nan',
        '\u0000',
        '\ufeff',
        '\u2028',
      ),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

/** Any text, including lone surrogates and control characters. */
export const anyText: fc.Arbitrary<string> = fc.string({ unit: 'binary', maxLength: 400 });

/** A FieldsV1 key: well-formed `f:`, `k:`, `v:`, `i:`, `.`, or garbage. */
const fieldsKey: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 8 }).map((s) => `f:${s}`),
  fc
    .dictionary(fc.constantFrom('name', 'containerPort', 'protocol', 'key'), fc.oneof(fc.string({ maxLength: 5 }), fc.integer({ min: 0, max: 65535 })), {
      noNullPrototype: true,
      minKeys: 1,
      maxKeys: 2,
    })
    .map((o) => `k:${JSON.stringify(o)}`),
  json.map((v) => `v:${JSON.stringify(v)}`),
  fc.nat({ max: 20 }).map((n) => `i:${n}`),
  fc.constant('.'),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('k:[1]', 'k:{', 'v:', 'i:-1', 'i:x', 'f', ':', 'x:y'),
);

/** An arbitrary FieldsV1-shaped trie (values maps, sometimes not). */
export const fieldsTrie: fc.Arbitrary<JsonObject> = fc.letrec<{ t: JsonObject; node: JsonValue }>((tie) => ({
  t: fc.dictionary(fieldsKey, tie('node'), { noNullPrototype: true, maxKeys: 4 }),
  node: fc.oneof({ depthSize: 'small' }, fc.constant({}), tie('t'), tie('t'), json),
})).t;

/** A well-formed FieldsV1 trie (only valid keys, maps all the way down). */
export const validFieldsTrie: fc.Arbitrary<JsonObject> = fc.letrec<{ t: JsonObject }>((tie) => ({
  t: fc.dictionary(
    fc.oneof(
      fc.stringMatching(/^[a-zA-Z]{1,6}$/).map((s) => `f:${s}`),
      fc.stringMatching(/^[a-z]{1,5}$/).map((s) => `k:${JSON.stringify({ name: s })}`),
      fc.stringMatching(/^[a-z]{1,5}$/).map((s) => `v:${JSON.stringify(s)}`),
      fc.nat({ max: 9 }).map((n) => `i:${n}`),
    ),
    fc.oneof(
      { depthSize: 'small' },
      fc.constant({}),
      tie('t'),
      tie('t').map((t) => ({ ...t, '.': {} })),
    ),
    { noNullPrototype: true, maxKeys: 4 },
  ),
})).t;

/** Runs `f` and returns what it threw, or undefined. */
export function thrown(f: () => unknown): unknown {
  try {
    f();
    return undefined;
  } catch (err) {
    return err;
  }
}

/** True for the built-in programming errors a crash would throw (as opposed to a reported failure). */
export function isCrash(err: unknown): boolean {
  return err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError || err instanceof SyntaxError || !(err instanceof Error);
}
