// `kubectl gitops version`: plugin version, git commit and Node version.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { ExitCode } from '../../model/errors.js';
import { versionInfo } from '../../version.js';
import { renderVersion } from '../../render/version.js';

export const versionCommand = defineCommand({
  command: 'version',
  describe: 'Print the plugin version, git commit and Node version',
  builder: (y) => y.example('kubectl gitops version -o json', 'Machine-readable build information'),
  async run(_args, ctx) {
    return emit(ctx, { report: renderVersion(versionInfo(), ctx.opts.output), code: ExitCode.Ok });
  },
});
