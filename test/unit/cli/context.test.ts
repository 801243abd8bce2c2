// The -v request summary on stderr (cli/context.ts): one session's count, or a many-app command's with what its shared
// snapshots or watch-fed caches read.
import { makeContext } from '../../../src/cli/context.js';
import { memoryIo } from '../../../src/cli/io.js';
import { toGlobalOptions } from '../../../src/cli/options.js';

const fleet = { apps: 25, clusters: 1, clusterWideLists: 57, splitByNamespace: [] as string[] };

test('one session: its requests, retries and time', () => {
  const mem = memoryIo();
  makeContext(mem.io, toGlobalOptions({ verbose: true })).onSession?.({ kind: 'requests', what: 'status', requests: 63, retries: 1, ms: 120 });
  expect(mem.stderr()).toBe('status: 63 API requests, 1 retried, in 120 ms\n');
});

test('a snapshot per cluster (list), and a watch-fed cache per cluster (sync --all, sync --watch --all), each said as such', () => {
  const mem = memoryIo();
  const ctx = makeContext(mem.io, toGlobalOptions({ verbose: true }));
  ctx.onSession?.({ kind: 'requests', what: 'list', requests: 63, retries: 0, ms: 500, fleet: { ...fleet, splitByNamespace: ['secrets'] } });
  ctx.onSession?.({ kind: 'requests', what: 'sync', requests: 81, retries: 0, ms: 900, fleet: { ...fleet, watched: true } });
  expect(mem.stderr().split('\n')).toEqual([
    'list: 63 API requests, 0 retried, in 500 ms, for 25 Applications from one snapshot per cluster (1 cluster, 57 cluster-wide LISTs; namespace by namespace where RBAC forbids the cluster-wide LIST: secrets): the count does not grow with the number of Applications',
    'sync: 81 API requests, 0 retried, in 900 ms, for 25 Applications from one watch-fed cache per cluster (1 cluster, 57 types listed and watched cluster-wide): reads are answered from the cache, not the API server',
    '',
  ]);
});
