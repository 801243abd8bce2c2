// `plan`'s own rules before any request: --base is required, --desired and --revision do not go with it, an
// Application is named or read from a file (not both), --at is a time, and -o markdown is plan's alone.
import { runCli } from '../../../../src/cli/app.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { ExitCode } from '../../../../src/model/errors.js';
import { baseAppFileOf, parseAt } from '../../../../src/cli/commands/plan.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitFixture } from '../../../support/git-source.js';
import { applicationYaml } from '../../../support/application.js';
import { tempDir } from '../../../support/temp-dir.js';

const env = { KUBECONFIG: '/nonexistent/kubeconfig', HOME: '/nonexistent/kgitops-home' };

async function cli(argv: string[], stdin?: string) {
  const m = memoryIo({ env, ...(stdin !== undefined ? { stdin } : {}) });
  const code = await runCli(argv, m.io);
  return { code, out: m.stdout(), err: m.stderr() };
}

test('--at: an RFC 3339 time or a date (midnight UTC); absent: now; anything else an input error', () => {
  expect(parseAt('2026-12-04T18:30:00Z', 0)).toBe(Date.UTC(2026, 11, 4, 18, 30));
  expect(parseAt('2026-12-04T18:30:00+01:00', 0)).toBe(Date.UTC(2026, 11, 4, 17, 30));
  expect(parseAt('2026-12-04', 0)).toBe(Date.UTC(2026, 11, 4));
  expect(parseAt(undefined, 42)).toBe(42);
  expect(() => parseAt('tomorrow', 0)).toThrow('--at tomorrow: not a time (give an RFC 3339 time such as 2026-12-04T18:00:00Z)');
  expect(() => parseAt('12345', 0)).toThrow('--at 12345: not a time');
});

test.each<[string, string[], string]>([
  ['no --base', ['plan', 'shop'], 'Missing required argument: base'],
  [
    '--desired',
    ['plan', 'shop', '--base', 'main', '--desired', 'd'],
    '--desired does not go with --base: plan renders the Application source at --base and --head',
  ],
  ['--revision', ['plan', 'shop', '--base', 'main', '--revision', 'v2'], '--revision does not go with --base: plan reads two revisions: --base and --head'],
  [
    '--revisions',
    ['plan', 'shop', '--base', 'main', '--revisions', 'v2', '--source-positions', '1'],
    '--base does not go with --revisions: plan moves the sources that follow --base to --head',
  ],
  ['--recursive --all', ['plan', '--all', '--recursive', '--base', 'main'], '--recursive does not go with --all'],
  ['--recursive --offline', ['plan', '-f', 'app.yaml', '--recursive', '--offline', '--base', 'main'], '--recursive does not go with --offline'],
  ['no Application', ['plan', '--base', 'main'], 'name an Application (APP) or give -f/--app-file FILE'],
  ['APP and -f', ['plan', 'shop', '-f', 'app.yaml', '--base', 'main'], 'name Applications (APP…) or give -f/--app-file FILE, not both'],
  ['a bad --at', ['plan', 'shop', '--base', 'main', '--at', 'soon'], '--at soon: not a time'],
  [
    '--offline with APP',
    ['plan', 'shop', '--base', 'main', '--offline'],
    '--offline reads the Application from -f/--app-file: there is no cluster to read it from',
  ],
])('%s: exit 2 before any request', async (_what, argv, message) => {
  const r = await cli(argv);
  expect(r.code).toBe(ExitCode.Input);
  expect(r.err).toContain(message);
  expect(r.out).toBe('');
});

test('-o markdown is for plan only; plan gets past the output check (then fails on the missing kubeconfig)', async () => {
  const diff = await cli(['diff', 'shop', '-o', 'markdown']);
  expect([diff.code, diff.err]).toEqual([
    ExitCode.Input,
    'error: diff cannot print output format "markdown": diff prints table, json, yaml, kv, env\nSee \'kubectl gitops diff --help\' for usage.\n',
  ]);
  const plan = await cli(['plan', 'shop', '--base', 'main', '-o', 'markdown']);
  expect(plan.code).toBe(ExitCode.Input);
  expect(plan.err).toMatch(/kubeconfig/i);
});

describe('--base-app-file: the -f file as it is at --base (a pull request that edits the Application itself)', () => {
  const deployment = (image: string) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: "${image}"}]\n`;
  let fx: GitFixture;
  let dir: string;
  const app = (path: string, name = 'shop') =>
    applicationYaml({ name, spec: { project: 'default', source: { repoURL: fx.repo, path, targetRevision: 'main' }, destination: { namespace: 'shop' } } });
  beforeAll(() => {
    fx = new GitFixture();
    fx.write('old/deploy.yaml', deployment('nginx:1.26'));
    fx.write('new/deploy.yaml', deployment('nginx:1.27'));
    fx.commit('one');
    dir = tempDir('plan-base-file');
    writeFileSync(join(dir, 'head.yaml'), app('new'));
    writeFileSync(join(dir, 'base.yaml'), app('old'));
    writeFileSync(join(dir, 'other.yaml'), app('old', 'cart'));
    writeFileSync(join(dir, 'empty.yaml'), '');
    writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
  });
  afterAll(() => fx.cleanup());

  const plan = (...extra: string[]) =>
    cli(['plan', '-f', join(dir, 'head.yaml'), '--base', 'main', '--offline', '--kube-version', '1.35.0', '--api-versions', 'v1', '-o', 'kv', ...extra]);

  test('the base render is read from the Application as it was: the path the change moves is this change (exit 1); without it, nothing (exit 0)', async () => {
    const edited = await plan('--base-app-file', join(dir, 'base.yaml'));
    expect(edited.err).toBe('');
    expect(edited.code).toBe(1);
    const commit = fx.git(['rev-parse', 'HEAD']).trim();
    expect(edited.out).toBe(
      `OFFLINE=true\nAPP=shop\nBASE=${commit}\nHEAD=${commit}\nCHANGE=Deployment/web spec.template.spec.containers[name=web].image\nTHIS_CHANGE=1\nALREADY_THERE=0\nIN_SYNC=0\n`,
    );
    const asItIs = await plan();
    expect([asItIs.code, /^CHANGE=/m.test(asItIs.out), asItIs.out.includes('THIS_CHANGE=0')]).toEqual([0, false, true]);
  });

  test('either file may be standard input (-), checked as a file is; not both (exit 2)', async () => {
    const edited = await plan('--base-app-file', join(dir, 'base.yaml'));
    const args = ['--base', 'main', '--offline', '--kube-version', '1.35.0', '--api-versions', 'v1', '-o', 'kv'];
    // The base on a pipe (`git show main:apps/shop.yaml | kubectl gitops plan -f apps/shop.yaml --base-app-file -`).
    const baseOnStdin = await cli(['plan', '-f', join(dir, 'head.yaml'), ...args, '--base-app-file', '-'], app('old'));
    expect([baseOnStdin.code, baseOnStdin.out, baseOnStdin.err]).toEqual([edited.code, edited.out, '']);
    const headOnStdin = await cli(['plan', '-f', '-', ...args, '--base-app-file', join(dir, 'base.yaml')], app('new'));
    expect([headOnStdin.code, headOnStdin.out, headOnStdin.err]).toEqual([edited.code, edited.out, '']);
    // Another app on stdin is refused as another app in a file is (it was not checked when -f was standard input).
    const other = await cli(['plan', '-f', '-', ...args, '--base-app-file', join(dir, 'base.yaml')], app('new', 'cart'));
    expect([other.code, other.out]).toEqual([ExitCode.Input, '']);
    expect(other.err).toContain(`--base-app-file ${join(dir, 'base.yaml')}: holds Application argocd/shop, -f <stdin> Application argocd/cart`);
    const both = await cli(['plan', '-f', '-', ...args, '--base-app-file', '-'], app('new'));
    expect([both.code, both.out]).toEqual([ExitCode.Input, '']);
    expect(both.err).toContain('-f - and --base-app-file - cannot both be standard input');
  });

  test('an empty file (/dev/null): the Application is new, it appears and everything it declares is this change', async () => {
    const created = await plan('--base-app-file', join(dir, 'empty.yaml'));
    expect(created.code).toBe(1);
    const commit = fx.git(['rev-parse', 'HEAD']).trim();
    expect(created.out).toBe(
      `OFFLINE=true\nAPP=shop\nBASE=main\nHEAD=${commit}\nPRESENCE=appears\nCREATE=Deployment/web this-change\nTHIS_CHANGE=1\nALREADY_THERE=0\nIN_SYNC=0\n`,
    );
  });

  test('another app, another kind, several objects or no file: exit 2 naming the file, before any render', async () => {
    for (const [file, message] of [
      ['other.yaml', `--base-app-file ${join(dir, 'other.yaml')}: holds Application argocd/cart, -f ${join(dir, 'head.yaml')} Application argocd/shop`],
      ['cm.yaml', `--base-app-file ${join(dir, 'cm.yaml')}: holds ConfigMap x; give the Application or ApplicationSet of -f`],
      ['missing.yaml', `--base-app-file ${join(dir, 'missing.yaml')}: cannot read it`],
    ]) {
      const r = await plan('--base-app-file', join(dir, file!));
      expect(r.code).toBe(ExitCode.Input);
      expect(r.err).toContain(message);
      expect(r.out).toBe('');
    }
    writeFileSync(join(dir, 'two.yaml'), `${app('old')}---\n${app('old')}`);
    await expect(baseAppFileOf(join(dir, 'two.yaml'), join(dir, 'head.yaml'), dir)).rejects.toThrow('holds 2 objects');
    const without = await cli(['plan', 'shop', '--base', 'main', '--base-app-file', join(dir, 'base.yaml')]);
    expect([without.code, without.err.includes('--base-app-file is the -f file as it is at --base')]).toEqual([ExitCode.Input, true]);
  });
});
