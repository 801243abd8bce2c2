// `kubectl gitops appset generate FILE|NAME`: the Applications an ApplicationSet makes, as Argo CD's ApplicationSet
// controller makes them (nothing is written).
import { existsSync } from 'node:fs';
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { clusterOptions } from '../options.js';
import { ExitCode, InputError } from '../../model/errors.js';
import { CONTROL_PLANE_NAMESPACE } from '../../model/keys.js';

export const appsetCommand = defineCommand({
  command: 'appset <action> [source]',
  describe: "ApplicationSets: `appset generate FILE|NAME` prints the Applications one makes, as Argo CD's ApplicationSet controller makes them",
  outputs: ['yaml', 'json', 'kv'],
  builder: (y) =>
    clusterOptions(
      y
        .positional('action', { type: 'string', choices: ['generate'] as const, describe: 'generate: print the Applications the ApplicationSet makes' })
        .positional('source', { type: 'string', describe: 'A file holding the ApplicationSet (- for stdin), or its name in --app-namespace' }),
    )
      .option('app-file', {
        alias: 'f',
        type: 'string',
        requiresArg: true,
        describe: 'Read the ApplicationSet from this file (- for stdin); -f is --app-file for every command',
      })
      .option('repo-dir', { type: 'string', requiresArg: true, describe: "A local clone to read the git generators' repository from" })
      .option('argocd-namespace', {
        type: 'string',
        requiresArg: true,
        default: CONTROL_PLANE_NAMESPACE,
        describe: "Argo CD's control-plane namespace: the clusters generator reads its cluster Secrets there",
      })
      .example('kubectl gitops appset generate appset.yaml', 'The Applications as one YAML stream')
      .example('kubectl gitops appset generate shop-apps -o kv', 'By name from the cluster, one APPLICATION=ns/name line each'),
  async run(args, ctx) {
    const source = args.source !== undefined && args.source !== '' ? args.source : undefined;
    if (args.appFile !== undefined && source !== undefined) throw new InputError('give the ApplicationSet once: -f FILE or FILE|NAME, not both');
    const file = args.appFile ?? (source !== undefined && (source === '-' || existsSync(source) || /[/\\]|\.(ya?ml|json)$/i.test(source)) ? source : undefined);
    const name = file === undefined ? source : undefined;
    if (file === undefined && name === undefined)
      throw new InputError('appset generate: give a FILE (-f FILE) or the NAME of an ApplicationSet in --app-namespace');
    const { runAppSetGenerate } = await import('../../workflows/appset/generate.js');
    const { appsetWarnings, renderAppSetGenerate } = await import('../../render/appset.js');
    const report = await runAppSetGenerate(ctx, {
      ...(file !== undefined ? { file } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(args.argocdNamespace !== undefined ? { argocdNamespace: args.argocdNamespace } : {}),
      ...(args.repoDir !== undefined ? { repoDir: args.repoDir } : {}),
    });
    return emit(ctx, { warnings: appsetWarnings(report), report: renderAppSetGenerate(report, ctx.opts.output), code: ExitCode.Ok });
  },
});
