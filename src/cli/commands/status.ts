// `kubectl gitops status`: sync status and health as two axes, with the reason.
import type { GitopsCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { NotImplementedError } from '../exit-codes.js';

export const statusCommand: GitopsCommand = {
  command: 'status [app]',
  describe: 'Show sync status and health per resource and for the app, with the most specific reason',
  builder: (y) =>
    appSourceOptions(y)
      .option('tree', { type: 'boolean', default: false, describe: 'Draw the live resource tree with health' })
      .option('wait', { type: 'boolean', default: false, describe: 'Wait until Synced and Healthy' })
      .option('timeout', { type: 'string', default: '5m', describe: 'With --wait: give up after this long' })
      .example('kubectl gitops status shop -o kv', 'SYNC=, HEALTH=, REASON=, PRUNE=, ALLOW_EMPTY= lines')
      .example('kubectl gitops status shop --wait --timeout 2m', 'Block until Synced and Healthy (for CI)'),
  async run() {
    throw new NotImplementedError('status');
  },
};
