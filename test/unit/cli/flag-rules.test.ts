// Flags that do not go together (or need another) are refused by yargs' conflicts/implies, before anything runs: exit 2,
// the flags named as the user types them, the command's reason, the usage hint, and nothing on stdout.
import { explainFlags, flagLabel, runCli } from '../../../src/cli/app.js';
import { ExitCode } from '../../../src/model/errors.js';
import { memoryIo } from '../../../src/cli/io.js';

// No kubeconfig anywhere: a command that got past the flag rules would fail on that instead (or on the files).
const env = { KUBECONFIG: '/nonexistent/kgitops-flag-rules', HOME: '/nonexistent/kgitops-home' };

async function refused(argv: string[]) {
  const m = memoryIo({ env });
  const code = await runCli(argv, m.io);
  return { code, out: m.stdout(), err: m.stderr() };
}

it('lets through what goes together: sync --all -A -l, sync APP --dry-run, sync APP --watch (they fail later, on the missing kubeconfig)', async () => {
  for (const argv of [
    ['sync', '--all', '-A', '-l', 'a=b'],
    ['sync', 'shop', '--dry-run', '--resource', ':ConfigMap:x'],
    ['sync', 'shop', '--watch', '--webhook-addr', '127.0.0.1:0', '--webhook-secret', 's'],
    ['status', 'shop', '--health', '--suspended', '--degraded', '--resource', 'apps:Deployment:web', '--resource', ':ConfigMap:x'],
    ['status', 'shop', '--sync', '--operation', '--timeout', '1m'],
  ]) {
    const r = await refused(argv);
    expect({ argv, code: r.code }).toEqual({ argv, code: ExitCode.Input });
    expect(r.err).toMatch(/kubeconfig/i);
    expect(r.err).not.toMatch(/does not go with|needs --/);
  }
});

describe('the words of a refusal', () => {
  it('names flags as typed: a shorthand with its long form, a positional as the usage line does', () => {
    expect(flagLabel('selector')).toBe('-l/--selector');
    expect(flagLabel('app-file')).toBe('-f/--app-file');
    expect(flagLabel('live')).toBe('--live');
    expect(flagLabel('app')).toBe('APP');
  });

  it("rewrites yargs' conflicts and implications, with the reason when there is one", () => {
    expect(explainFlags('Arguments live and server-side are mutually exclusive', { 'live server-side': '--server-side needs a cluster' })).toBe(
      '--live does not go with --server-side: --server-side needs a cluster',
    );
    expect(explainFlags('Arguments all-namespaces and app are mutually exclusive', {})).toBe('-A/--all-namespaces does not go with APP');
    expect(explainFlags('Implications failed:\n live -> desired', {})).toBe('--live needs --desired');
    expect(explainFlags('Implications failed:\n a -> b c -> d', {})).toBe('--a needs --b; --c needs --d');
    expect(explainFlags('Unknown argument: --bogus', {})).toBe('Unknown argument: --bogus');
  });
});

describe.each<[string, string[], RegExp]>([
  ['diff --live without --desired', ['diff', '--live', 'live.yaml'], /^error: --live needs --desired: file mode compares/],
  [
    'diff --live with APP',
    ['diff', 'shop', '--live', 'l.yaml', '--desired', 'd'],
    /^error: --live does not go with APP: file mode reads the Application from -f\/--app-file/,
  ],
  [
    'diff --live --server-side',
    ['diff', '--live', 'l.yaml', '--desired', 'd', '--server-side'],
    /^error: --live does not go with --server-side: --server-side needs a cluster/,
  ],
  [
    'diff --live --project-file',
    ['diff', '--live', 'l.yaml', '--desired', 'd', '--project-file', 'p.yaml'],
    /^error: --live does not go with --project-file: file mode only compares/,
  ],
  ['diff --live --lua-dir', ['diff', '--live', 'l.yaml', '--desired', 'd', '--lua-dir', 'lua'], /^error: --live does not go with --lua-dir/],
  ['status -l with APP', ['status', 'shop', '-l', 'team=shop'], /^error: -l\/--selector does not go with APP: it lists Applications, one row each/],
  ['status -A -f', ['status', '-A', '-f', 'app.yaml'], /^error: -A\/--all-namespaces does not go with -f\/--app-file: it lists Applications/],
  ['status -A --wait', ['status', '-A', '--wait'], /^error: -A\/--all-namespaces does not go with --wait: it lists Applications/],
  ['status -l --tree', ['status', '-l', 'a=b', '--tree'], /^error: -l\/--selector does not go with --tree: it lists Applications/],
  ['sync --all with APP', ['sync', 'shop', '--all'], /^error: --all does not go with APP: --all syncs every Application as it declares itself/],
  ['sync --all --desired', ['sync', '--all', '--desired', 'k8s'], /^error: --all does not go with --desired: --all syncs every Application/],
  ['sync --all --resource', ['sync', '--all', '--resource', ':ConfigMap:x'], /^error: --all does not go with --resource/],
  [
    'sync --recursive --dry-run',
    ['sync', 'shop', '--recursive', '--dry-run'],
    /^error: --recursive does not go with --dry-run: a dry run creates no child Application/,
  ],
  ['sync --recursive --all', ['sync', '--all', '--recursive'], /^error: --recursive does not go with --all/],
  ['status --recursive --wait', ['status', 'shop', '--recursive', '--wait'], /^error: --recursive does not go with --wait: the wait is for the app itself/],
  ['sync -A without --all', ['sync', 'shop', '-A'], /^error: -A\/--all-namespaces needs --all: a sync of one Application acts on that one/],
  ['status -A --health', ['status', '-A', '--health'], /^error: -A\/--all-namespaces does not go with --health: it lists Applications/],
  ['status -l --degraded', ['status', '-l', 'a=b', '--degraded'], /^error: -l\/--selector does not go with --degraded: it lists Applications/],
  [
    'status --recursive --operation',
    ['status', 'shop', '--recursive', '--operation'],
    /^error: --recursive does not go with --operation: the wait is for the app itself/,
  ],
  [
    'status --recursive --resource',
    ['status', 'shop', '--recursive', '--resource', ':ConfigMap:x'],
    /^error: --recursive does not go with --resource: the wait is for the app itself/,
  ],
  [
    'sync --watch --resource',
    ['sync', 'shop', '--watch', '--resource', ':ConfigMap:x'],
    /^error: --watch does not go with --resource: the loop reconciles the whole Application/,
  ],
  ['sync --watch --dry-run', ['sync', 'shop', '--watch', '--dry-run'], /^error: --watch does not go with --dry-run: a dry run changes nothing/],
  ['sync --webhook-secret without --webhook-addr', ['sync', 'shop', '--watch', '--webhook-secret', 's'], /^error: --webhook-secret needs --webhook-addr/],
])('%s', (_name, argv, message) => {
  it('is exit 2 naming the flags, with the usage hint and no output', async () => {
    const r = await refused(argv);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(message);
    expect(r.err).toContain(`See 'kubectl gitops ${argv[0]} --help' for usage.`);
    expect(r.out).toBe('');
  });
});

it('sync --watch -l without --all is refused before any connection: -l then selects Applications', async () => {
  const r = await refused(['sync', 'shop', '--watch', '-l', 'a=b']);
  expect(r.code).toBe(ExitCode.Input);
  expect(r.err).toMatch(/^error: -l with --watch selects Applications, with --all: one loop reconciles the whole Application/);
  expect(r.err).not.toMatch(/kubeconfig/i);
  expect(r.out).toBe('');
});

it('sync --watch -o env is refused before any connection (cli/ prints the events, so cli/ checks the mode)', async () => {
  const r = await refused(['sync', 'shop', '--watch', '-o', 'env']);
  expect(r.code).toBe(ExitCode.Input);
  expect(r.err).toMatch(/^error: sync --watch prints one event per line: -o table, json, yaml or kv/);
  expect(r.err).not.toMatch(/kubeconfig/i);
  expect(r.out).toBe('');
});

it('status --resource is refused before any connection without --wait or a mode, and a malformed one with them', async () => {
  for (const [argv, message] of [
    [['status', 'shop', '--resource', ':ConfigMap:x'], /^error: --resource narrows the wait: give it with --wait or a mode/],
    [['status', 'shop', '--wait', '--resource', 'Deployment:web'], /^error: --resource Deployment:web: expected \[!\]GROUP:KIND:NAME/],
    [['status', 'shop', '--degraded', '--resource', 'apps:Deployment:'], /^error: --resource apps:Deployment:: expected/],
  ] as const) {
    const r = await refused([...argv]);
    expect({ argv, code: r.code }).toEqual({ argv, code: ExitCode.Input });
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/kubeconfig/i);
    expect(r.out).toBe('');
  }
});

it('every command module is typed: defined with defineCommand, no argument read through typeof or a cast', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const dir = 'src/cli/commands';
  const untyped = readdirSync(dir).flatMap((f) => {
    const text = readFileSync(`${dir}/${f}`, 'utf8');
    const problems: string[] = [];
    if (!/= defineCommand\(\{/.test(text)) problems.push(`${f}: not defined with defineCommand`);
    if (/: GitopsCommand\b|Record<string, unknown>/.test(text)) problems.push(`${f}: untyped arguments`);
    for (const m of text.matchAll(/typeof args\.\w+|\bargs\.\w+ as \w/g)) problems.push(`${f}: ${m[0]}`);
    return problems;
  });
  expect(readdirSync(dir).length).toBeGreaterThanOrEqual(12);
  expect(untyped).toEqual([]);
});

it('a --retry-limit that is no whole number of -1 or more is exit 2 before any cluster is read, for sync APP and sync --all alike', async () => {
  for (const argv of [
    ['sync', 'shop', '--retry-limit', '1.5'],
    ['sync', '--all', '--retry-limit=-2'],
    ['sync', 'shop', '--retry-limit', 'abc'],
  ]) {
    const r = await refused(argv);
    expect({ argv, code: r.code }).toEqual({ argv, code: ExitCode.Input });
    expect(r.err).toMatch(/--retry-limit must be a whole number \(-1 for no limit\)/);
    expect(r.err).not.toMatch(/kubeconfig/i);
  }
});
