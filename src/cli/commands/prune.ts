// `kubectl gitops prune`: list (or delete, with --confirm) live objects this app owns but no longer declares.
import type { GitopsCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { NotImplementedError } from '../exit-codes.js';

export const pruneCommand: GitopsCommand = {
  command: 'prune [app]',
  describe: 'List the live objects that carry this app\'s mark but are no longer declared; delete them with --confirm',
  builder: (y) =>
    appSourceOptions(y)
      .option('confirm', { type: 'boolean', default: false, describe: 'Delete the candidates (default: list only)' })
      .option('propagation-policy', { choices: ['foreground', 'background', 'orphan'] as const, describe: 'Deletion propagation (default: the app\'s PrunePropagationPolicy, else foreground)' })
      .example('kubectl gitops prune shop', 'List prune candidates')
      .example('kubectl gitops prune shop --confirm', 'Delete them, each guarded by uid and resourceVersion'),
  async run() {
    throw new NotImplementedError('prune');
  },
};
