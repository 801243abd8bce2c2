// `kubectl gitops manifests`: the desired objects as a sync would send them, as `argocd app manifests`.
import { defineCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { ExitCode } from '../../model/errors.js';
import { appStateInput } from '../inputs.js';
import { emit } from '../emit.js';

export const manifestsCommand = defineCommand({
  command: 'manifests [app]',
  describe: 'Print the desired objects exactly as a sync would send them (rendered, namespaced, marked), in sync order, as argocd app manifests',
  outputs: ['yaml', 'json'],
  builder: (y) =>
    appSourceOptions(y)
      .example('kubectl gitops manifests shop', 'The objects a sync of shop would apply, hooks in their phases, as one YAML stream')
      .example('kubectl gitops manifests shop --revision v2 -o json', 'At another revision, as a JSON List'),
  async run(args, ctx) {
    const { withAppTarget } = await import('../../workflows/session/session.js');
    const { runManifests } = await import('../../workflows/manifests/manifests.js');
    const { renderManifests } = await import('../../render/manifests.js');
    const input = appStateInput(args);
    return withAppTarget(ctx, 'manifests', input, async (session) => {
      const r = await runManifests(input, { io: ctx.io, opts: ctx.opts, ...session });
      return emit(ctx, { warnings: r.warnings, report: renderManifests(r.objects, ctx.opts.output === 'json' ? 'json' : 'yaml'), code: ExitCode.Ok });
    });
  },
});
