// One cluster session per command: connect lazily, run, and on -v say what it cost (requests, retries, time).
import { access } from 'node:fs/promises';
import type { CommandContext } from '../cli/context.js';
import { applicationFileError } from '../app/application.js';
import { manifestPathError } from '../manifest/index.js';
import type { KubeGateway } from '../kube/gateway.js';

/** The local paths a command reads besides the cluster. */
export interface LocalSources {
  appFile?: string;
  desired?: string;
}

/**
 * Fails on a named Application file or --desired path that does not exist, before any connection: a
 * typo is reported as itself even where no kubeconfig is set. The messages are those the readers give.
 */
export async function checkLocalSources(sources: LocalSources): Promise<void> {
  const check = async (path: string | undefined, error: (path: string, err: unknown) => Error): Promise<void> => {
    if (path === undefined || path === '' || path === '-') return;
    await access(path).catch((err: unknown) => {
      throw error(path, err);
    });
  };
  await check(sources.appFile, applicationFileError);
  await check(sources.desired, manifestPathError);
}

/**
 * Runs `fn` with a gateway to the selected context; always closes it, and with -v reports its requests and retries on stderr.
 * The local sources, when given, are checked first (see checkLocalSources).
 */
export async function withGateway<T>(ctx: CommandContext, what: string, fn: (gateway: KubeGateway) => Promise<T>, sources?: LocalSources): Promise<T> {
  if (sources) await checkLocalSources(sources);
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
