// A stop asked for by SIGINT/SIGTERM, for the operations that change the cluster (sync, rollback, prune --confirm): the
// first signal aborts a signal the work checks between its steps, a second one forces the stop.
import { ExitCode } from '../../model/errors.js';

/** Where a stopper tells what it does, and where its signals come from. */
export interface StopperHooks {
  /** One line for the user as it happens (a signal received). */
  say: (line: string) => void;
  /** Install SIGINT/SIGTERM handlers (default true); tests pass `signals` instead. */
  handleSignals?: boolean;
  /** A test seam: signals delivered as if by the process. */
  signals?: EventTarget;
}

/** The shell's code for a process ended by a signal: 128 + its number (SIGINT 2, SIGTERM 15). */
export function signalExitCode(signal: NodeJS.Signals): ExitCode {
  return signal === 'SIGTERM' ? ExitCode.Terminated : ExitCode.Interrupted;
}

export interface Stopper {
  signal: AbortSignal;
  forced: Promise<NodeJS.Signals>;
  received(): NodeJS.Signals | undefined;
  dispose(): void;
}

/** The first SIGINT/SIGTERM aborts `signal` (the executor finishes its step); a second resolves `forced`. */
export function stopper(hooks: StopperHooks, kind: string): Stopper {
  const abort = new AbortController();
  let first: NodeJS.Signals | undefined;
  let force: (s: NodeJS.Signals) => void = () => undefined;
  const forced = new Promise<NodeJS.Signals>((resolve) => (force = resolve));
  const on = (sig: NodeJS.Signals) => {
    if (first === undefined) {
      first = sig;
      hooks.say(`${kind}: ${sig}: stopping after the step in progress (again to force)`);
      abort.abort();
    } else force(sig);
  };
  const onInt = () => on('SIGINT');
  const onTerm = () => on('SIGTERM');
  const target = hooks.signals;
  if (target) {
    target.addEventListener('SIGINT', onInt);
    target.addEventListener('SIGTERM', onTerm);
  } else if (hooks.handleSignals !== false) {
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  }
  return {
    signal: abort.signal,
    forced,
    received: () => first,
    dispose: () => {
      target?.removeEventListener('SIGINT', onInt);
      target?.removeEventListener('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}
