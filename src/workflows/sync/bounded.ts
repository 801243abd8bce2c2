// A bound on how many asynchronous steps run at once: `sync --watch --all`'s reconciles, a wave of `sync --recursive`'s
// child Applications.

/** Runs at most `n` of the functions handed to it at once, the others in the order they came. */
export function bounded(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    // A free slot is taken; otherwise the one released next is handed over (never counted twice).
    if (running < n) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
