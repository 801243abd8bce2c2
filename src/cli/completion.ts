// Shell completion: the hidden `__complete` command (cobra's protocol, which kubectl ≥ 1.26 speaks with
// plugins through an executable named kubectl_complete-gitops) and `completion bash|zsh|fish|powershell`.
//
// `__complete <words…>` gets the words after `kubectl gitops`, the last one being the word to complete
// (empty for a new word), and prints one candidate per line (`value<TAB>description`) and last a line
// `:<directive>`: 0 lets the shell complete file names when there is no candidate, 4 does not, 2 adds no
// space after the candidate. Application names, namespaces and contexts come from the kubeconfig and the
// cluster; any failure there (no cluster, no permission, a slow server) only means no candidates.
import { SHORTHANDS } from './argv.js';

export const Directive = { Default: 0, NoSpace: 2, NoFileComp: 4 } as const;

/** One flag as completion offers it. */
export interface FlagSpec {
  name: string;
  describe: string;
  /** Takes a value (the next word, or after `=`). */
  takesValue: boolean;
  /** Fixed values, when it has them. */
  choices?: readonly string[];
}

/** One command as completion sees it. */
export interface CommandSpec {
  name: string;
  describe: string;
  flags: FlagSpec[];
  /** What its first positional argument is. */
  positional?: 'app' | 'file' | 'shell';
}

/** What completion may look up: each returns names, or throws (then nothing is offered). */
export interface CompletionSources {
  applications(flags: Record<string, string>): Promise<string[]>;
  namespaces(flags: Record<string, string>): Promise<string[]>;
  kubeconfigNames(flags: Record<string, string>, what: 'contexts' | 'clusters' | 'users'): Promise<string[]>;
}

export interface Completion {
  items: string[];
  directive: number;
}

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;

/** Flags whose value is a file name: the shell completes those. */
const FILE_FLAGS = new Set([
  'kubeconfig',
  'app-file',
  'desired',
  'live',
  'repo-dir',
  'certificate-authority',
  'client-certificate',
  'client-key',
  'cache-dir',
  'lua-dir',
  'project-file',
  'argocd-cm',
  'argocd-cmd-params-cm',
]);

function longName(word: string): string | undefined {
  if (word.startsWith('--')) return word.slice(2).split('=')[0];
  const short = /^-([a-zA-Z])(=|$)/.exec(word);
  return short ? SHORTHANDS[short[1]!]?.long : undefined;
}

/** The flags typed so far that completion lookups honour (kubeconfig, context, app-namespace, …), by long name. */
function typedFlags(words: readonly string[], cmd: CommandSpec | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const name = longName(w);
    if (name === undefined) continue;
    const spec = cmd?.flags.find((f) => f.name === name);
    if (!spec?.takesValue) continue;
    if (w.includes('=')) out[name] = w.slice(w.indexOf('=') + 1);
    else if (i + 1 < words.length) out[name] = words[++i]!;
  }
  return out;
}

async function values(spec: FlagSpec, flags: Record<string, string>, src: CompletionSources): Promise<Completion> {
  if (spec.choices) return { items: [...spec.choices], directive: Directive.NoFileComp };
  if (FILE_FLAGS.has(spec.name)) return { items: [], directive: Directive.Default };
  const lookups: Record<string, () => Promise<string[]>> = {
    context: () => src.kubeconfigNames(flags, 'contexts'),
    cluster: () => src.kubeconfigNames(flags, 'clusters'),
    user: () => src.kubeconfigNames(flags, 'users'),
    namespace: () => src.namespaces(flags),
    'app-namespace': () => src.namespaces(flags),
  };
  const lookup = lookups[spec.name];
  return { items: lookup ? await lookup().catch(() => []) : [], directive: Directive.NoFileComp };
}

const withPrefix = (c: Completion, prefix: string, typed: string): Completion => ({
  ...c,
  items: c.items.filter((i) => i.startsWith(typed)).map((i) => prefix + i),
});

/** The candidates for the last of `words` (the words after `kubectl gitops`). */
export async function complete(words: readonly string[], commands: readonly CommandSpec[], src: CompletionSources): Promise<Completion> {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const cmdIndex = before.findIndex((w, i) => !w.startsWith('-') && !(i > 0 && takesValueWord(before[i - 1]!, undefined)));
  const cmd = cmdIndex >= 0 ? commands.find((c) => c.name === before[cmdIndex]) : undefined;
  if (cmdIndex < 0) {
    if (current.startsWith('-')) return { items: [], directive: Directive.NoFileComp };
    return { items: commands.filter((c) => c.name.startsWith(current)).map((c) => `${c.name}\t${c.describe}`), directive: Directive.NoFileComp };
  }
  if (!cmd) return { items: [], directive: Directive.NoFileComp };
  const flags = typedFlags(words, cmd);
  // The value of a flag: `--context=pr`, `-n sh`, `--output j`.
  const prev = before.at(-1);
  const prevSpec = prev !== undefined && !prev.includes('=') ? cmd.flags.find((f) => f.name === longName(prev) && f.takesValue) : undefined;
  if (prevSpec) return withPrefix(await values(prevSpec, flags, src), '', current);
  if (current.startsWith('-') && current.includes('=')) {
    const spec = cmd.flags.find((f) => f.name === longName(current));
    if (!spec?.takesValue) return { items: [], directive: Directive.NoFileComp };
    const prefix = current.slice(0, current.indexOf('=') + 1);
    return withPrefix(await values(spec, flags, src), prefix, current.slice(prefix.length));
  }
  if (current.startsWith('-')) {
    const items = cmd.flags.filter((f) => `--${f.name}`.startsWith(current)).map((f) => `--${f.name}\t${f.describe}`);
    return { items, directive: Directive.NoFileComp };
  }
  // A positional argument: only the first one is completed.
  const positionals = before.slice(cmdIndex + 1).filter((w, i, all) => !w.startsWith('-') && !(i > 0 && takesValueWord(all[i - 1]!, cmd)));
  if (positionals.length > 0 || !cmd.positional) return { items: [], directive: Directive.NoFileComp };
  if (cmd.positional === 'file') return { items: [], directive: Directive.Default };
  if (cmd.positional === 'shell') return withPrefix({ items: [...SHELLS], directive: Directive.NoFileComp }, '', current);
  return withPrefix({ items: await src.applications(flags).catch(() => []), directive: Directive.NoFileComp }, '', current);
}

/** Whether `word` is a flag that takes the next word as its value (for `cmd`, or any command's when not known). */
function takesValueWord(word: string, cmd: CommandSpec | undefined): boolean {
  if (!word.startsWith('-') || word.includes('=')) return false;
  if (/^-[a-zA-Z]$/.test(word)) return SHORTHANDS[word[1]!]?.takesValue === true && word !== '-v';
  const name = word.slice(2);
  if (cmd) return cmd.flags.some((f) => f.name === name && f.takesValue);
  return !['verbose', 'help', 'all-namespaces', 'insecure-skip-tls-verify'].includes(name);
}

/** The `__complete` answer as cobra prints it. */
export function formatCompletion(c: Completion): string {
  return [...c.items, `:${c.directive}`].join('\n') + '\n';
}

/** The completion script for a shell, completing `kubectl-gitops` through its `__complete` command. */
export function completionScript(shell: (typeof SHELLS)[number]): string {
  switch (shell) {
    case 'bash':
      return `# bash completion for kubectl-gitops: source <(kubectl gitops completion bash)
# (\`kubectl gitops <TAB>\` is completed by kubectl itself through kubectl_complete-gitops.)
_kubectl_gitops() {
  local cur=\${COMP_WORDS[COMP_CWORD]} out directive line
  local -a lines values
  out=$(kubectl-gitops __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  mapfile -t lines <<<"$out"
  directive=\${lines[-1]#:}
  unset 'lines[-1]'
  for line in "\${lines[@]}"; do [[ -n $line ]] && values+=("\${line%%$'\\t'*}"); done
  COMPREPLY=()
  for line in "\${values[@]}"; do [[ $line == "$cur"* ]] && COMPREPLY+=("$line"); done
  (( directive & 2 )) && compopt -o nospace 2>/dev/null
  if (( \${#COMPREPLY[@]} == 0 )) && ! (( directive & 4 )); then compopt -o default 2>/dev/null; fi
  return 0
}
complete -F _kubectl_gitops kubectl-gitops
`;
    case 'zsh':
      return `#compdef kubectl-gitops
# zsh completion for kubectl-gitops: source <(kubectl gitops completion zsh)
_kubectl_gitops() {
  local out directive
  local -a lines comps
  out=$(kubectl-gitops __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  directive=\${lines[-1]#:}
  comps=("\${(@)lines[1,-2]}")
  comps=("\${(@)comps//:/\\\\:}")
  comps=("\${(@)comps/$'\\t'/:}")
  if (( \${#comps} )); then
    _describe 'kubectl-gitops' comps
  elif (( ! (directive & 4) )); then
    _files
  fi
}
if (( $+functions[compdef] )); then compdef _kubectl_gitops kubectl-gitops; fi
`;
    case 'fish':
      return `# fish completion for kubectl-gitops: kubectl gitops completion fish | source
# The candidates come from kubectl-gitops __complete; with none and no "no files" directive (4), fish completes files.
function __kubectl_gitops_prepare
    set -l words (commandline -opc)
    set -e words[1]
    set -l out (kubectl-gitops __complete $words (commandline -ct) 2>/dev/null)
    or return 1
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    set -g __kubectl_gitops_results $out
    if test (count $out) -eq 0; and test (math "bitand($directive, 4)") -eq 0
        return 1
    end
    return 0
end
complete -c kubectl-gitops -f -n __kubectl_gitops_prepare -a '$__kubectl_gitops_results'
`;
    case 'powershell':
      return `# PowerShell completion for kubectl-gitops: kubectl gitops completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName 'kubectl-gitops', 'kubectl-gitops.exe' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
    if ($wordToComplete -eq '') { $words += '""' }
    & kubectl-gitops __complete @words 2>$null | Where-Object { $_ -notmatch '^:[0-9]+$' } | ForEach-Object {
        $value, $description = $_ -split "\`t", 2
        if (-not $description) { $description = $value }
        [System.Management.Automation.CompletionResult]::new($value, $value, 'ParameterValue', $description)
    }
}
`;
  }
}
