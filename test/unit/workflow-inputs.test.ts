// Workflows take narrow, named inputs that cli/inputs.ts builds from the typed flags: no exported function of
// src/workflows/ takes the CLI's argv (an untyped record, yargs' Arguments) or knows yargs. Parsed with the TypeScript
// compiler (syntax only), so a parameter is found wherever it is declared: a function, an arrow function, a class.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import type { RunContext } from '../../src/model/context.js';

const WORKFLOWS = join(process.cwd(), 'src', 'workflows');

interface Parameter {
  /** `file:function(parameter)` */
  where: string;
  /** The parameter's declared type as written ('' when it has none). */
  type: string;
}

function exported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function isPrivate(node: ts.Node): boolean {
  if (ts.isMethodDeclaration(node) && ts.isPrivateIdentifier(node.name)) return true;
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword);
}

/** The parameters of every exported function of one module: declarations, exported consts holding arrow or function expressions, and exported classes' constructors and non-private methods. */
function exportedParameters(file: string, text: string): Parameter[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Parameter[] = [];
  const add = (name: string, fn: ts.SignatureDeclarationBase) => {
    for (const p of fn.parameters) out.push({ where: `${file}:${name}(${p.name.getText(source)})`, type: p.type ? p.type.getText(source) : '' });
  };
  for (const s of source.statements) {
    if (!exported(s)) continue;
    if (ts.isFunctionDeclaration(s) && s.name) add(s.name.text, s);
    if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) {
        if (d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) add(d.name.getText(source), d.initializer);
      }
    }
    if (ts.isClassDeclaration(s) && s.name) {
      const cls = s.name.text;
      for (const m of s.members) {
        if (ts.isConstructorDeclaration(m)) add(`${cls}.constructor`, m);
        else if (ts.isMethodDeclaration(m) && !isPrivate(m)) add(`${cls}.${m.name.getText(source)}`, m);
        else if (ts.isPropertyDeclaration(m) && !isPrivate(m) && m.initializer && (ts.isArrowFunction(m.initializer) || ts.isFunctionExpression(m.initializer)))
          add(`${cls}.${m.name.getText(source)}`, m.initializer);
      }
    }
  }
  return out;
}

/** What an argv-shaped parameter looks like: a record of anything by string key, yargs' own types, or no type at all. */
const ARGV_SHAPED =
  /\bRecord<\s*string\s*,\s*(unknown|any)\s*>|\[\s*\w+\s*:\s*string\s*\]\s*:\s*(unknown|any)\b|\b(Arguments|ArgumentsCamelCase|Argv|ArgsOf)\b|^(any|unknown|object)$/;

function argvShaped(p: Parameter): boolean {
  return p.type === '' || ARGV_SHAPED.test(p.type);
}

const modules = (readdirSync(WORKFLOWS, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: relative(process.cwd(), join(WORKFLOWS, f)), text: readFileSync(join(WORKFLOWS, f), 'utf8') }));
const parameters = modules.flatMap((m) => exportedParameters(m.file, m.text));

/** Parameters that are `unknown` on purpose: an error being described or recorded, not an input. */
const ERRORS = /\((err|error|e)\)$/;

test('the scan finds the exported functions of src/workflows/ and their parameters (a guard against a scan that sees nothing)', () => {
  expect(modules.length).toBeGreaterThan(15);
  expect(parameters.length).toBeGreaterThan(100);
  for (const expected of [
    'src/workflows/diff/live-diff.ts:diffAgainstCluster(req)',
    'src/workflows/sync/watch.ts:runWatch(req)',
    'src/workflows/session/app-state.ts:loadAppState(args)',
    'src/workflows/sync/sync-all.ts:syncAll(req)',
    'src/workflows/dashboard.ts:DashboardWorkflow.constructor(req)',
    'src/workflows/session/session.ts:GatewayPool.connect(opts)',
  ]) {
    expect(parameters.map((p) => p.where)).toContain(expected);
  }
  expect(parameters.find((p) => p.where === 'src/workflows/diff/live-diff.ts:diffAgainstCluster(req)')?.type).toBe('LiveDiffRequest');
});

test('the rule catches the shapes it is about (checked on made-up modules)', () => {
  const caught = (text: string) =>
    exportedParameters('x.ts', text)
      .filter(argvShaped)
      .map((p) => p.where);
  expect(caught('export function a(args: Record<string, unknown>, ctx: RunContext) {}')).toEqual(['x.ts:a(args)']);
  expect(caught('export const b = async (argv: ArgumentsCamelCase<SyncArgs>) => 1;')).toEqual(['x.ts:b(argv)']);
  expect(
    caught(
      'export class C { constructor(req: { args: Record<string, any> }) {} run(o: { [k: string]: unknown }) {} private p(x: Record<string, unknown>) {} }',
    ),
  ).toEqual(['x.ts:C.constructor(req)', 'x.ts:C.run(o)']);
  expect(caught('export function d(flags) {}')).toEqual(['x.ts:d(flags)']);
  expect(
    caught('function notExported(args: Record<string, unknown>) {} export function e(req: WatchRequest, env: Record<string, string | undefined>) {}'),
  ).toEqual([]);
});

test('no exported function of src/workflows/ takes an argv-shaped input (cli/inputs.ts builds a named one from the typed flags)', () => {
  const found = parameters.filter(argvShaped).filter((p) => !(p.type === 'unknown' && ERRORS.test(p.where)));
  expect(found.map((p) => `${p.where}: ${p.type || '(no type)'}`)).toEqual([]);
});

test('no workflow imports yargs or reads a camel-cased flag out of an argv', () => {
  for (const m of modules) {
    expect({ file: m.file, yargs: /from 'yargs'|import\('yargs'\)/.test(m.text) }).toEqual({ file: m.file, yargs: false });
    expect({ file: m.file, argv: /\b(args|argv)\[/.test(m.text) }).toEqual({ file: m.file, argv: false });
  }
});

test("a workflow's context reaches the environment, standard input and the options it reads, not the streams or the output mode (npm run typecheck holds the rest)", async () => {
  const io: RunContext['io'] = { env: { HOME: '/h' }, readStdin: async () => 'kind: List' };
  // @ts-expect-error a workflow has no stdout: it returns its report and cli/ prints it
  expect(io.out).toBeUndefined();
  // @ts-expect-error nor stderr: warnings are in the report, session lines go to onSession
  expect(io.err).toBeUndefined();
  expect(await io.readStdin()).toBe('kind: List');
  const opts: RunContext['opts'] = { requestTimeout: '0', verbose: false, fieldManager: 'kubectl-gitops', appNamespace: 'argocd' };
  // @ts-expect-error the output mode is cli/'s: a workflow's report is the same whatever -o says
  expect(opts.output).toBeUndefined();
  // @ts-expect-error and so are colours
  expect(opts.color).toBeUndefined();
});
