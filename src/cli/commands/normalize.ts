// `kubectl gitops normalize`: print manifests without what the cluster fills in.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { ExitCode } from '../../model/errors.js';
import { runNormalize } from '../../workflows/normalize.js';
import { objectsToJson, objectsToYaml } from '../../render/yaml-out.js';
import { stdinDash } from './diff.js';

export const normalizeCommand = defineCommand({
  command: 'normalize <path>',
  describe: 'Print objects without the fields the cluster fills in (resourceVersion, uid, managedFields, status, ...)',
  outputs: ['yaml', 'json'],
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'A file, a directory or - for standard input' })
      .option('argocd-cm', {
        type: 'string',
        requiresArg: true,
        describe:
          "Argo CD's settings (the argocd-cm ConfigMap) from this file: a Secret's annotations its resource.sensitive.mask.annotations names are masked",
      })
      .example('kubectl get deploy orders -o yaml | kubectl gitops normalize -', 'Strip server noise from a live object')
      .example('kubectl gitops normalize ./k8s -o json', 'Print a directory of manifests as one JSON List'),
  async run(args, ctx) {
    const objects = await runNormalize(stdinDash(args.path ?? '-'), ctx.io, args.argocdCm);
    return emit(ctx, { report: ctx.opts.output === 'json' ? objectsToJson(objects) : objectsToYaml(objects), code: ExitCode.Ok });
  },
});
