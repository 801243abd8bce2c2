// One cluster session per command: connect lazily, run, and on -v say what it cost (requests, retries, time).
import type { CommandContext } from '../cli/context.js';
import type { KubeGateway } from '../kube/gateway.js';

/** Runs `fn` with a gateway to the selected context; always closes it, and with -v reports its requests and retries on stderr. */
export async function withGateway<T>(ctx: CommandContext, what: string, fn: (gateway: KubeGateway) => Promise<T>): Promise<T> {
  const { connectGateway } = await import('../kube/connect.js');
  const gateway = await connectGateway(ctx.opts, ctx.io.env);
  const started = Date.now();
  try {
    return await fn(gateway);
  } finally {
    if (ctx.opts.verbose) {
      const s = gateway.stats();
      ctx.io.err(`${what}: ${s.requests} API requests, ${s.retries} retried, in ${Date.now() - started} ms\n`);
    }
    gateway.close();
  }
}
