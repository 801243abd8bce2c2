// What every layer may know of the process a command runs in (types only): its streams and environment (Io), the
// global options, and the two together as a workflow receives them. cli/ builds them; nothing here does I/O.

export type ColorMode = 'auto' | 'always' | 'never';
/** `dot` and `svg` only for the commands that draw a graph (`status --tree`). */
export type OutputFormat = 'table' | 'json' | 'yaml' | 'kv' | 'env' | 'dot' | 'svg' | 'markdown';

/** What a command may touch of the process: its streams, TTY state and environment. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for help text, when stdout is a terminal. */
  columns?: number;
  env: Record<string, string | undefined>;
  /** The whole of standard input; every call gives the same text (it is read once). */
  readStdin(): Promise<string>;
  /** Whether standard input is a terminal a question can be asked on (`delete` without --yes). */
  stdinIsTTY?: boolean;
  /**
   * Asks on the terminal (the question on stderr) and returns the line typed; the end of input (Ctrl-D) is an empty
   * answer, and Ctrl-C rejects with an ExitError of ExitCode.Interrupted.
   */
  ask?(question: string): Promise<string>;
}

/** What a workflow, and the source readers under it, may touch of the process: its environment and standard input (`-`). They never print: cli/ does. */
export type WorkflowIo = Pick<Io, 'env' | 'readStdin'>;

/**
 * kubectl's connection flags (genericclioptions.ConfigFlags): each replaces what the kubeconfig says
 * for the chosen context, as client-go's ConfigOverrides do (src/kube/overrides.ts applies them).
 */
export interface KubeOverrides {
  cluster?: string;
  user?: string;
  server?: string;
  token?: string;
  as?: string;
  asGroups?: string[];
  asUid?: string;
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  /** Basic authentication (`--username`, `--password`), which kubectl keeps for servers behind an authenticating proxy. */
  username?: string;
  password?: string;
}

export interface GlobalOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  requestTimeout: string;
  output: OutputFormat;
  color: ColorMode;
  /** Level 1 or more (`-v`, `--verbose`): the cause chain of errors and each command's request summary. */
  verbose: boolean;
  /** The log level, `-v N`: 0 quiet, 1 causes and summaries, 4 the connection, 6 requests, 7 headers, 8-9 bodies. */
  verbosity?: number;
  fieldManager: string;
  appNamespace: string;
  /** kubectl's connection flags given on the command line (only those given). */
  overrides?: KubeOverrides;
  /** `--cache-dir`: kubectl's cache directory, where the tool's caches go (see source/cache-home.ts). */
  cacheDir?: string;
}

/** The global options a workflow reads: how to reach the cluster, the field manager, the Application namespace, -v. Not the output mode or colours: cli/ renders. */
export type WorkflowOptions = Omit<GlobalOptions, 'output' | 'color'>;

/** What a connection reads of the global options (kube/connect.ts). */
export type ConnectOptions = Pick<GlobalOptions, 'kubeconfig' | 'context' | 'overrides' | 'requestTimeout' | 'verbosity'>;

/**
 * What a cluster session reports as it goes (workflows/session/session.ts): a line of the connection's log (-v 4 and up: the
 * connection, requests, headers, bodies; written by kube/) and, when it ends, what its connections cost.
 */
export type SessionEvent =
  | { kind: 'log'; line: string }
  | {
      kind: 'requests' /** The command or workflow the session served (`status`, `list`, ...). */;
      what: string;
      requests: number;
      retries: number;
      ms: number;
      /** A command over many Applications: how many, and what the one snapshot per cluster they shared read. */
      fleet?: FleetCost;
    };

/** What a many-app command's shared snapshots read (workflows/session/session.ts GatewayPool). */
export interface FleetCost {
  apps: number;
  clusters: number;
  /** LISTs made over all namespaces. */
  clusterWideLists: number;
  /** Types RBAC made it list namespace by namespace (the cluster-wide LIST was forbidden). */
  splitByNamespace: string[];
  /** A long-running command's caches, kept current by watches (`sync --watch --all`), not one-time snapshots. */
  watched?: boolean;
}

/**
 * What a workflow receives from its command: the environment and stdin, and the global options it reads. No streams, no
 * output mode, no colours: it returns a report, and cli/ renders and prints it.
 */
export interface RunContext {
  io: WorkflowIo;
  opts: WorkflowOptions;
  /** Where the cluster sessions' logs and request counts go (cli/ prints them on stderr with -v); dropped when absent. Workflows never print. */
  onSession?: (event: SessionEvent) => void;
}
