// Global flags (as kubectl users expect) and the option builders commands share.
import type { Argv } from 'yargs';
import type { ColorMode, GlobalOptions, KubeOverrides, OutputFormat } from '../model/context.js';
import { CONTROL_PLANE_NAMESPACE, DEFAULT_APP_NAMESPACE, DEFAULT_FIELD_MANAGER } from '../model/keys.js';
import { UsageError } from './argv.js';

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml', 'kv', 'env'];
const COLOR_MODES: readonly ColorMode[] = ['auto', 'always', 'never'];

/** Group titles in help: a command's own flags come first, then these. */
const CLUSTER_GROUP = 'Cluster flags (as kubectl):';
const GLOBAL_GROUP = 'Global flags:';
/** Where the Application, its desired state and its rules come from, and how it is rendered: after a command's own flags. */
const SOURCE_GROUP = 'Source and render flags:';
const SOURCE_KEYS = [
  'app-file',
  'desired',
  'revision',
  'revisions',
  'source-positions',
  'source-names',
  'repo-dir',
  'render',
  'hard-refresh',
  'kustomize-build-options',
  'kustomize',
  'helm',
  'kube-version',
  'api-versions',
  'argocd-namespace',
  'project-file',
  'argocd-cm',
  'argocd-cmd-params-cm',
  'lua-dir',
  'cache-dir',
];

/** Flags every command takes: output, colour, log level, help. */
export function globalOptions<T>(y: Argv<T>) {
  return y
    .option('output', {
      alias: 'o',
      type: 'string',
      requiresArg: true,
      describe: 'Output format: table, json, yaml, kv or env (what the command can produce)',
      global: true,
    })
    .option('color', {
      choices: COLOR_MODES,
      default: 'auto' as ColorMode,
      describe: 'Colour tables: auto (only on a TTY, not with NO_COLOR or TERM=dumb), always, never',
      global: true,
    })
    .option('v', {
      type: 'string',
      requiresArg: true,
      describe: 'Log level on stderr: 1 causes of errors and a request summary, 4 the connection, 6 each request, 7 headers, 8-9 bodies (never Secret values)',
      global: true,
    })
    .option('verbose', { type: 'boolean', default: false, describe: 'The same as -v 1', global: true })
    .group(['output', 'color', 'v', 'verbose', 'help'], GLOBAL_GROUP);
}

/** The arguments every command has (the global flags), as yargs infers them from globalOptions. */
export type GlobalArgs = ReturnType<typeof globalOptions<object>> extends Argv<infer G> ? G : never;

/** kubectl's flags for reaching a cluster, taken by the commands that talk to one. */
export function clusterOptions<T>(y: Argv<T>) {
  const s = (describe: string) => ({ type: 'string' as const, requiresArg: true, describe });
  const keys = [
    'kubeconfig',
    'context',
    'cluster',
    'user',
    'namespace',
    'all-namespaces',
    'server',
    'token',
    'as',
    'as-group',
    'as-uid',
    'certificate-authority',
    'client-certificate',
    'client-key',
    'insecure-skip-tls-verify',
    'tls-server-name',
    'username',
    'password',
    'request-timeout',
    'field-manager',
    'app-namespace',
  ];
  return y
    .option('kubeconfig', s('Path to the kubeconfig file (default: $KUBECONFIG, a path list, then ~/.kube/config)'))
    .option('context', s('The kubeconfig context to use'))
    .option('cluster', s("The kubeconfig cluster to use (instead of the context's)"))
    .option('user', s("The kubeconfig user to use (instead of the context's)"))
    .option('namespace', { ...s('Namespace for objects that declare none (overrides the destination namespace)'), alias: 'n' })
    .option('all-namespaces', {
      type: 'boolean',
      alias: 'A',
      describe: 'list, status: the Applications in every namespace (the other commands act on one Application: an error)',
    })
    .option('server', { ...s('The address of the API server'), alias: 's' })
    .option('token', s('Bearer token for the API server'))
    .option('as', s('User to impersonate'))
    .option('as-group', { ...s('Group to impersonate (repeat for several)'), array: true, nargs: 1 })
    .option('as-uid', s('UID to impersonate'))
    .option('certificate-authority', s('Path to a CA certificate file for the API server'))
    .option('client-certificate', s('Path to a client certificate file for TLS'))
    .option('client-key', s('Path to a client key file for TLS'))
    .option('insecure-skip-tls-verify', { type: 'boolean', describe: "Do not check the server's certificate (insecure)" })
    .option('tls-server-name', s("Server name to check the server's certificate against"))
    .option('username', s('Username for basic authentication (the API server itself dropped basic auth in 1.19; for a proxy in front of it)'))
    .option('password', s('Password for basic authentication'))
    .option('request-timeout', { ...s('Bound on each API request, connect to last byte (e.g. 30s, 1m; 0: only the 10 s connect bound)'), default: '0' })
    .option('field-manager', { ...s('Field manager for server-side apply and ownership'), default: DEFAULT_FIELD_MANAGER })
    .option('app-namespace', { ...s('Namespace of the Argo CD Application objects'), default: DEFAULT_APP_NAMESPACE })
    .group(keys, CLUSTER_GROUP);
}

/** The log level of `--v=N` (normalizeArgv spells every form so); a value that is not one is a usage error. */
function parseLevel(v: unknown): number {
  if (v === undefined) return 0;
  const text = String(Array.isArray(v) ? v[v.length - 1] : v);
  if (!/^\d{1,2}$/.test(text)) throw new UsageError(`invalid argument "${text}" for "-v, --v": a log level is a number, 0 to 10`);
  return Math.min(Number(text), 10);
}

/** Turns parsed yargs arguments into typed global options; `defaultOutput` is the command's first output mode. */
export function toGlobalOptions(argv: Record<string, unknown>, defaultOutput: OutputFormat = 'table'): GlobalOptions {
  const str = (k: string): string | undefined => (typeof argv[k] === 'string' ? (argv[k] as string) : undefined);
  const level = Math.max(parseLevel(argv.v), argv.verbose === true ? 1 : 0);
  const overrides: KubeOverrides = {};
  const set = <K extends keyof KubeOverrides>(k: K, v: KubeOverrides[K] | undefined) => {
    if (v !== undefined) overrides[k] = v;
  };
  set('cluster', str('cluster'));
  set('user', str('user'));
  set('server', str('server'));
  set('token', str('token'));
  set('as', str('as'));
  const groups = argv.asGroup;
  set('asGroups', Array.isArray(groups) ? groups.map(String) : typeof groups === 'string' ? [groups] : undefined);
  set('asUid', str('asUid'));
  set('certificateAuthority', str('certificateAuthority'));
  set('clientCertificate', str('clientCertificate'));
  set('clientKey', str('clientKey'));
  set('insecureSkipTlsVerify', typeof argv.insecureSkipTlsVerify === 'boolean' ? argv.insecureSkipTlsVerify : undefined);
  set('tlsServerName', str('tlsServerName'));
  set('username', str('username'));
  set('password', str('password'));
  return {
    kubeconfig: str('kubeconfig'),
    context: str('context'),
    namespace: str('namespace'),
    requestTimeout: str('requestTimeout') ?? '0',
    output: (str('output') ?? defaultOutput) as OutputFormat,
    color: (str('color') ?? 'auto') as ColorMode,
    verbose: level >= 1,
    verbosity: level,
    fieldManager: str('fieldManager') ?? DEFAULT_FIELD_MANAGER,
    appNamespace: str('appNamespace') ?? DEFAULT_APP_NAMESPACE,
    overrides,
    ...(str('cacheDir') !== undefined ? { cacheDir: str('cacheDir') } : {}),
  };
}

/** `APP` positional plus `-f/--app-file` and `--desired` (and the cluster flags), shared by diff, sync, prune and status. */
export function appSourceOptions<T>(y: Argv<T>) {
  return clusterOptions(
    y
      .positional('app', { type: 'string', describe: 'Name of the Argo CD Application (in --app-namespace)' })
      .option('app-file', {
        alias: 'f',
        type: 'string',
        requiresArg: true,
        describe: 'Read the Application from this file (- for standard input) instead of the cluster',
      })
      .option('desired', { type: 'string', requiresArg: true, describe: 'Desired manifests (file, directory or -), overriding the Application source' })
      .option('revision', { type: 'string', requiresArg: true, describe: 'Git revision to read the desired manifests from (overrides targetRevision)' })
      .option('revisions', {
        type: 'string',
        array: true,
        nargs: 1,
        requiresArg: true,
        describe:
          'Multi-source apps: a revision for each source named by --source-positions or --source-names (repeatable; the others at their targetRevision)',
      })
      .option('source-positions', {
        type: 'string',
        array: true,
        nargs: 1,
        requiresArg: true,
        describe:
          'With --revisions: the 1-based position in spec.sources of the source each revision is for (repeatable, or comma-separated as argocd takes them)',
      })
      .option('source-names', {
        type: 'string',
        array: true,
        nargs: 1,
        requiresArg: true,
        describe: 'With --revisions: the name (spec.sources[].name) of the source each revision is for (repeatable)',
      })
      .conflicts('revision', ['revisions', 'source-positions', 'source-names'])
      .option('repo-dir', { type: 'string', requiresArg: true, describe: 'A local clone to read a remote repoURL from' })
      .option('render', {
        type: 'boolean',
        describe: 'With --desired DIR: render the folder like a source (directory options, Jsonnet, Kustomize) instead of reading plain manifests',
      })
      .option('hard-refresh', { type: 'boolean', describe: "Render the source again even when the render cache has it (as Argo CD's hard refresh)" })
      .option('kustomize-build-options', {
        type: 'string',
        requiresArg: true,
        describe: "Extra kustomize build arguments, as Argo CD's kustomize.buildOptions (e.g. --load-restrictor LoadRestrictionsNone)",
      })
      .option('kustomize', {
        type: 'string',
        requiresArg: true,
        describe: 'The kustomize binary for Kustomize sources (default: $KUBECTL_GITOPS_KUSTOMIZE, kustomize on PATH, else kubectl kustomize)',
      })
      .option('helm', { type: 'string', requiresArg: true, describe: 'The helm binary for Helm sources (default: $KUBECTL_GITOPS_HELM, else helm on PATH)' })
      .option('kube-version', {
        type: 'string',
        requiresArg: true,
        describe: "Helm's --kube-version for charts, instead of the destination cluster's version (offline: file mode)",
      })
      .option('api-versions', {
        type: 'string',
        array: true,
        nargs: 1,
        requiresArg: true,
        describe: "Helm's --api-versions for charts (repeatable), instead of the destination cluster's types (offline: file mode)",
      })
      .option('argocd-namespace', {
        type: 'string',
        requiresArg: true,
        default: CONTROL_PLANE_NAMESPACE,
        describe: "Argo CD's control-plane namespace: its AppProjects and argocd-cm are read there",
      })
      .option('project-file', { type: 'string', requiresArg: true, describe: "Read the Application's AppProject from this file instead of the cluster" })
      .option('argocd-cm', {
        type: 'string',
        requiresArg: true,
        describe: "Read Argo CD's settings (the argocd-cm ConfigMap) from this file instead of the cluster",
      })
      .option('argocd-cmd-params-cm', {
        type: 'string',
        requiresArg: true,
        describe: 'Read argocd-cmd-params-cm (application.namespaces: where Argo CD reconciles Applications) from this file instead of the cluster',
      })
      .option('lua-dir', {
        type: 'string',
        requiresArg: true,
        describe: "Custom health checks in Argo CD's resource_customizations/<group>/<kind>/health.lua layout",
      })
      .option('cache-dir', {
        type: 'string',
        requiresArg: true,
        describe:
          "Cache directory, as kubectl's (default: $KUBECACHEDIR): Git mirrors and renders are kept in its kubectl-gitops folder (without either: ~/.cache/kubectl-gitops)",
      })
      .group(SOURCE_KEYS, SOURCE_GROUP),
  );
}

/** `--no-record` (for the commands that write the Application's status): `record` is true unless it is given. */
export function recordOption<T>(y: Argv<T>) {
  return y.option('record', {
    type: 'boolean',
    default: true,
    describe: "Write the result into the Application's status and history, as Argo CD's controller does (--no-record: leave it)",
  });
}
