// Option parsing, help and usage errors through runCli with an in-memory Io and probe commands.
import { runCli, COMMANDS, tidyUnknown } from '../../../src/cli/app.js';
import type { GitopsCommand } from '../../../src/cli/command.js';
import type { CommandContext } from '../../../src/cli/context.js';
import { appSourceOptions } from '../../../src/cli/options.js';
import { ClusterError, ExitCode, RefusedError } from '../../../src/model/errors.js';
import { memoryIo } from '../../../src/cli/io.js';

interface Seen {
  args: Record<string, unknown>;
  ctx: CommandContext;
}

/** A command that records what it was given and returns (or throws) what it is told to. */
function probe(outcome: () => Promise<ExitCode> = async () => ExitCode.Ok) {
  const seen: Seen[] = [];
  const cmd: GitopsCommand = {
    command: 'probe [app]',
    describe: 'Record the parsed options',
    builder: (y) => appSourceOptions(y).option('confirm', { type: 'boolean', default: false, describe: 'probe flag' }),
    async run(args, ctx) {
      seen.push({ args, ctx });
      return outcome();
    },
  };
  return { cmd, seen };
}

async function run(argv: string[], opts: Parameters<typeof memoryIo>[0] = {}, outcome?: () => Promise<ExitCode>) {
  const p = probe(outcome);
  const m = memoryIo(opts);
  const code = await runCli(argv, m.io, [p.cmd]);
  return { code, out: m.stdout(), err: m.stderr(), seen: p.seen };
}

describe('global options', () => {
  it('have kubectl-like defaults', async () => {
    const r = await run(['probe']);
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.seen).toHaveLength(1);
    expect(r.seen[0]?.ctx.opts).toEqual({
      kubeconfig: undefined,
      context: undefined,
      namespace: undefined,
      requestTimeout: '0',
      output: 'table',
      color: 'auto',
      verbose: false,
      verbosity: 0,
      fieldManager: 'argocd-controller',
      appNamespace: 'argocd',
      overrides: {},
    });
  });

  it('parse every long flag', async () => {
    const r = await run([
      'probe',
      'shop',
      '--kubeconfig',
      '/tmp/kc',
      '--context',
      'kind-a',
      '--namespace',
      'web',
      '--request-timeout',
      '30s',
      '--output',
      'yaml',
      '--color',
      'never',
      '--verbose',
      '--field-manager',
      'me',
      '--app-namespace',
      'apps',
    ]);
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.seen[0]?.ctx.opts).toEqual({
      kubeconfig: '/tmp/kc',
      context: 'kind-a',
      namespace: 'web',
      requestTimeout: '30s',
      output: 'yaml',
      color: 'never',
      verbose: true,
      verbosity: 1,
      fieldManager: 'me',
      appNamespace: 'apps',
      overrides: {},
    });
    expect(r.seen[0]?.args.app).toBe('shop');
  });

  it('accept the short aliases and --flag=value', async () => {
    // A repeated flag: the last one wins, as in kubectl.
    const r = await run(['probe', '-n', 'web', '-o', 'json', '-v', '-f', 'app.yaml', '--context=prod', '--output=kv']);
    expect(r.code).toBe(ExitCode.Ok);
    const { opts } = r.seen[0]!.ctx;
    expect([opts.namespace, opts.output, opts.verbose, opts.context]).toEqual(['web', 'kv', true, 'prod']);
    expect(r.seen[0]?.args.appFile).toBe('app.yaml');
  });

  it.each([
    [['probe', '-o', 'xml'], /unknown output format "xml": probe prints table, json, yaml, kv, env/],
    [['probe', '--color', 'sometimes'], /Argument: color, Given: "sometimes", Choices: "auto", "always", "never"/],
  ])('reject a value outside the choices: %j exits 2', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(message);
    expect(r.err).toContain("See 'kubectl gitops probe --help' for usage.");
    expect(r.seen).toHaveLength(0);
    expect(r.out).toBe('');
  });
});

describe('usage errors exit 2 and run nothing', () => {
  it('an unknown flag', async () => {
    const r = await run(['probe', '--bogus']);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(/^error: Unknown argument: bogus\n/);
    expect(r.seen).toHaveLength(0);
  });

  it('an unknown flag with dashes is named once, as typed', async () => {
    const r = await run(['probe', '--bogus-flag', '--other-thing=1']);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(/^error: Unknown arguments: bogus-flag, other-thing\n/);
    expect(tidyUnknown('Unknown arguments: bogus-flag, bogusFlag')).toBe('Unknown argument: bogus-flag');
    expect(tidyUnknown('Not enough arguments following: context')).toBe('Not enough arguments following: context');
  });

  it('an unknown command, with a suggestion', async () => {
    const r = await run(['prob']);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(/^error: unknown command "prob" for "kubectl gitops"\n\nDid you mean this\?\n\tprobe\n/);
    expect(r.err).toContain("See 'kubectl gitops --help' for usage.");
    expect(r.seen).toHaveLength(0);
  });

  it('flags but no command', async () => {
    const r = await run(['-n', 'shop']);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(/^error: name a command: probe\n/);
  });

  it.each([[['probe', '--context']], [['probe', '--kubeconfig', '-v']]])('a flag without its value: %j', async (argv) => {
    const r = await run(argv);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(/^error: Not enough arguments following: (context|kubeconfig)\n/);
    expect(r.seen).toHaveLength(0);
  });

  it.each([[['probe', '-n']], [['probe', '-o', '--context', 'x']]])('a shorthand without its value: %j', async (argv) => {
    const r = await run(argv);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(/^error: flag needs an argument: '(n|o)' in -(n|o)\n/);
    expect(r.seen).toHaveLength(0);
  });
});

describe('help', () => {
  it.each([['--help'], ['-h'], ['help'], []])('%s prints usage on stdout and exits 0', async (...flag: string[]) => {
    const r = await run(flag);
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^kubectl gitops <command> \[options\]/);
    expect(r.out).toContain('kubectl gitops probe [app]');
    expect(r.out).toContain('--output');
    expect(r.out).toContain('Exit codes: 0 success');
    expect(r.seen).toHaveLength(0);
  });

  it('a command help shows its own flags and the global ones', async () => {
    const r = await run(['probe', '--help']);
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.out).toMatch(/^kubectl gitops probe \[app\]/);
    expect(r.out).toContain('--confirm');
    expect(r.out).toContain('--app-namespace');
    expect(r.seen).toHaveLength(0);
  });

  it('fits the terminal width, and prints a help text laid out before exactly as it was', async () => {
    const first = memoryIo();
    expect(await runCli(['--help'], first.io)).toBe(ExitCode.Ok);
    const again = memoryIo();
    expect(await runCli(['--help'], again.io)).toBe(ExitCode.Ok);
    expect(again.stdout()).toBe(first.stdout());
    const narrow = memoryIo();
    await runCli(['diff', '--help'], { ...narrow.io, columns: 60 });
    const lines = narrow.stdout().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(60);
    expect(narrow.stdout()).toMatch(/^kubectl gitops diff \[app\]/);
    const wide = memoryIo();
    await runCli(['diff', '--help'], { ...wide.io, columns: 200 });
    expect(
      Math.max(
        ...wide
          .stdout()
          .split('\n')
          .map((l) => l.length),
      ),
    ).toBeGreaterThan(60);
    expect(
      Math.max(
        ...wide
          .stdout()
          .split('\n')
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(110);
  });

  it('every real command documents itself as `kubectl gitops <command>`', async () => {
    for (const cmd of COMMANDS) {
      const word = [cmd.command].flat()[0]!.split(' ')[0]!;
      const m = memoryIo();
      expect(await runCli([word, '--help'], m.io)).toBe(ExitCode.Ok);
      expect(m.stdout()).toMatch(new RegExp(`^kubectl gitops ${word}`));
      expect(m.stderr()).toBe('');
    }
  });
});

describe('results and errors of a command', () => {
  it('passes the exit code the command returns', async () => {
    expect((await run(['probe'], {}, async () => ExitCode.Drift)).code).toBe(ExitCode.Drift);
  });

  it('maps thrown errors to their exit codes and shows the cause chain only with -v', async () => {
    const failing = async (): Promise<ExitCode> => {
      throw new ClusterError('listing deployments', { cause: new Error('connect ECONNREFUSED 127.0.0.1:6443') });
    };
    const quiet = await run(['probe'], {}, failing);
    expect(quiet.code).toBe(ExitCode.Cluster);
    expect(quiet.err).toBe('error: listing deployments\n');

    const loud = await run(['probe', '-v'], {}, failing);
    expect(loud.code).toBe(ExitCode.Cluster);
    expect(loud.err).toBe('error: listing deployments\n  caused by: connect ECONNREFUSED 127.0.0.1:6443\n');

    const refused = await run(['probe'], {}, async () => {
      throw new RefusedError('the render is empty');
    });
    expect(refused.code).toBe(ExitCode.Refused);
  });

  it('treats an unexpected error as a cluster/API fault (exit 3), not success', async () => {
    const r = await run(['probe'], {}, async () => {
      throw new TypeError('fetch failed');
    });
    expect(r.code).toBe(ExitCode.Cluster);
    expect(r.err).toBe('error: fetch failed\n');
  });

  it('gives the command a colour decision that follows the policy', async () => {
    const colour = async (argv: string[], opts: Parameters<typeof memoryIo>[0]) => (await run(argv, opts)).seen[0]?.ctx.colour;
    expect(await colour(['probe'], { tty: true, env: {} })).toBe(true);
    expect(await colour(['probe'], { tty: false, env: {} })).toBe(false);
    expect(await colour(['probe'], { tty: true, env: { NO_COLOR: '' } })).toBe(false);
    expect(await colour(['probe'], { tty: true, env: { TERM: 'dumb' } })).toBe(false);
    expect(await colour(['probe', '--color', 'always'], { tty: false })).toBe(true);
    expect(await colour(['probe', '--color', 'never'], { tty: true })).toBe(false);
    expect(await colour(['probe', '--color', 'always', '-o', 'json'], { tty: true })).toBe(false);
    const painted = (await run(['probe', '--color', 'always'])).seen[0]!.ctx.paint.red('x');
    expect(painted).toBe('\u001b[31mx\u001b[39m');
    expect((await run(['probe', '--color', 'never'], { tty: true })).seen[0]!.ctx.paint.red('x')).toBe('x');
  });
});

describe('version', () => {
  it('prints JSON with version, commit and Node version', async () => {
    const m = memoryIo();
    expect(await runCli(['version', '-o', 'json'], m.io)).toBe(ExitCode.Ok);
    const v = JSON.parse(m.stdout()) as Record<string, string>;
    expect(v.nodeVersion).toBe(process.version);
    expect(typeof v.version).toBe('string');
    expect(typeof v.gitCommit).toBe('string');
  });

  it('prints a one-line table form and kv lines', async () => {
    const table = memoryIo();
    await runCli(['version'], table.io);
    expect(table.stdout()).toMatch(/^kubectl-gitops \S+ \(commit \S+, node v\d+\.\d+\.\d+, \w+\/\w+\)\n$/);
    const kv = memoryIo();
    await runCli(['version', '-o', 'kv'], kv.io);
    expect(kv.stdout()).toContain(`NODE_VERSION=${process.version}\n`);
  });
});
