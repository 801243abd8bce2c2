// `kubectl gitops sync`: server-side apply the desired state in Argo CD's order, then prune safely.
import type { GitopsCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { NotImplementedError } from '../exit-codes.js';

export const syncCommand: GitopsCommand = {
  command: 'sync [app]',
  describe: 'Apply the desired state by server-side apply and prune what the app no longer declares',
  builder: (y) =>
    appSourceOptions(y)
      .option('dry-run', { type: 'boolean', default: false, describe: 'Print the whole plan and change nothing' })
      .option('prune', { type: 'boolean', default: false, describe: 'Prune even when automated.prune is false' })
      .option('force-conflicts', { type: 'boolean', default: false, describe: 'Take fields other managers own (as selfHeal does)' })
      .option('watch', { type: 'boolean', default: false, describe: 'Keep reconciling until stopped' })
      .option('interval', { type: 'string', default: '60s', describe: 'With --watch: how often to poll the source' })
      .option('webhook-addr', { type: 'string', describe: 'With --watch: listen for push events on this address (loopback by default)' })
      .option('webhook-secret', { type: 'string', describe: 'With --watch: HMAC-SHA256 secret for push events (or $KGITOPS_WEBHOOK_SECRET)' })
      .example('kubectl gitops sync shop --dry-run', 'Show the plan without changing anything')
      .example('kubectl gitops sync shop', 'Apply, heal and prune as the Application declares'),
  async run() {
    throw new NotImplementedError('sync');
  },
};
