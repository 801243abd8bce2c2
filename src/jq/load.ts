// The jq the comparison's jqPathExpressions rules run on, for the workflows to hand to the core (which does no I/O: the
// runner is a worker thread). Loaded on first use only: start-up stays fast when no rule uses jq.
import type { JqPaths } from '../diff/ignore.js';

export const loadJq = (): Promise<JqPaths> => import('./runner.js').then((m) => m.jqRunner());
