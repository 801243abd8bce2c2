// `kubectl gitops diff`: desired against live, per field, with owners and verdicts.
import type { GitopsCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { NotImplementedError } from '../exit-codes.js';

export const diffCommand: GitopsCommand = {
  command: 'diff [app]',
  describe: 'Show drift between the desired manifests and the live objects, with who owns each field',
  builder: (y) =>
    appSourceOptions(y)
      .option('live', { type: 'string', describe: 'File mode: read live objects from this file or directory instead of the cluster' })
      .option('server-side', { type: 'boolean', default: false, describe: 'Compare with a server-side apply dry-run and preview field-manager conflicts' })
      .example('kubectl gitops diff shop', 'Diff the Application "shop" (in --app-namespace) against the cluster')
      .example('kubectl gitops diff --desired ./k8s --live ./live.yaml -f app.yaml', 'File mode, no cluster'),
  async run() {
    throw new NotImplementedError('diff');
  },
};
