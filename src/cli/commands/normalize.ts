// `kubectl gitops normalize`: print manifests without what the cluster fills in.
import type { GitopsCommand } from '../command.js';
import { NotImplementedError } from '../exit-codes.js';

export const normalizeCommand: GitopsCommand = {
  command: 'normalize <path>',
  describe: 'Print objects without the fields the cluster fills in (resourceVersion, uid, managedFields, status, ...)',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'A file, a directory or - for standard input' })
      .example('kubectl get deploy orders -o yaml | kubectl gitops normalize -', 'Strip server noise from a live object'),
  async run() {
    throw new NotImplementedError('normalize');
  },
};
