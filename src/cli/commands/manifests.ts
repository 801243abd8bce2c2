// `kubectl gitops manifests`: the desired objects exactly as a sync would send them, as `argocd app manifests`.
import { defineCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { ExitCode, InputError } from '../../model/errors.js';
import { appStateInput } from '../inputs.js';
import { emit } from '../emit.js';

export const manifestsCommand = defineCommand({
  command: 'manifests [app]',
  describe: 'Print the desired objects exactly as a sync would send them (rendered, namespaced, marked), in sync order, as argocd app manifests',
  outputs: ['yaml', 'json'],
  builder: (y) =>
    appSourceOptions(y)
      .option('offline', {
        type: 'boolean',
        describe:
          "No cluster at all: the Application from -f, Kubernetes' own kinds from a built-in table (any other kind namespaced, said in a warning), Helm's capabilities from --kube-version/--api-versions or the chart's defaults",
      })
      .option('source-position', {
        type: 'number',
        requiresArg: true,
        describe: 'Only the objects of this source of spec.sources (its 1-based position), as argocd app get --source-position names a source',
      })
      .example('kubectl gitops manifests shop', 'The objects a sync of shop would apply, hooks in their phases, as one YAML stream')
      .example('kubectl gitops manifests shop --revision v2 -o json', 'At another revision, as a JSON List')
      .example('kubectl gitops manifests -f app.yaml --offline', 'Without a cluster: from the Git source the file names'),
  async run(args, ctx) {
    const { runManifests } = await import('../../workflows/manifests/manifests.js');
    const { renderManifests } = await import('../../render/manifests.js');
    const input = appStateInput(args);
    const format = ctx.opts.output === 'json' ? 'json' : 'yaml';
    const only = args.sourcePosition !== undefined ? { sourcePosition: args.sourcePosition } : {};
    if (args.offline === true) {
      if (input.appFile === undefined) throw new InputError('--offline reads the Application from -f/--app-file: there is no cluster to read it from');
      const { runOfflineManifests } = await import('../../workflows/manifests/offline.js');
      const r = await runOfflineManifests(input, { io: ctx.io, opts: ctx.opts }, only);
      return emit(ctx, { warnings: r.warnings, report: renderManifests(r.objects, format), code: ExitCode.Ok });
    }
    const { withAppTarget } = await import('../../workflows/session/session.js');
    return withAppTarget(ctx, 'manifests', input, async (session) => {
      const r = await runManifests(input, { io: ctx.io, opts: ctx.opts, ...session }, only);
      return emit(ctx, { warnings: r.warnings, report: renderManifests(r.objects, format), code: ExitCode.Ok });
    });
  },
});
