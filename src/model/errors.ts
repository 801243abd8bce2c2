// The one exit-code table (documented in the README) and the errors that map onto it: shared vocabulary for every layer (cli/ maps them to the process exit code).

export const ExitCode = {
  /** Success; for diff: in sync. */
  Ok: 0,
  /** diff found drift (or status/wait not converged). */
  Drift: 1,
  /** Usage or input error: nothing was changed. */
  Input: 2,
  /** Cluster or API error. */
  Cluster: 3,
  /** Refused by a safety rule: nothing was changed. */
  Refused: 4,
  /** Stopped by SIGINT (Ctrl-C), as a shell counts it (128 + 2): the closing line says where. */
  Interrupted: 130,
  /** Stopped by SIGTERM (128 + 15). */
  Terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error that carries the exit code it must end the process with. */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly code: ExitCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad flags, bad files, bad documents: exit 2, nothing changed. */
export class InputError extends ExitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.Input, options);
  }
}

/**
 * The app's manifests at this revision cannot be read or rendered: a manifest that does not parse, a Helm, Kustomize or
 * Jsonnet failure, a source path the revision lacks (the message names the file or the tool). An input error for every
 * command (exit 2); `plan` reports it as what would fail the sync at head (exit 4), that app alone, where an error of
 * the command's own input (a revision, a flag, the Application) is a plain InputError and ends the command.
 */
export class ManifestError extends InputError {
  /** The Application whose manifests these are (metadata.name), set where its state is loaded. */
  app?: string;
}

/**
 * A desired object of a kind the destination cluster does not serve (and no CRD of the app defines): an input error
 * for the commands that act now (exit 2); `plan` reports it as what would refuse the sync at head (exit 4).
 */
export class UnservedKindError extends InputError {
  /** The Application whose objects these are (metadata.name), set where its state is loaded. */
  app?: string;
}

/** The cluster or its API failed us: exit 3. */
export class ClusterError extends ExitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.Cluster, options);
  }
}

/** A safety rule refused the operation: exit 4, nothing changed. */
export class RefusedError extends ExitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.Refused, options);
  }
}

/**
 * A source this tool cannot render completely and exactly as Argo CD would: refused by every command (exit 4),
 * shown as sync status Unknown by status; nothing is applied or deleted.
 */
export class UnrenderableError extends RefusedError {
  /** The Application whose source this is (metadata.name, not the file it was read from), set where its state is loaded. */
  app?: string;
  constructor(readonly reasons: readonly string[]) {
    super(`the source cannot be rendered as Argo CD would, so nothing is compared, applied or pruned: ${reasons.join('; ')}`);
  }
}

/** The exit code for any thrown value: ExitErrors carry theirs, anything else is a cluster/API fault. */
export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof ExitError) return err.code;
  return ExitCode.Cluster;
}

/** The message and its cause chain, one line each (`-v` shows the chain). */
export function describeError(err: unknown, verbose: boolean): string {
  const lines: string[] = [];
  let cur: unknown = err;
  let depth = 0;
  while (cur !== undefined && cur !== null && depth < 10) {
    const msg = cur instanceof Error ? cur.message : String(cur);
    lines.push(depth === 0 ? `error: ${msg}` : `  caused by: ${msg}`);
    if (!verbose) break;
    cur = cur instanceof Error ? cur.cause : undefined;
    depth++;
  }
  return lines.join('\n');
}
