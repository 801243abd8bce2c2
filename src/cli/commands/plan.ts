// `kubectl gitops plan`: what a change from --base to --head would do to the live cluster, change by change.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { InputError } from '../../model/errors.js';
import { appStateInput } from '../inputs.js';
import type { PlanAppReport, PlanReport } from '../../workflows/plan/plan.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseManifests } from '../../manifest/parse.js';
import type { KubeObject } from '../../model/object.js';
import type { Io } from '../../model/context.js';

/** The one Application or ApplicationSet a -f file holds, or undefined when it holds nothing; read with the file named. */
function soleObject(text: string, path: string, flag: string): KubeObject | undefined {
  const objects = parseManifests(text, path, InputError);
  if (objects.length > 1) throw new InputError(`${flag} ${path}: holds ${objects.length} objects; give the one Application or ApplicationSet`);
  return objects[0]?.object;
}

/**
 * `--base-app-file`: the -f file as it is at --base (a pull request that edits it), read once, so a
 * `<(git show main:apps/shop.yaml)` pipe serves too, into a copy in `dir`; `noBase` when it holds nothing (the file is
 * new in the change: its apps appear). It must hold what -f holds: an ApplicationSet for an ApplicationSet, the same
 * Application (namespace and name) for an Application. Either may be `-`, standard input (read through `io`, once).
 */
export async function baseAppFileOf(path: string, headFile: string, dir: string, io?: Pick<Io, 'readStdin'>): Promise<{ baseFile: string } | { noBase: true }> {
  const shown = (p: string) => (p === '-' ? '<stdin>' : p);
  const read = async (p: string): Promise<string> => (p === '-' ? (io ? io.readStdin() : '') : readFileSync(p, 'utf8'));
  let text: string;
  try {
    text = await read(path);
  } catch (err) {
    throw new InputError(`--base-app-file ${shown(path)}: cannot read it: ${(err as Error).message}`);
  }
  const base = soleObject(text, shown(path), '--base-app-file');
  if (base === undefined) return { noBase: true };
  let head: KubeObject | undefined;
  try {
    head = soleObject(await read(headFile), shown(headFile), '-f');
  } catch {
    head = undefined; // -f's own read names what is wrong with it
  }
  const id = (o: KubeObject) => `${o.kind} ${o.metadata.namespace !== undefined ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`;
  if (base.kind !== 'Application' && base.kind !== 'ApplicationSet')
    throw new InputError(`--base-app-file ${shown(path)}: holds ${id(base)}; give the Application or ApplicationSet of -f as it is at --base`);
  if (head !== undefined) {
    const sameApp =
      (head.metadata.namespace ?? base.metadata.namespace) === (base.metadata.namespace ?? head.metadata.namespace) &&
      head.metadata.name === base.metadata.name;
    if (head.kind !== base.kind || (head.kind === 'Application' && !sameApp))
      throw new InputError(
        `--base-app-file ${shown(path)}: holds ${id(base)}, -f ${shown(headFile)} ${id(head)}: give the same ${head.kind} as it is at --base (a renamed Application is another app: one that appears, planned with --base-app-file /dev/null)`,
      );
  }
  const copy = join(dir, 'base-app.json');
  writeFileSync(copy, JSON.stringify(base));
  return { baseFile: copy };
}

/** `--at`: an RFC 3339 / ISO 8601 time (a date alone is midnight UTC); absent: now. */
export function parseAt(at: string | undefined, now: number): number {
  if (at === undefined) return now;
  const t = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(at.trim()) ? Date.parse(at.trim()) : NaN;
  if (Number.isNaN(t)) throw new InputError(`--at ${at}: not a time (give an RFC 3339 time such as 2026-12-04T18:00:00Z)`);
  return t;
}

export const planCommand = defineCommand({
  command: 'plan [app] [more..]',
  describe:
    'What a change from --base to --head would do live: each change from this change or already there (with its owners), what a sync at head would apply, heal and prune, and what would refuse it',
  outputs: ['table', 'json', 'yaml', 'kv', 'markdown'],
  builder: (y) =>
    appSourceOptions(y)
      .positional('more', { type: 'string', array: true, describe: 'More Applications by name: each planned, one report, the highest exit code' })
      .option('base', {
        type: 'string',
        requiresArg: true,
        demandOption: true,
        describe: 'The revision the change starts from (a branch, tag or commit; e.g. the pull request base)',
      })
      .option('head', {
        type: 'string',
        requiresArg: true,
        describe: "The revision of the change (default: the Application's targetRevision)",
      })
      .option('at', {
        type: 'string',
        requiresArg: true,
        describe: 'When the sync at head would start (RFC 3339), for the sync windows (default: now)',
      })
      .option('offline', {
        type: 'boolean',
        describe: 'No cluster at all: the Application from -f, the head render compared with the base render only (every difference is this change)',
      })
      .option('all', {
        type: 'boolean',
        describe:
          'Plan every Application in --app-namespace (-A: every namespace; -l: by label) whose source follows --base (of --repo when given); the others are listed as left out',
      })
      .option('recursive', {
        type: 'boolean',
        describe:
          'App-of-apps: plan each child Application the app renders at base or at head as its own app too (those that appear or disappear included), to any depth',
      })
      .option('base-app-file', {
        type: 'string',
        requiresArg: true,
        describe:
          'With -f: the file as it is at --base, when the change edits it (e.g. <(git show main:apps/shop.yaml)); empty (/dev/null): the file is new, its apps appear',
      })
      .option('selector', { alias: 'l', type: 'string', requiresArg: true, describe: 'With --all: only the Applications whose labels match' })
      .option('repo', {
        type: 'string',
        requiresArg: true,
        describe:
          "The pull request's repository: with --all, only the Applications whose source it is; with an ApplicationSet file, only its git generators move from --base to --head; of a multi-source app, only its sources of it move (URLs compared as Argo CD's webhook compares them)",
      })
      .conflicts('all', ['app', 'app-file', 'offline'])
      .conflicts('recursive', ['all', 'offline'])
      .implies('all-namespaces', 'all')
      .implies('selector', 'all')
      .implies('base-app-file', 'app-file')
      .conflicts('desired', 'base')
      .conflicts('revision', 'base')
      .conflicts('base', ['revisions', 'source-positions', 'source-names'])
      .example('kubectl gitops plan shop --base main --head feature/new-image', 'What merging feature/new-image into main would change live')
      .example('kubectl gitops plan shop cart --base main --head pr-42 -o markdown', 'A pull-request comment for two apps')
      .example('kubectl gitops plan -f app.yaml --base v1 --at 2026-12-24T18:00:00Z', 'Whether a sync window would refuse the sync at that time')
      .example('kubectl gitops plan -f app.yaml --base main --head pr-42 --offline', 'Without a cluster: what the change changes in the render')
      .example(
        'kubectl gitops plan --all -A --repo https://github.com/org/deploy --base main --head pr-42 -o markdown',
        'Every Application that follows main of that repository, in one comment',
      ),
  allNamespaces: true,
  why: {
    ...Object.fromEntries(
      ['app', 'app-file', 'offline'].map((k) => [`all ${k}`, '--all plans the Applications it lists (--offline: there is no cluster to list them from)']),
    ),
    'all-namespaces all': '-A widens --all to every namespace',
    'selector all': '-l selects the Applications --all lists',
    'base-app-file app-file': '--base-app-file is the -f file as it is at --base',
    'desired base': 'plan renders the Application source at --base and --head',
    'revision base': 'plan reads two revisions: --base and --head',
    'recursive all': '--recursive follows the child Applications of the apps named (APP… or -f); --all plans every app that follows --base already',
    'recursive offline': '--recursive reads what the child Applications do live; --offline has no cluster',
    ...Object.fromEntries(
      ['revisions', 'source-positions', 'source-names'].map((k) => [
        `base ${k}`,
        'plan moves the sources that follow --base to --head (of a multi-source app, each Git source that follows --base)',
      ]),
    ),
  },
  async run(args, ctx) {
    const { appNames } = await import('../several.js');
    const { runPlan, planExitCode } = await import('../../workflows/plan/plan.js');
    const { renderPlan } = await import('../../render/plan.js');
    const apps = appNames(args.app, args.more);
    // Warnings name their app when there are several, or when apps of several namespaces may be planned (--all, an ApplicationSet).
    const id = (a: PlanAppReport) => (a.namespace !== undefined ? `${a.namespace}/${a.app}` : a.app);
    const print = (report: PlanReport) =>
      emit(ctx, {
        warnings: report.apps.flatMap((a) => a.warnings.map((w) => (report.apps.length > 1 || a.namespace !== undefined ? `${id(a)}: ${w}` : w))),
        report: renderPlan(report, ctx.opts.output, ctx.paint, ctx.opts.fieldManager),
        code: planExitCode(report),
      });
    const at = parseAt(args.at, Date.now());
    // The source and render flags every plan path takes (plan reads two revisions, never --desired or --revision).
    const { desired: _d, revision: _r, app: _a, appFile, ...input } = appStateInput(args);
    if (args.all === true) {
      // yargs has refused APP, -f and --offline with --all.
      const { runPlanAll } = await import('../../workflows/plan/plan.js');
      const report = await runPlanAll(
        {
          ...input,
          base: args.base,
          ...(args.head !== undefined ? { head: args.head } : {}),
          at,
          allNamespaces: args.allNamespaces === true,
          ...(args.selector !== undefined ? { appSelector: args.selector } : {}),
          ...(args.repo !== undefined ? { repo: args.repo } : {}),
        },
        ctx,
      );
      return print(report);
    }
    // An ApplicationSet file: its Applications as generated at base and at head (cli/app.ts leaves -f to plan).
    const { holdsApplicationSet } = await import('../appset-file.js');
    const appSet = args.appFile !== undefined && apps.length === 0 && (await holdsApplicationSet(args.appFile, ctx.io));
    if (appSet && args.recursive === true)
      throw new InputError('--recursive follows the child Applications of an Application; an ApplicationSet file is planned by the Applications it generates');
    if (appSet && args.offline === true)
      throw new InputError(
        '--offline plans one Application file: an ApplicationSet is expanded against the cluster (its cluster Secrets); plan it without --offline',
      );
    if (args.appFile !== undefined && apps.length > 0) throw new InputError('name Applications (APP…) or give -f/--app-file FILE, not both');
    if (args.appFile === undefined && apps.length === 0) throw new InputError('name an Application (APP) or give -f/--app-file FILE');
    if (args.baseAppFile === '-' && args.appFile === '-')
      throw new InputError('-f - and --base-app-file - cannot both be standard input: give one of them as a file (e.g. --base-app-file <(git show main:PATH))');
    const dir = args.baseAppFile !== undefined ? mkdtempSync(join(tmpdir(), 'kubectl-gitops-plan-base-')) : undefined;
    try {
      const atBase = args.baseAppFile !== undefined && dir !== undefined ? await baseAppFileOf(args.baseAppFile, args.appFile ?? '-', dir, ctx.io) : undefined;
      if (appSet && args.appFile !== undefined) {
        const { runPlanAppSet } = await import('../../workflows/plan/plan.js');
        const report = await runPlanAppSet(
          {
            ...input,
            appSetFile: appFile ?? args.appFile,
            ...(atBase !== undefined ? ('noBase' in atBase ? { noBaseAppSet: true as const } : { baseAppSetFile: atBase.baseFile }) : {}),
            base: args.base,
            ...(args.head !== undefined ? { head: args.head } : {}),
            at,
            ...(args.repo !== undefined ? { repo: args.repo } : {}),
          },
          ctx,
        );
        return print(report);
      }
      const report = await runPlan(
        {
          ...input,
          ...(appFile !== undefined ? { appFile } : {}),
          ...(atBase !== undefined ? ('noBase' in atBase ? { noBase: true as const } : { baseAppFile: atBase.baseFile }) : {}),
          apps,
          base: args.base,
          ...(args.head !== undefined ? { head: args.head } : {}),
          ...(args.repo !== undefined ? { repo: args.repo } : {}),
          at,
          ...(args.offline === true ? { offline: true } : {}),
          ...(args.recursive === true ? { recursive: true } : {}),
        },
        ctx,
      );
      return print(report);
    } finally {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }
  },
});
