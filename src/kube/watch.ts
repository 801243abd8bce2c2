// A watch that keeps going: list, then watch from the list's resourceVersion, resume after a closed stream,
// re-list on 410 Gone, and reconnect with back-off when the API server goes away.
import type { KubeObject } from '../model/object.js';
import type { KubeGateway, WatchEvent } from './gateway.js';
import type { ResourceType } from '../model/resource-type.js';
import { KubeApiError } from './errors.js';

/** One collection to follow (a type in a namespace, or cluster-wide). */
export interface WatchTarget {
  type: ResourceType;
  namespace?: string;
  labelSelector?: string;
  /** Ask for metadata only (PartialObjectMetadata): cheaper, enough to notice a change. */
  metadataOnly?: boolean;
  /** The page size of the list that starts (and restarts) the watch (the gateway's default when unset). */
  pageSize?: number;
}

/** What the follower reports: a fresh full list, one change, or a connection state. */
export type FollowEvent =
  | { kind: 'listed'; items: KubeObject[]; resourceVersion?: string }
  | { kind: 'change'; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject }
  | { kind: 'disconnected'; error: unknown; retryInMs: number; attempt: number }
  | { kind: 'gone'; resourceVersion?: string };

export interface FollowOptions {
  signal: AbortSignal;
  /** The wait before reconnect attempt n (0-based). */
  reconnectDelay(attempt: number): number;
  /** Waits, resolving early (without throwing) when the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** A watch that ends sooner than this with no event counts as a failure (so a refusing server is not hammered). */
  minHealthyMs?: number;
  now?: () => number;
}

/** Thrown inside the follower when the server says the resourceVersion is too old. */
class GoneError extends Error {}

function isGone(e: unknown): boolean {
  return e instanceof GoneError || (e instanceof KubeApiError && e.status === 410);
}

function statusCode(obj: KubeObject): number | undefined {
  const code = (obj as unknown as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Follows one collection until the signal aborts, reporting through `emit`; never throws for API trouble
 * (that is reported as `disconnected` and retried), only returns once aborted.
 */
export async function follow(gateway: KubeGateway, target: WatchTarget, emit: (e: FollowEvent) => void, opts: FollowOptions): Promise<void> {
  const now = opts.now ?? Date.now;
  const minHealthy = opts.minHealthyMs ?? 1_000;
  let resourceVersion: string | undefined;
  let attempt = 0;
  const base = {
    namespace: target.namespace,
    labelSelector: target.labelSelector,
    metadataOnly: target.metadataOnly,
    ...(target.pageSize !== undefined ? { pageSize: target.pageSize } : {}),
  };
  while (!opts.signal.aborted) {
    let events = 0;
    const started = now();
    try {
      if (resourceVersion === undefined) {
        const list = await gateway.list(target.type, base);
        if (opts.signal.aborted) break;
        resourceVersion = list.resourceVersion;
        emit({ kind: 'listed', items: list.items, resourceVersion });
        attempt = 0;
      }
      // A failure seen inside the event callback stops this stream through its own controller (throwing there
      // would escape the HTTP client's event handler) and is raised once the stream has ended.
      const stream = new AbortController();
      const stop = () => stream.abort();
      opts.signal.addEventListener('abort', stop, { once: true });
      let failure: Error | undefined;
      try {
        await gateway.watch(target.type, { ...base, resourceVersion, signal: stream.signal }, (ev: WatchEvent) => {
          if (failure !== undefined) return;
          events++;
          if (ev.type === 'ERROR') {
            failure =
              statusCode(ev.object) === 410
                ? new GoneError('watch resourceVersion expired (410 Gone)')
                : new Error(`watch error event: ${JSON.stringify(ev.object).slice(0, 300)}`);
            stream.abort();
            return;
          }
          const rv = ev.object?.metadata?.resourceVersion;
          if (rv !== undefined && rv !== '') resourceVersion = rv;
          if (ev.type !== 'BOOKMARK') emit({ kind: 'change', type: ev.type, object: ev.object });
        });
      } finally {
        opts.signal.removeEventListener('abort', stop);
      }
      if (failure !== undefined) throw failure;
      if (opts.signal.aborted) break;
      if (events === 0 && now() - started < minHealthy) throw new Error('the watch stream closed at once');
      attempt = 0; // a normal end (the server's watch timeout): resume from the last resourceVersion
    } catch (e) {
      if (opts.signal.aborted) break;
      if (isGone(e)) {
        emit({ kind: 'gone', resourceVersion });
        resourceVersion = undefined; // re-list
        continue;
      }
      const retryInMs = opts.reconnectDelay(attempt);
      emit({ kind: 'disconnected', error: e, retryInMs, attempt });
      attempt++;
      await opts.sleep(retryInMs, opts.signal);
    }
  }
}
