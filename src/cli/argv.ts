// Rewrites a kubectl-style (pflag) argument list into the forms yargs reads the same way.
//
// pflag takes a shorthand's value attached (`-ojson`, `-nshop`), after `=` (`-o=json`) or as the next
// argument (`-o json`), and lets booleans group (`-Ah`); yargs would split `-oyaml` into the flags
// y, a, m, l. Every shorthand is therefore rewritten to its long form with the value attached
// (`--output=json`) before yargs sees it, and a shorthand nobody defines is refused as pflag refuses it.
// `-v` is kubectl's log level: `-v6`, `-v=6`, `-v 6`, `--v=6`, `--v 6`; a bare `-v` (no number after
// it) is level 1, which is what `-v` meant before it took a level (the cause chain of errors).
import { InputError } from '../model/errors.js';

/** A mistake in the argument list itself: exit 2 with a hint to the help. */
export class UsageError extends InputError {}

interface Shorthand {
  long: string;
  takesValue: boolean;
}

/** Every shorthand any command defines (yargs then refuses a long flag the chosen command lacks). */
export const SHORTHANDS: Readonly<Record<string, Shorthand>> = {
  o: { long: 'output', takesValue: true },
  n: { long: 'namespace', takesValue: true },
  s: { long: 'server', takesValue: true },
  f: { long: 'app-file', takesValue: true },
  v: { long: 'v', takesValue: true },
  A: { long: 'all-namespaces', takesValue: false },
  l: { long: 'selector', takesValue: true },
  h: { long: 'help', takesValue: false },
};

/** The level a bare `-v` (or `--v`) stands for. */
const BARE_V_LEVEL = 1;

const LEVEL = /^\d{1,2}$/;

/** A value-taking flag needs its value: the next argument, unless it is missing or another flag (a lone `-` is stdin). */
function nextValue(argv: readonly string[], i: number, shown: string): string {
  const next = argv[i + 1];
  if (next === undefined || (next.startsWith('-') && next !== '-')) throw new UsageError(`flag needs an argument: ${shown}`);
  return next;
}

/**
 * The argument list with every shorthand in long form (`-ojson` → `--output=json`, `-Ah` → `--all-namespaces --help`)
 * and the log level as `--v=N`; `kubectl gitops` alone and `help [command]` become `--help` requests.
 * Arguments after `--` are left as they are.
 */
export function normalizeArgv(argv: readonly string[]): string[] {
  if (argv.length === 0) return ['--help'];
  if (argv[0] === 'help') return argv.length > 1 ? [...argv.slice(1), '--help'] : ['--help'];
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a === '--v' || a === '-v') {
      // The level is optional: the next argument is taken only when it is one.
      const next = argv[i + 1];
      if (next !== undefined && LEVEL.test(next)) {
        out.push(`--v=${next}`);
        i++;
      } else out.push(`--v=${BARE_V_LEVEL}`);
      continue;
    }
    if (a.startsWith('--') || !a.startsWith('-') || a === '-') {
      out.push(a);
      continue;
    }
    // One or more shorthands: booleans may group, and the first that takes a value takes the rest.
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!;
      const flag = SHORTHANDS[c];
      if (flag === undefined) throw new UsageError(`unknown shorthand flag: '${c}' in ${a}`);
      const rest = a.slice(j + 1);
      if (!flag.takesValue) {
        if (rest.startsWith('=')) {
          out.push(`--${flag.long}=${rest.slice(1)}`);
          break;
        }
        out.push(`--${flag.long}`);
        continue;
      }
      let value = rest.startsWith('=') ? rest.slice(1) : rest;
      if (rest === '') {
        value = nextValue(argv, i, `'${c}' in -${c}`);
        i++;
      }
      out.push(`--${flag.long}=${value}`);
      break;
    }
  }
  return out;
}

/** The flags that may be given more than once, each time adding a value (the rest: the last one wins, as in kubectl). */
const REPEATABLE_FLAGS = ['resource', 'api-versions', 'as-group'] as const;

/**
 * Every value of each repeatable flag, in order (`--resource a --resource=b`), up to `--`. yargs is told that a
 * repeated flag's last value wins (kubectl's rule for the other flags), which would keep only the last of these.
 */
export function repeatedValues(argv: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    for (const name of REPEATABLE_FLAGS) {
      let value: string | undefined;
      if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3);
      else if (a === `--${name}` && i + 1 < argv.length && argv[i + 1] !== '--') value = argv[++i];
      if (value !== undefined) out.set(name, [...(out.get(name) ?? []), value]);
    }
  }
  return out;
}

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted. */
function shellWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** Every way a boolean flag can be typed (`--x`, `--x=true`, `--x=false`, `--no-x`): what a command that sets it again drops first. */
export function booleanFlagForms(name: string): string[] {
  return [`--${name}`, `--${name}=true`, `--${name}=false`, `--no-${name}`];
}

/** The command line as typed (`kubectl gitops ...`), shell-quoted, without the given flags (e.g. `--no-force-conflicts`). */
export function commandLineWithout(argv: readonly string[], drop: readonly string[]): string {
  return ['kubectl', 'gitops', ...argv.filter((a) => !drop.includes(a))].map(shellWord).join(' ');
}
