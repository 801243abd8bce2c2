// kubectl-style (pflag) argument lists: rewritten by normalizeArgv, then parsed by runCli as kubectl would.
import { booleanFlagForms, commandLineWithout, normalizeArgv, repeatedValues } from '../../../src/cli/argv.js';
import { COMMANDS, runCli } from '../../../src/cli/app.js';
import type { GitopsCommand } from '../../../src/cli/command.js';
import type { CommandContext } from '../../../src/cli/context.js';
import { appSourceOptions } from '../../../src/cli/options.js';
import { ExitCode } from '../../../src/model/errors.js';
import { memoryIo } from '../../../src/cli/io.js';

describe('normalizeArgv', () => {
  it.each<[string[], string[]]>([
    [
      ['diff', '-ojson'],
      ['diff', '--output=json'],
    ],
    [
      ['diff', '-oyaml'],
      ['diff', '--output=yaml'],
    ],
    [
      ['diff', '-o=json'],
      ['diff', '--output=json'],
    ],
    [
      ['diff', '-o', 'json'],
      ['diff', '--output=json'],
    ],
    [
      ['diff', '-nshop'],
      ['diff', '--namespace=shop'],
    ],
    [
      ['diff', '-n=shop'],
      ['diff', '--namespace=shop'],
    ],
    [
      ['diff', '-shttps://127.0.0.1:6443'],
      ['diff', '--server=https://127.0.0.1:6443'],
    ],
    [
      ['diff', '-fapp.yaml'],
      ['diff', '--app-file=app.yaml'],
    ],
    [
      ['diff', '-f', '-'],
      ['diff', '--app-file=-'],
    ],
    [
      ['diff', '-Ah'],
      ['diff', '--all-namespaces', '--help'],
    ],
    [
      ['diff', '-A=false'],
      ['diff', '--all-namespaces=false'],
    ],
    [
      ['diff', '-Anshop'],
      ['diff', '--all-namespaces', '--namespace=shop'],
    ],
    [
      ['list', '-Al', 'team=shop'],
      ['list', '--all-namespaces', '--selector=team=shop'],
    ],
    [
      ['sync', 'shop', '-ltier=web'],
      ['sync', 'shop', '--selector=tier=web'],
    ],
    [
      ['diff', '-v'],
      ['diff', '--v=1'],
    ],
    [
      ['diff', '-v', '6'],
      ['diff', '--v=6'],
    ],
    [
      ['diff', '-v6'],
      ['diff', '--v=6'],
    ],
    [
      ['diff', '-v=6'],
      ['diff', '--v=6'],
    ],
    [
      ['diff', '--v=6'],
      ['diff', '--v=6'],
    ],
    [
      ['diff', '--v', '9'],
      ['diff', '--v=9'],
    ],
    [
      ['diff', '-v', 'shop'],
      ['diff', '--v=1', 'shop'],
    ],
    [
      ['diff', '--context=prod', '--namespace', 'web'],
      ['diff', '--context=prod', '--namespace', 'web'],
    ],
    [
      ['diff', '--', '-ojson'],
      ['diff', '--', '-ojson'],
    ],
    [
      ['normalize', '-'],
      ['normalize', '-'],
    ],
    [[], ['--help']],
    [['help'], ['--help']],
    [
      ['help', 'diff'],
      ['diff', '--help'],
    ],
  ])('%j -> %j', (argv, expected) => {
    expect(normalizeArgv(argv)).toEqual(expected);
  });

  it.each<[string[], RegExp]>([
    [['diff', '-x'], /^unknown shorthand flag: 'x' in -x$/],
    [['diff', '-Ax'], /^unknown shorthand flag: 'x' in -Ax$/],
    [['diff', '-o'], /^flag needs an argument: 'o' in -o$/],
    [['diff', '-n', '-o', 'json'], /^flag needs an argument: 'n' in -n$/],
  ])('%j is refused', (argv, message) => {
    expect(() => normalizeArgv(argv)).toThrow(message);
  });
});

interface Seen {
  args: Record<string, unknown>;
  ctx: CommandContext;
}

function probe(outputs?: GitopsCommand['outputs']) {
  const seen: Seen[] = [];
  const cmd: GitopsCommand = {
    command: 'probe [app]',
    describe: 'Record the parsed options',
    builder: (y) => appSourceOptions(y),
    ...(outputs ? { outputs } : {}),
    async run(args, ctx) {
      seen.push({ args, ctx });
      return ExitCode.Ok;
    },
  };
  return { cmd, seen };
}

async function run(argv: string[], outputs?: GitopsCommand['outputs']) {
  const p = probe(outputs);
  const m = memoryIo();
  const code = await runCli(argv, m.io, [p.cmd]);
  return { code, out: m.stdout(), err: m.stderr(), seen: p.seen };
}

describe('kubectl argument lists as the commands receive them', () => {
  it.each<[string[], Record<string, unknown>]>([
    [['probe', 'shop', '-ojson', '-nweb'], { output: 'json', namespace: 'web' }],
    [['probe', '-oyaml', 'shop'], { output: 'yaml' }],
    [['probe', '-o=kv', '-n=web', 'shop'], { output: 'kv', namespace: 'web' }],
    [['probe', 'shop', '--output=json', '--namespace=web'], { output: 'json', namespace: 'web' }],
    [['probe', 'shop', '-v=6'], { verbosity: 6, verbose: true }],
    [['probe', 'shop', '--v=0'], { verbosity: 0, verbose: false }],
    [['probe', 'shop', '-v', '9'], { verbosity: 9 }],
    [['probe', 'shop', '-v'], { verbosity: 1, verbose: true }],
    [['probe', 'shop', '--verbose'], { verbosity: 1, verbose: true }],
    [['probe', 'shop', '-v4', '--verbose'], { verbosity: 4 }],
    [['probe', 'shop', '-o', 'json', '-o', 'yaml'], { output: 'yaml' }],
    [['probe', 'shop', '--request-timeout=2s'], { requestTimeout: '2s' }],
  ])('%j', async (argv, expected) => {
    const r = await run(argv);
    expect(r.err).toBe('');
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.seen[0]?.ctx.opts).toMatchObject(expected);
    expect(r.seen[0]?.args.app).toBe('shop');
  });

  it("takes kubectl's connection flags, in both spellings", async () => {
    const r = await run([
      'probe',
      'shop',
      '--cluster=c1',
      '--user',
      'u1',
      '-shttps://127.0.0.1:6443',
      '--token=abc',
      '--as',
      'jane',
      '--as-group',
      'dev',
      '--as-group=ops',
      '--as-uid=42',
      '--certificate-authority',
      '/ca.crt',
      '--client-certificate=/c.crt',
      '--client-key',
      '/c.key',
      '--insecure-skip-tls-verify',
      '--tls-server-name=kubernetes',
    ]);
    expect(r.err).toBe('');
    expect(r.seen[0]?.ctx.opts.overrides).toEqual({
      cluster: 'c1',
      user: 'u1',
      server: 'https://127.0.0.1:6443',
      token: 'abc',
      as: 'jane',
      asGroups: ['dev', 'ops'],
      asUid: '42',
      certificateAuthority: '/ca.crt',
      clientCertificate: '/c.crt',
      clientKey: '/c.key',
      insecureSkipTlsVerify: true,
      tlsServerName: 'kubernetes',
    });
    expect(r.seen[0]?.args.app).toBe('shop');
  });

  it('one --as-group does not swallow the APP argument after it', async () => {
    const r = await run(['probe', '--as', 'jane', '--as-group', 'dev', 'shop']);
    expect(r.seen[0]?.ctx.opts.overrides?.asGroups).toEqual(['dev']);
    expect(r.seen[0]?.args.app).toBe('shop');
  });

  it.each<[string[], RegExp]>([
    [['probe', '-A'], /^error: -A\/--all-namespaces does not apply to probe: it acts on one Application/],
    [['probe', '--all-namespaces'], /^error: -A\/--all-namespaces does not apply to probe/],
    [['probe', '-v=x'], /^error: invalid argument "x" for "-v, --v"/],
    [['probe', '-ojsn'], /^error: unknown output format "jsn": probe prints table, json, yaml, kv, env/],
    [['probe', '-qx'], /^error: unknown shorthand flag: 'q' in -qx/],
  ])('%j is a usage error', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(message);
    expect(r.err).toContain("See 'kubectl gitops probe --help' for usage.");
    expect(r.seen).toHaveLength(0);
  });

  it('an output mode the command cannot produce is refused, not replaced by another', async () => {
    const r = await run(['probe', '-okv'], ['yaml', 'json']);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(/^error: probe cannot print output format "kv": probe prints yaml, json\n/);
    const ok = await run(['probe'], ['yaml', 'json']);
    expect(ok.seen[0]?.ctx.opts.output).toBe('yaml');
  });
});

describe('help of the real commands', () => {
  async function help(argv: string[], columns = 80) {
    const m = memoryIo();
    const code = await runCli(argv, { ...m.io, columns });
    return { code, out: m.stdout(), err: m.stderr() };
  }

  it('`help <command>` is `<command> --help`', async () => {
    const a = await help(['help', 'diff']);
    const b = await help(['diff', '--help']);
    expect(a.code).toBe(ExitCode.Ok);
    expect(a.out).toBe(b.out);
    expect(a.out).toMatch(/^kubectl gitops diff \[app\]/);
  });

  it('`help <unknown>` is a usage error naming the commands', async () => {
    const r = await help(['help', 'nope']);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.out).toBe('');
    expect(r.err).toMatch(
      /^error: unknown command "nope" for "kubectl gitops help": the commands are diff, sync, prune, delete, status, manifests, plan, list, dashboard, history, rollback, windows, normalize, version, completion, appset\n/,
    );
  });

  it("lists a command's own flags before the cluster and global flags", async () => {
    const { out } = await help(['diff', '--help']);
    const at = (s: string) => out.indexOf(s);
    expect(at('Flags:')).toBeGreaterThan(0);
    expect(at('--live')).toBeGreaterThan(at('Flags:'));
    expect(at('Cluster flags (as kubectl):')).toBeGreaterThan(at('--live'));
    expect(at('Global flags:')).toBeGreaterThan(at('Cluster flags (as kubectl):'));
    for (const flag of [
      '--as ',
      '--as-group',
      '--token',
      '--server',
      '--user',
      '--cluster',
      '--insecure-skip-tls-verify',
      '--tls-server-name',
      '--certificate-authority',
      '--client-certificate',
      '--client-key',
      '-A, --all-namespaces',
    ]) {
      expect(out).toContain(flag);
    }
  });

  it('sync --help: its own flags, then the source and render flags, then the cluster and global flags', async () => {
    const { out } = await help(['sync', '--help']);
    // Where a heading, or a flag's own line, stands.
    const at = (s: string) => (s.startsWith('--') ? out.search(new RegExp(`^ +(-\\w, )?${s}\\s`, 'm')) : out.indexOf(s));
    expect(at('--prune')).toBeGreaterThan(at('Flags:'));
    expect(at('--force-conflicts')).toBeGreaterThan(at('Flags:'));
    expect(at('Source and render flags:')).toBeGreaterThan(at('--force-conflicts'));
    expect(at('--app-file')).toBeGreaterThan(at('Source and render flags:'));
    expect(at('--kustomize-build-options')).toBeGreaterThan(at('Source and render flags:'));
    expect(at('Cluster flags (as kubectl):')).toBeGreaterThan(at('--cache-dir'));
    expect(at('Global flags:')).toBeGreaterThan(at('Cluster flags (as kubectl):'));
    // What a manual sync does today: it prunes only with --prune.
    expect(out).toContain('prune only with --prune');
  });

  it('shows only the flags that apply: normalize and version take no cluster flags', async () => {
    for (const word of ['normalize', 'version']) {
      const { out } = await help([word, '--help']);
      expect(out).not.toContain('--context');
      expect(out).not.toContain('--kubeconfig');
      expect(out).toContain('--output');
    }
    const r = memoryIo();
    expect(await runCli(['normalize', '-', '--context', 'x'], r.io)).toBe(ExitCode.Input);
    expect(r.stderr()).toMatch(/^error: Unknown argument: context/);
  });

  it('prints each example as a comment and one command line within 80 columns', async () => {
    for (const cmd of COMMANDS) {
      const word = [cmd.command].flat()[0]!.split(' ')[0]!;
      const { out } = await help([word, '--help']);
      const examples = out.slice(out.indexOf('Examples:'));
      expect(examples).toMatch(/^Examples:\n {2}# .+\n {2}\S/);
      expect(examples).toContain('kubectl gitops ');
      for (const line of examples.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
      for (const line of examples.split('\n').filter((l) => l.trimStart().startsWith('kubectl gitops'))) expect(line).toMatch(/^ {2}kubectl gitops \S/);
    }
  });
});

describe('repeatedValues: every value of a repeatable flag, in order', () => {
  it('reads --flag value and --flag=value, up to --, and only the repeatable flags', () => {
    const got = repeatedValues([
      'sync',
      'shop',
      '--resource',
      ':ConfigMap:a',
      '--resource=apps:Deployment:b',
      '--api-versions',
      'v1',
      '--output',
      'kv',
      '--as-group=g1',
      '--',
      '--resource',
      'x',
    ]);
    expect(Object.fromEntries(got)).toEqual({ resource: [':ConfigMap:a', 'apps:Deployment:b'], 'api-versions': ['v1'], 'as-group': ['g1'] });
    expect(repeatedValues(['sync', '--resource']).size).toBe(0);
  });
});

describe('commandLineWithout (the command that goes on after a --no-force-conflicts stop)', () => {
  it('is the command line as typed, shell-quoted, without the flags named', () => {
    const drop = ['--no-force-conflicts', '--force-conflicts=false'];
    expect(commandLineWithout(['sync', 'shop', '--no-force-conflicts', '--prune', '-o', 'kv'], drop)).toBe('kubectl gitops sync shop --prune -o kv');
    expect(commandLineWithout(['rollback', 'shop', '3', '--force-conflicts=false'], drop)).toBe('kubectl gitops rollback shop 3');
    expect(commandLineWithout(['sync', '-f', '/tmp/my app.yaml', '-l', 'tier in (web,api)', '--desired', "it's"], drop)).toBe(
      `kubectl gitops sync -f '/tmp/my app.yaml' -l 'tier in (web,api)' --desired 'it'\\''s'`,
    );
  });

  it('a command that sets a boolean flag again drops every form of it first (no contradicting flags in what it prints)', () => {
    expect(booleanFlagForms('confirm-delete')).toEqual(['--confirm-delete', '--confirm-delete=true', '--confirm-delete=false', '--no-confirm-delete']);
    const typed = ['delete', 'shop', '--yes', '--no-confirm-delete', '--confirm-delete=false', '--dry-run=false'];
    const next = `${commandLineWithout(typed, [...booleanFlagForms('confirm-delete'), ...booleanFlagForms('dry-run')])} --confirm-delete`;
    expect(next).toBe('kubectl gitops delete shop --yes --confirm-delete');
  });
});
