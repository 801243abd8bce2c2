// Global flags (as kubectl users expect) and the option builders commands share.
import type { Argv } from 'yargs';
import type { ColorMode, OutputFormat } from '../render/colour.js';
import { DEFAULT_APP_NAMESPACE, DEFAULT_FIELD_MANAGER } from '../model/keys.js';

export interface GlobalOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  requestTimeout: string;
  output: OutputFormat;
  color: ColorMode;
  verbose: boolean;
  fieldManager: string;
  appNamespace: string;
}

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml', 'kv'];
export const COLOR_MODES: readonly ColorMode[] = ['auto', 'always', 'never'];

export function globalOptions<T>(y: Argv<T>) {
  return y
    .option('kubeconfig', { requiresArg: true, type: 'string', describe: 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)', global: true })
    .option('context', { requiresArg: true, type: 'string', describe: 'The kubeconfig context to use', global: true })
    .option('namespace', { requiresArg: true, alias: 'n', type: 'string', describe: 'Namespace for objects that declare none (overrides the destination namespace)', global: true })
    .option('request-timeout', { requiresArg: true, type: 'string', default: '0', describe: 'How long to wait for one API request (0: no limit; e.g. 30s, 1m)', global: true })
    .option('output', { alias: 'o', choices: OUTPUT_FORMATS, default: 'table' as OutputFormat, describe: 'Output format', global: true })
    .option('color', { choices: COLOR_MODES, default: 'auto' as ColorMode, describe: 'Colour tables: auto (only on a TTY, not with NO_COLOR or TERM=dumb), always, never', global: true })
    .option('verbose', { alias: 'v', type: 'boolean', default: false, describe: 'Show the cause chain of errors', global: true })
    .option('field-manager', { requiresArg: true, type: 'string', default: DEFAULT_FIELD_MANAGER, describe: 'Field manager for server-side apply and ownership', global: true })
    .option('app-namespace', { requiresArg: true, type: 'string', default: DEFAULT_APP_NAMESPACE, describe: 'Namespace of the Argo CD Application objects', global: true });
}

/** Turns parsed yargs arguments into typed global options. */
export function toGlobalOptions(argv: Record<string, unknown>): GlobalOptions {
  const str = (k: string): string | undefined => (typeof argv[k] === 'string' ? (argv[k] as string) : undefined);
  return {
    kubeconfig: str('kubeconfig'),
    context: str('context'),
    namespace: str('namespace'),
    requestTimeout: str('requestTimeout') ?? '0',
    output: (str('output') ?? 'table') as OutputFormat,
    color: (str('color') ?? 'auto') as ColorMode,
    verbose: argv.verbose === true,
    fieldManager: str('fieldManager') ?? DEFAULT_FIELD_MANAGER,
    appNamespace: str('appNamespace') ?? DEFAULT_APP_NAMESPACE,
  };
}

/** `APP` positional plus `-f/--app-file` and `--desired`, shared by diff, sync, prune and status. */
export function appSourceOptions<T>(y: Argv<T>) {
  return y
    .positional('app', { type: 'string', describe: 'Name of the Argo CD Application (in --app-namespace)' })
    .option('app-file', { alias: 'f', type: 'string', describe: 'Read the Application from this file instead of the cluster' })
    .option('desired', { type: 'string', describe: 'Desired manifests (file, directory or -), overriding the Application source' })
    .option('revision', { type: 'string', describe: 'Git revision to read the desired manifests from (overrides targetRevision)' })
    .option('repo-dir', { type: 'string', describe: 'A local clone to read a remote repoURL from' });
}
