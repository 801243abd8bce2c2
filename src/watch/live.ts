// Follows the collections an app's objects live in and says when one of its objects really changed.
import type { KubeGateway } from '../kube/gateway.js';
import type { ResourceType } from '../model/resource-type.js';
import { follow, type FollowEvent } from '../kube/watch.js';
import type { KubeObject } from '../model/object.js';
import { TRACKING_ID } from '../model/keys.js';

/** One collection to follow and the names in it that belong to the app. */
export interface LiveTarget {
  type: ResourceType;
  namespace?: string;
  names: ReadonlySet<string>;
}

export interface LiveWatcherOptions {
  gateway: KubeGateway;
  /** The app part of tracking-ids: objects marked for the app count even when not desired (prune candidates). */
  appInstance: () => string;
  /** Under label tracking: the instance label key (the label's value is the app instance). */
  labelKey?: () => string | undefined;
  onChange(reason: { object: string; type: string }): void;
  onConnection(event: Extract<FollowEvent, { kind: 'disconnected' | 'gone' }>, target: string): void;
  reconnectDelay(attempt: number): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * A watch-fed cache the process shares (kube/cluster-cache.ts, `sync --watch --all`): its watch of each type, over the
   * whole cluster, is followed instead of one of this loop's own per namespace.
   */
  cache?: {
    follows(type: ResourceType): boolean;
    subscribe(type: ResourceType, listener: (e: FollowEvent) => void, scope: { namespace?: string; signal?: AbortSignal }): (() => void) | undefined;
  };
}

function targetId(t: Pick<LiveTarget, 'type' | 'namespace'>): string {
  return `${t.type.group}/${t.type.version}/${t.type.resource}@${t.namespace ?? ''}`;
}

/**
 * What about an object can make it drift: for objects with a generation (spec changes bump it), the generation,
 * labels and annotations; for others (ConfigMaps, Secrets, ...) the resourceVersion. Status-only updates of a
 * Deployment are thereby not changes, as Argo CD ignores `/status` updates by default.
 */
export function changeFingerprint(obj: KubeObject): string {
  const m = obj.metadata;
  if (typeof m.generation === 'number') {
    return JSON.stringify([m.generation, m.labels ?? {}, m.annotations ?? {}, m.deletionTimestamp ?? null]);
  }
  return `rv:${m.resourceVersion ?? ''}`;
}

/** Keeps one `follow` per collection, started and stopped as the app's desired set changes. */
export class LiveWatcher {
  private readonly running = new Map<string, { target: LiveTarget; stop: AbortController; done: Promise<void>; viaCache?: boolean }>();
  /** The last fingerprint seen per object uid. */
  private readonly seen = new Map<string, string>();

  constructor(private readonly opts: LiveWatcherOptions) {}

  /** Follows exactly these collections from now on (names are updated in place; new ones start, old ones stop). */
  update(targets: readonly LiveTarget[]): void {
    const wanted = new Map(targets.map((t) => [targetId(t), t]));
    for (const [id, r] of this.running) {
      if (!wanted.has(id)) {
        r.stop.abort();
        this.running.delete(id);
      }
    }
    const cache = this.opts.cache;
    for (const [id, target] of wanted) {
      const existing = this.running.get(id);
      if (existing && !(existing.viaCache && !cache?.follows(target.type))) {
        existing.target = target;
        continue;
      }
      // A type the shared cache found it may not list over the whole cluster: followed here, in its namespace.
      existing?.stop.abort();
      const stop = new AbortController();
      const entry: { target: LiveTarget; stop: AbortController; done: Promise<void>; viaCache?: boolean } = { target, stop, done: Promise.resolve() };
      // The shared watch is of the whole cluster: only this target's namespace is the app's.
      const scope = { ...(target.namespace !== undefined ? { namespace: target.namespace } : {}), signal: stop.signal };
      if (cache?.subscribe(target.type, (ev) => this.handle(entry.target, id, ev), scope)) {
        entry.viaCache = true;
        this.running.set(id, entry);
        continue;
      }
      entry.done = follow(
        this.opts.gateway,
        { type: target.type, namespace: target.namespace, metadataOnly: true },
        (ev) => this.handle(entry.target, id, ev),
        {
          signal: stop.signal,
          reconnectDelay: this.opts.reconnectDelay,
          sleep: this.opts.sleep,
        },
      ).catch(() => undefined);
      this.running.set(id, entry);
    }
  }

  private belongs(target: LiveTarget, obj: KubeObject): boolean {
    if (target.names.has(obj.metadata.name ?? '')) return true;
    const labelKey = this.opts.labelKey?.();
    if (labelKey !== undefined) return obj.metadata.labels?.[labelKey] === this.opts.appInstance();
    const mark = obj.metadata.annotations?.[TRACKING_ID];
    return mark !== undefined && mark.startsWith(`${this.opts.appInstance()}:`);
  }

  private handle(target: LiveTarget, id: string, ev: FollowEvent): void {
    if (ev.kind === 'disconnected' || ev.kind === 'gone') {
      this.opts.onConnection(ev, id);
      return;
    }
    if (ev.kind === 'listed') {
      // After a (re-)list, anything may have changed while we were not looking: compare once.
      let changed = false;
      for (const obj of ev.items) {
        if (!this.belongs(target, obj)) continue;
        const uid = obj.metadata.uid ?? `${id}/${obj.metadata.name ?? ''}`;
        const fp = changeFingerprint(obj);
        if (this.seen.has(uid) && this.seen.get(uid) !== fp) changed = true;
        this.seen.set(uid, fp);
      }
      if (changed) this.opts.onChange({ object: target.type.kind, type: 'RELISTED' });
      return;
    }
    const obj = ev.object;
    if (!this.belongs(target, obj)) return;
    const uid = obj.metadata.uid ?? `${id}/${obj.metadata.name ?? ''}`;
    if (ev.type === 'DELETED') {
      this.seen.delete(uid);
    } else {
      const fp = changeFingerprint(obj);
      if (this.seen.get(uid) === fp) return;
      this.seen.set(uid, fp);
    }
    this.opts.onChange({ object: `${target.type.kind}/${obj.metadata.name ?? ''}`, type: ev.type });
  }

  /** Stops every follower and waits for them to end. */
  async stop(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    for (const r of all) r.stop.abort();
    await Promise.all(all.map((r) => r.done));
  }
}
