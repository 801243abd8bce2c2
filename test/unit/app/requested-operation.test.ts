// A sync requested through the Application's `operation` field, read as this tool's sync request (app/requested-operation.ts).
import { requestedOperationOf } from '../../../src/app/requested-operation.js';
import type { JsonObject } from '../../../src/model/object.js';

describe('requestedOperationOf', () => {
  it('none: no request', () => {
    expect(requestedOperationOf(undefined)).toBeUndefined();
    expect(requestedOperationOf(null)).toBeUndefined();
  });

  it('what argocd app sync writes: revision, prune, dry run, the initiator, retry, options and strategy', () => {
    const op = {
      initiatedBy: { username: 'alice' },
      retry: { limit: 2, backoff: { duration: '5s' } },
      sync: {
        revision: 'v2',
        prune: true,
        dryRun: false,
        syncOptions: ['ServerSideApply=true', 'CreateNamespace=true'],
        syncStrategy: { apply: { force: true } },
      },
    };
    expect(requestedOperationOf(op)).toEqual({
      key: JSON.stringify(op),
      revision: 'v2',
      prune: true,
      dryRun: false,
      resources: [],
      runOptions: { items: ['ServerSideApply=true', 'CreateNamespace=true'], strategy: 'apply', force: true, strategyGiven: true },
      retryLimit: 2,
      username: 'alice',
    });
  });

  it('a selective sync: each resource as sync --resource takes it (exclude: !), never with prune', () => {
    const op: { sync: JsonObject } = {
      sync: {
        resources: [
          { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' },
          { kind: 'ConfigMap', name: 'conf', exclude: true },
        ],
      },
    };
    expect(requestedOperationOf(op)).toMatchObject({ prune: false, dryRun: false, resources: ['apps:Deployment:shop/web', '!:ConfigMap:conf'] });
    expect(requestedOperationOf({ sync: { ...op.sync, prune: true } })).toMatchObject({ refused: expect.stringContaining('never prunes') });
  });

  it('what it cannot run as asked is a refusal naming the field, never a guess', () => {
    expect(requestedOperationOf({ info: [{ name: 'x', value: 'y' }] })).toMatchObject({
      refused: 'the requested operation is not a sync (operation.sync is missing)',
    });
    expect(requestedOperationOf({ sync: { revisions: ['a', 'b'] } })).toMatchObject({
      refused: expect.stringMatching(/^operation\.sync\.revisions is not run/),
    });
    expect(requestedOperationOf({ sync: { resources: [{ kind: 'ConfigMap' }] } })).toMatchObject({
      refused: 'operation.sync.resources: {"kind":"ConfigMap"} needs a kind and a name',
    });
    expect(requestedOperationOf({ sync: { syncOptions: ['Bogus=true'] } })).toMatchObject({
      refused: expect.stringMatching(/^operation\.sync\.syncOptions: Bogus=true: Bogus is not a sync option/),
    });
  });
});
