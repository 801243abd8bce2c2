// Shell completion: the __complete protocol (candidates, then `:<directive>`) over the real commands with
// stand-in sources, and the bash, zsh and fish scripts driving a stand-in kubectl-gitops in those shells (zsh and
// fish from Debian's packages, which .ci/run installs); PowerShell is not in Debian, so its script is checked for shape.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, commandSpecs, runCli } from '../../../src/cli/app.js';
import { complete, completionScript, Directive, type CompletionSources } from '../../../src/cli/completion.js';
import { memoryIo } from '../../../src/cli/io.js';
import { tempDir } from '../../support/temp-dir.js';

const seenFlags: Record<string, string>[] = [];
const sources: CompletionSources = {
  applications: async (flags) => {
    seenFlags.push(flags);
    return flags['app-namespace'] === 'apps' ? ['billing'] : ['shop', 'shipping', 'orders'];
  },
  namespaces: async () => ['default', 'shop', 'kube-system'],
  kubeconfigNames: async (_flags, what) => ({ contexts: ['prod', 'dev'], clusters: ['c1'], users: ['admin'] })[what],
};
const failing: CompletionSources = {
  applications: async () => {
    throw new Error('connect ECONNREFUSED');
  },
  namespaces: async () => {
    throw new Error('forbidden');
  },
  kubeconfigNames: async () => {
    throw new Error('no kubeconfig');
  },
};
const specs = commandSpecs(COMMANDS);
const values = async (words: string[], src = sources) => {
  const c = await complete(words, specs, src);
  return { values: c.items.map((i) => i.split('\t')[0]), directive: c.directive };
};

describe('__complete', () => {
  it.each<[string[], string[], number]>([
    [
      [''],
      [
        'diff',
        'sync',
        'prune',
        'delete',
        'status',
        'manifests',
        'plan',
        'list',
        'dashboard',
        'history',
        'rollback',
        'windows',
        'normalize',
        'version',
        'completion',
        'appset',
      ],
      Directive.NoFileComp,
    ],
    [['s'], ['sync', 'status'], Directive.NoFileComp],
    [['diff', ''], ['shop', 'shipping', 'orders'], Directive.NoFileComp],
    [['status', 'sh'], ['shop', 'shipping'], Directive.NoFileComp],
    [['diff', 'shop', ''], [], Directive.NoFileComp],
    [['diff', '--app-namespace', 'apps', ''], ['billing'], Directive.NoFileComp],
    [['diff', '--app-namespace=apps', 'b'], ['billing'], Directive.NoFileComp],
    [['diff', '--cont'], ['--context'], Directive.NoFileComp],
    [['diff', '--context', ''], ['prod', 'dev'], Directive.NoFileComp],
    [['diff', '--context=p'], ['--context=prod'], Directive.NoFileComp],
    [['sync', '-n', 'sh'], ['shop'], Directive.NoFileComp],
    [['sync', '--namespace', ''], ['default', 'shop', 'kube-system'], Directive.NoFileComp],
    [['diff', '--cluster', ''], ['c1'], Directive.NoFileComp],
    [['diff', '--user', ''], ['admin'], Directive.NoFileComp],
    [['diff', '-o', ''], ['table', 'json', 'yaml', 'kv', 'env'], Directive.NoFileComp],
    [['normalize', '-o', ''], ['yaml', 'json'], Directive.NoFileComp],
    [['normalize', '-o=j'], ['-o=json'], Directive.NoFileComp],
    [['prune', '--propagation-policy', 'b'], ['background'], Directive.NoFileComp],
    [['diff', '-f', ''], [], Directive.Default],
    [['diff', '--desired', ''], [], Directive.Default],
    [['normalize', ''], [], Directive.Default],
    [['completion', ''], ['bash', 'zsh', 'fish', 'powershell'], Directive.NoFileComp],
    [['nope', ''], [], Directive.NoFileComp],
  ])('%j', async (words, expected, directive) => {
    expect(await values(words)).toEqual({ values: expected, directive });
  });

  it('offers only the flags a command takes: normalize has no --context, diff has the cluster flags', async () => {
    expect((await values(['normalize', '--'])).values).not.toContain('--context');
    const diff = (await values(['diff', '--'])).values;
    for (const f of ['--context', '--kubeconfig', '--namespace', '--as', '--as-group', '--token', '--server', '--request-timeout', '--output', '--live', '--v'])
      expect(diff).toContain(f);
    expect(diff).not.toContain('--confirm');
  });

  it('looks names up with the flags typed so far', async () => {
    seenFlags.length = 0;
    await values(['diff', '--kubeconfig', '/k', '--context=dev', '-n', 'x', '']);
    expect(seenFlags[0]).toMatchObject({ kubeconfig: '/k', context: 'dev', namespace: 'x' });
  });

  it('a lookup that fails offers nothing (and no error)', async () => {
    expect(await values(['diff', ''], failing)).toEqual({ values: [], directive: Directive.NoFileComp });
    expect(await values(['diff', '--context', ''], failing)).toEqual({ values: [], directive: Directive.NoFileComp });
  });

  it('runCli prints candidates with descriptions, then the directive line', async () => {
    const m = memoryIo({ env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
    expect(await runCli(['__complete', 'ver'], m.io)).toBe(0);
    expect(m.stdout()).toBe('version\tPrint the plugin version, git commit and Node version\n:4\n');
    expect(m.stderr()).toBe('');
  });
});

describe('completion <shell>', () => {
  it.each(['bash', 'zsh', 'fish', 'powershell'])('%s prints a script that calls kubectl-gitops __complete', async (shell) => {
    const m = memoryIo();
    expect(await runCli(['completion', shell], m.io)).toBe(0);
    expect(m.stdout()).toContain('kubectl-gitops __complete');
    expect(m.stdout()).toBe(completionScript(shell as 'bash'));
  });

  it('an unknown shell is a usage error', async () => {
    const m = memoryIo();
    expect(await runCli(['completion', 'tcsh'], m.io)).toBe(2);
    expect(m.stderr()).toMatch(/Invalid values:[\s\S]*Given: "tcsh", Choices: "bash", "zsh", "fish", "powershell"/);
  });

  it('the bash script completes through a kubectl-gitops on PATH', () => {
    const dir = tempDir('kgo-bash-completion');
    // A stand-in kubectl-gitops that answers __complete as the real one would for these words.
    const stub = join(dir, 'kubectl-gitops');
    writeFileSync(
      stub,
      `#!/bin/sh\n[ "$1" = __complete ] || exit 1\nshift\necho "$*" > ${join(dir, 'args')}\nprintf 'diff\\tShow drift\\ndelete-me\\n:4\\n'\n`,
    );
    chmodSync(stub, 0o755);
    const script = join(dir, 'completion.bash');
    writeFileSync(script, completionScript('bash'));
    const r = spawnSync(
      'bash',
      [
        '--norc',
        '--noprofile',
        '-c',
        `source ${script}; COMP_WORDS=(kubectl-gitops d); COMP_CWORD=1; _kubectl_gitops; printf '%s\\n' "\${COMPREPLY[@]}"; cat ${join(dir, 'args')}`,
      ],
      {
        encoding: 'utf8',
        env: { PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` },
      },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('diff\ndelete-me\nd\n');
  });

  /** A stand-in kubectl-gitops on PATH that records its __complete arguments and answers `answer`. */
  function stub(answer: string) {
    const dir = tempDir('kgo-shell-completion');
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'kubectl-gitops'),
      `#!/bin/sh\n[ "$1" = __complete ] || exit 1\nshift\nfor a in "$@"; do printf '[%s]' "$a"; done > ${join(dir, 'args')}\nprintf '${answer}'\n`,
    );
    chmodSync(join(bin, 'kubectl-gitops'), 0o755);
    return {
      dir,
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: dir, TERM: 'dumb' },
      args: () => readFileSync(join(dir, 'args'), 'utf8'),
    };
  }
  const shell = (name: string) => {
    const r = spawnSync(name, ['--version'], { encoding: 'utf8' });
    if (r.error) throw new Error(`${name} is not installed: .ci/run installs it from Debian's packages (apt-get install ${name})`);
  };

  it('the zsh script loads after compinit and completes through kubectl-gitops __complete, prefix-matched by compsys', () => {
    shell('zsh');
    const s = stub('sync\\tApply it\\nstatus\\tShow it: health\\n:4\\n');
    const script = join(s.dir, 'completion.zsh');
    writeFileSync(script, completionScript('zsh'));
    const run = (line: string) =>
      spawnSync('zsh', ['-f', join(process.cwd(), 'test', 'support', 'zsh-complete.zsh'), script, line], {
        encoding: 'utf8',
        env: s.env,
        timeout: 30_000,
        cwd: s.dir,
      });
    const sy = run('kubectl-gitops sy');
    expect(sy.stdout).toBe('sync\n');
    expect(s.args()).toBe('[sy]');
    const all = run('kubectl-gitops diff --context prod ');
    expect(
      all.stdout
        .split('\n')
        .filter((l) => l !== '')
        .sort(),
    ).toEqual(['status', 'sync']);
    expect(s.args()).toBe('[diff][--context][prod][]');
  }, 60_000);

  it('the zsh script falls back to files when nothing is offered and files are not excluded', () => {
    shell('zsh');
    const s = stub(':0\\n');
    writeFileSync(join(s.dir, 'app.yaml'), '');
    const script = join(s.dir, 'completion.zsh');
    writeFileSync(script, completionScript('zsh'));
    const r = spawnSync('zsh', ['-f', join(process.cwd(), 'test', 'support', 'zsh-complete.zsh'), script, 'kubectl-gitops diff -f ap'], {
      encoding: 'utf8',
      env: s.env,
      timeout: 30_000,
      cwd: s.dir,
    });
    expect(r.stdout).toBe('app.yaml\n');
  }, 60_000);

  it('the fish script loads and completes (complete -C), with descriptions, and falls back to files as the directive says', () => {
    shell('fish');
    const s = stub('sync\\tApply it\\nstatus\\tShow it\\n:4\\n');
    const script = join(s.dir, 'completion.fish');
    writeFileSync(script, completionScript('fish'));
    writeFileSync(join(s.dir, 'app.yaml'), '');
    const fish = (line: string, env = s.env) =>
      spawnSync('fish', ['--no-config', '-c', `source ${script}; complete -C '${line}'`], { encoding: 'utf8', env, timeout: 30_000, cwd: s.dir });
    const sy = fish('kubectl-gitops sy');
    expect(sy.stderr).toBe('');
    expect(sy.stdout).toBe('sync\tApply it\n');
    expect(s.args()).toBe('[sy]');
    expect(fish('kubectl-gitops -n shop ').stdout).toBe('status\tShow it\nsync\tApply it\n');
    expect(s.args()).toBe('[-n][shop][]');
    // No candidates: files unless the directive says no files (4).
    const files = stub(':0\\n');
    writeFileSync(join(files.dir, 'app.yaml'), '');
    const withFiles = spawnSync('fish', ['--no-config', '-c', `source ${script}; complete -C 'kubectl-gitops diff -f ap'`], {
      encoding: 'utf8',
      env: files.env,
      timeout: 30_000,
      cwd: files.dir,
    });
    expect(withFiles.stdout).toBe('app.yaml\n');
    const none = stub(':4\\n');
    writeFileSync(join(none.dir, 'app.yaml'), '');
    const noFiles = spawnSync('fish', ['--no-config', '-c', `source ${script}; complete -C 'kubectl-gitops diff --context ap'`], {
      encoding: 'utf8',
      env: none.env,
      timeout: 30_000,
      cwd: none.dir,
    });
    expect(noFiles.stdout).toBe('');
  }, 60_000);

  it('the PowerShell script (not runnable here: PowerShell is not in Debian) has the shape of a native argument completer', () => {
    const ps = completionScript('powershell');
    expect(ps).toMatch(/^Register-ArgumentCompleter -Native -CommandName 'kubectl-gitops', 'kubectl-gitops\.exe' -ScriptBlock \{$/m);
    expect(ps).toMatch(/^\s+param\(\$wordToComplete, \$commandAst, \$cursorPosition\)$/m);
    expect(ps).toContain('& kubectl-gitops __complete @words');
    expect(ps).toContain("[System.Management.Automation.CompletionResult]::new($value, $value, 'ParameterValue', $description)");
    // Braces and parentheses balance outside strings, and every line is a comment, code or blank: no shell syntax of another shell leaks in.
    const code = ps
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('#'))
      .join('\n')
      .replace(/'[^']*'|"(?:`.|[^"`])*"/g, '');
    for (const [open, close] of [
      ['{', '}'],
      ['(', ')'],
      ['[', ']'],
    ] as const)
      expect(code.split(open).length).toBe(code.split(close).length);
    expect(code).not.toMatch(/\$\{|\bfi\b|\bdone\b|\bend\b$/m);
  });
});
