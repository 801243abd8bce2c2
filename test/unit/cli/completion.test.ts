// Shell completion: the __complete protocol (candidates, then `:<directive>`) over the real commands with
// stand-in sources, and the bash script driving it.
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
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
    [[''], ['diff', 'sync', 'prune', 'status', 'windows', 'normalize', 'version', 'completion'], Directive.NoFileComp],
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
    for (const f of ['--context', '--kubeconfig', '--namespace', '--as', '--as-group', '--token', '--server', '--request-timeout', '--output', '--live', '--v']) expect(diff).toContain(f);
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
    writeFileSync(stub, `#!/bin/sh\n[ "$1" = __complete ] || exit 1\nshift\necho "$*" > ${join(dir, 'args')}\nprintf 'diff\\tShow drift\\ndelete-me\\n:4\\n'\n`);
    chmodSync(stub, 0o755);
    const script = join(dir, 'completion.bash');
    writeFileSync(script, completionScript('bash'));
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `source ${script}; COMP_WORDS=(kubectl-gitops d); COMP_CWORD=1; _kubectl_gitops; printf '%s\\n' "\${COMPREPLY[@]}"; cat ${join(dir, 'args')}`], {
      encoding: 'utf8',
      env: { PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('diff\ndelete-me\nd\n');
  });
});
