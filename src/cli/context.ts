// What a command handler receives: the process edges, typed global options and the colour decision.
import type { Io, GlobalOptions, RunContext, SessionEvent } from '../model/context.js';
import { paint, shouldColour, type Paint } from '../render/colour.js';

export interface CommandContext extends RunContext {
  io: Io;
  opts: GlobalOptions;
  /** Colours for tables on stdout (plain when the policy says no). */
  paint: Paint;
  colour: boolean;
  /** The arguments as typed after `kubectl gitops` (to name a command that goes on). */
  argv?: readonly string[];
}

export function makeContext(io: Io, opts: GlobalOptions, argv?: readonly string[]): CommandContext {
  const colour = shouldColour({ mode: opts.color, output: opts.output, isTTY: io.stdoutIsTTY, env: io.env });
  return { io, opts, paint: paint(colour), colour, onSession: (e) => io.err(formatSessionEvent(e)), ...(argv ? { argv } : {}) };
}

/** A session event as its line on stderr: the connection's log line as kube/ wrote it, or the -v request summary. */
function formatSessionEvent(e: SessionEvent): string {
  if (e.kind === 'log') return e.line;
  const line = `${e.what}: ${e.requests} API requests, ${e.retries} retried, in ${e.ms} ms`;
  const f = e.fleet;
  if (!f) return `${line}\n`;
  const split = f.splitByNamespace.length > 0 ? `; namespace by namespace where RBAC forbids the cluster-wide LIST: ${f.splitByNamespace.join(', ')}` : '';
  const apps = `${f.apps} Application${f.apps === 1 ? '' : 's'}`;
  const clusters = `${f.clusters} cluster${f.clusters === 1 ? '' : 's'}`;
  if (f.watched)
    return `${line}, for ${apps} from one watch-fed cache per cluster (${clusters}, ${f.clusterWideLists} types listed and watched cluster-wide${split}): reads are answered from the cache, not the API server\n`;
  return `${line}, for ${apps} from one snapshot per cluster (${clusters}, ${f.clusterWideLists} cluster-wide LISTs${split}): the count does not grow with the number of Applications\n`;
}
