// The layering docs/engineering/architecture.md claims, checked on every import in src/: dependencies point down, the core does no I/O,
// only cli/ prints and exits. A new import that breaks a rule fails here, naming the file and the import. Known
// breaks would be pinned below by name with the reason (the list may only shrink). Besides the imports, it checks
// that nothing outside cli/ (and main.ts, which wires the streams) writes to stdout or stderr.
//
// The imports are read with TypeScript's own parser, not a pattern: every form is seen (single or double quotes,
// multi-line, `export ... from`, `import type`, dynamic `import()`, `import("x").T` types, `require()`), and nothing
// in a comment or a string counts. A test below feeds the scanner each form, so it cannot silently miss one.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

const SRC = join(process.cwd(), 'src');

/** What a dynamic import() or require() of a computed name is recorded as: the scan cannot tell where it points. */
const NOT_A_LITERAL = '<not a literal>';

interface Found {
  spec: string; // as written
  typeOnly: boolean; // erased when compiled: `import type`, `export type`, `import("x").T`
}

interface Import extends Found {
  file: string; // relative to src/, e.g. workflows/sync/sync.ts
  target?: string; // relative to src/, for a relative import
}

/** Every module a TypeScript source names, in the order they appear. */
function scanImports(text: string, fileName = 'scanned.ts'): Found[] {
  const out: Found[] = [];
  const literal = (n: ts.Node | undefined): string => (n && ts.isStringLiteralLike(n) ? n.text : NOT_A_LITERAL);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) out.push({ spec: literal(node.moduleSpecifier), typeOnly: node.importClause?.isTypeOnly ?? false });
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) out.push({ spec: literal(node.moduleSpecifier), typeOnly: node.isTypeOnly });
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      out.push({ spec: literal(node.moduleReference.expression), typeOnly: node.isTypeOnly });
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) out.push({ spec: literal(node.argument.literal), typeOnly: true });
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      out.push({ spec: literal(node.arguments[0]), typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const imports: Import[] = files(SRC).flatMap((abs) => {
  const file = relative(SRC, abs);
  return scanImports(readFileSync(abs, 'utf8'), abs).map(
    (i): Import => (i.spec.startsWith('.') ? { ...i, file, target: normalize(join(dirname(file), i.spec)).replace(/\.js$/, '.ts') } : { ...i, file }),
  );
});

const folder = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '(root)');

/** Folders of the core: render-free comparison, ownership, tracking, plans, health. No I/O, nothing above them. */
const CORE = ['model', 'normalize', 'ownership', 'diff', 'tracking', 'health', 'sync', 'prune', 'appset'];
/** What does I/O or sits above the core (lua/ and jq/: the Lua engine and jq, worker threads handed to health/ and diff/). */
const ABOVE_CORE = ['kube', 'jq', 'workflows', 'render', 'dashboard', 'source', 'watch', 'cli', 'settings', 'record', 'app', 'manifest', 'lua', '(root)'];
/** Node's modules that reach outside the process: files, processes, the network, the terminal, threads. */
const IO_MODULES = /^(node:)?(fs|fs\/promises|child_process|http|https|http2|net|tls|dgram|readline|worker_threads|cluster)$/;

/** Known breaks, pinned: `file -> import`, each with why it is still there. */
const PINNED: Record<string, string> = {};

function violations(rule: (i: Import) => string | undefined): string[] {
  const found = new Set<string>();
  for (const i of imports) {
    const v = rule(i);
    if (v && !(v in PINNED)) found.add(v);
  }
  return [...found].sort();
}

test('the scanner sees every form of import, and nothing in a comment or a string', () => {
  const source = [
    'import a from "./double-quoted.js";',
    "import type { B } from './type-only.js';",
    'import {',
    '  c,',
    '  type D,',
    "} from './multi-line.js';",
    "import './side-effect.js';",
    'export * from "./star.js";',
    "export { e } from './re-export.js';",
    "export type { F } from './type-re-export.js';",
    "import source from 'wasmoon/dist/index.js' with { type: 'text' };",
    'const g = await import("./dynamic.js");',
    'const h = await import(`./${name}.js`);',
    "const i = require('./required.cjs');",
    "type J = import('./import-type.js').J;",
    "// import k from './in-a-comment.js';",
    'const l = "import m from \'./in-a-string.js\'";',
    "const worker = `const { parentPort } = require('node:worker_threads');`;",
  ].join('\n');
  expect(scanImports(source)).toEqual([
    { spec: './double-quoted.js', typeOnly: false },
    { spec: './type-only.js', typeOnly: true },
    { spec: './multi-line.js', typeOnly: false },
    { spec: './side-effect.js', typeOnly: false },
    { spec: './star.js', typeOnly: false },
    { spec: './re-export.js', typeOnly: false },
    { spec: './type-re-export.js', typeOnly: true },
    { spec: 'wasmoon/dist/index.js', typeOnly: false },
    { spec: './dynamic.js', typeOnly: false },
    { spec: NOT_A_LITERAL, typeOnly: false },
    { spec: './required.cjs', typeOnly: false },
    { spec: './import-type.js', typeOnly: true },
  ]);
});

test('the scan sees the imports of src/ (a guard against a scan that finds nothing)', () => {
  expect(imports.length).toBeGreaterThan(500);
  expect(imports.some((i) => i.file === 'workflows/sync/execute.ts' && i.target === 'workflows/sync/apply.ts' && !i.typeOnly)).toBe(true);
  expect(imports.some((i) => i.file === 'workflows/sync/sync.ts' && i.typeOnly)).toBe(true);
  // Dynamic imports too (the lazily loaded Lua engine).
  expect(imports.some((i) => i.file === 'workflows/status/custom-health.ts' && i.target === 'lua/engine.ts' && !i.typeOnly)).toBe(true);
});

test('every dynamic import names its module literally (else the scan cannot check where it points)', () => {
  expect(imports.filter((i) => i.spec === NOT_A_LITERAL).map((i) => i.file)).toEqual([]);
});

test('every folder of src/ is either in the core or above it (a new folder is placed before it is checked)', () => {
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  expect(folders.filter((f) => !CORE.includes(f) && !ABOVE_CORE.includes(f))).toEqual([]);
  expect(folders).toEqual(expect.arrayContaining(['lua', 'health', 'workflows']));
});

test('nothing below cli/ imports cli/ (errors, durations and the process-edge types live in model/)', () => {
  expect(
    violations((i) => (i.target && folder(i.target) === 'cli' && !['cli', '(root)'].includes(folder(i.file)) ? `${i.file} -> ${i.spec}` : undefined)),
  ).toEqual([]);
});

test('src/ never imports from test/ (fakes and fixtures live in test/support/, not in what ships)', () => {
  // A relative import that leaves src/ (test/, or anything else beside it) resolves above src/.
  const outside = imports.filter((i) => i.target !== undefined && i.target.startsWith('..'));
  expect(outside.map((i) => `${i.file} -> ${i.spec}`)).toEqual([]);
  // And no module under src/ is there only for tests: the fake gateway moved to test/support/.
  expect(
    files(SRC)
      .filter((f) => /fake|mock|stub/i.test(relative(SRC, f)))
      .map((f) => relative(SRC, f)),
  ).toEqual([]);
});

test('model/ imports nothing outside model/ and no Node module', () => {
  expect(
    violations((i) => (folder(i.file) === 'model' && ((i.target && folder(i.target) !== 'model') || !i.target) ? `${i.file} -> ${i.spec}` : undefined)),
  ).toEqual([]);
});

test('the core imports nothing that does I/O or sits above it (type-only imports of the models it reads are fine)', () => {
  const rule = (i: Import): string | undefined => {
    if (!CORE.includes(folder(i.file))) return undefined;
    if (!i.target) return IO_MODULES.test(i.spec) ? `${i.file} -> ${i.spec}` : undefined;
    const to = folder(i.target);
    if (!ABOVE_CORE.includes(to)) return undefined;
    // The Application's, the settings' and the manifests' types are the vocabulary the core works on (the gateway's
    // are not: what the core shares with it, the resource type, lives in model/).
    if (i.typeOnly && ['app', 'settings', 'manifest'].includes(to)) return undefined;
    return `${i.file} -> ${to}`;
  };
  expect(violations(rule)).toEqual([]);
});

test('workflows/ never import cli/ or render/ (they return reports; cli/ renders and prints)', () => {
  expect(
    violations((i) =>
      i.target && ['workflows', 'watch', 'kube', 'source'].includes(folder(i.file)) && ['cli', 'render'].includes(folder(i.target)) && !i.typeOnly
        ? `${i.file} -> ${i.spec}`
        : undefined,
    ),
  ).toEqual([]);
});

test('only render/ imports chalk, and only main.ts ends the process', () => {
  expect(violations((i) => (i.spec === 'chalk' && folder(i.file) !== 'render' ? `${i.file} -> chalk` : undefined))).toEqual([]);
  const exits = files(SRC)
    .filter((f) => /\bprocess\.exit\(/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(SRC, f));
  expect(exits).toEqual(['main.ts']);
});

/** Writing to the process's streams: through an Io (`ctx.io.out(...)`, `deps.io.err`), process.stdout/stderr or console. */
const PRINTS = /\bio\s*\??\.\s*(?:out|err)\b|\bprocess\s*\.\s*std(?:out|err)\b|\bconsole\s*\.\s*(?:log|error|warn|info|debug|trace)\b/;

test('only cli/ and main.ts print: workflows and everything below them return reports or hand events to a callback', () => {
  const printing = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (PRINTS.test(line.replace(/\/\/.*$/, '')) ? [`${relative(SRC, file)}:${i + 1}`] : []));
  const all = files(SRC).flatMap(printing);
  // The pattern finds what it is meant to find: cli/ prints, main.ts wires the streams.
  expect(all.some((l) => l.startsWith('cli/commands/sync.ts:'))).toBe(true);
  expect(all.some((l) => l.startsWith('main.ts:'))).toBe(true);
  expect(all.filter((l) => !l.startsWith('cli/') && !l.startsWith('main.ts:'))).toEqual([]);
});

/**
 * The cycles of a directed graph, of any length: each strongly connected component of more than one node (or a node
 * with an edge to itself), as its nodes in sorted order, joined by ` -> `. Tarjan's algorithm.
 */
function cyclesOf(edges: Iterable<readonly [string, string]>): string[] {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) {
    next.set(a, [...(next.get(a) ?? []), b]);
    if (!next.has(b)) next.set(b, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next.get(v)!.includes(v)) out.push(component.sort().join(' -> '));
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort();
}

test('the cycle check finds cycles of any length, not only pairs', () => {
  expect(
    cyclesOf([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
      ['c', 'd'],
    ]),
  ).toEqual(['a -> b -> c']);
  expect(
    cyclesOf([
      ['a', 'b'],
      ['b', 'a'],
      ['x', 'y'],
      ['y', 'z'],
      ['z', 'w'],
      ['w', 'x'],
    ]),
  ).toEqual(['a -> b', 'w -> x -> y -> z']);
  expect(
    cyclesOf([
      ['a', 'b'],
      ['b', 'c'],
      ['a', 'c'],
    ]),
  ).toEqual([]);
  expect(cyclesOf([['a', 'a']])).toEqual(['a']);
});

test('no folders import each other at run time, through any number of steps (a cycle means one is in the wrong place)', () => {
  // Type-only imports are erased; src/version.ts and src/main.ts (the root) are the composition's edges.
  const runtime = imports.filter(
    (i) => i.target && !i.typeOnly && folder(i.target) !== folder(i.file) && folder(i.file) !== '(root)' && folder(i.target) !== '(root)',
  );
  const edges = runtime.map((i) => [folder(i.file), folder(i.target!)] as const);
  expect(cyclesOf(edges)).toEqual([]);
});

test('every pinned break still exists (a fixed one is taken off the list)', () => {
  const all = new Set<string>();
  for (const i of imports) {
    if (i.target) all.add(`${i.file} -> ${folder(i.target)}`);
    else all.add(`${i.file} -> ${i.spec}`);
  }
  expect(Object.keys(PINNED).filter((k) => !all.has(k))).toEqual([]);
});
