// The loop's action log: one event per action, printed as one timestamped line (table text, kv, JSON lines or YAML).
import { stringify } from 'yaml';
import type { OutputFormat } from '../render/colour.js';

/** What the loop did or saw; `object` is `Kind/name` (namespace in `namespace` when there is one). */
export type LoopAction =
  | 'start' // the loop started
  | 'revision' // the source resolved to a new commit
  | 'sync' // an object applied for a new revision (or the first pass)
  | 'heal' // an object re-applied because live drifted (selfHeal)
  | 'prune' // an object deleted
  | 'drift' // drift seen and left alone (selfHeal or prune off)
  | 'backoff' // a heal held back: the same drift keeps coming back
  | 'refused' // a safety rule held something back (empty render: no prune)
  | 'in-sync' // a step found nothing to do after something had been out of sync
  | 'error' // the source or the cluster failed; retried
  | 'webhook' // a webhook request, accepted or refused
  | 'reconnect' // a live watch lost its connection (retrying) or re-listed
  | 'warning'
  | 'refresh' // with -v: one look at the source and the cluster, with its cost
  | 'app' // the Application itself: its loop started or stopped, left alone (not automated), changed, a refresh asked or served
  | 'stop';

export interface LoopEvent {
  time: Date;
  /** sync --watch --all: the Application (`namespace/name`) whose loop this event is from. */
  app?: string;
  action: LoopAction;
  object?: string;
  namespace?: string;
  /** `applied`, `failed`, `deleted`, `refused`, `accepted`, ... */
  result?: string;
  revision?: string;
  message?: string;
  /** Extra fields (ref, status, retryInMs, ...). */
  detail?: Record<string, string | number | boolean>;
}

function kvValue(v: string | number | boolean): string {
  const s = String(v);
  return /^[^\s"=]*$/.test(s) && s !== '' ? s : JSON.stringify(s);
}

function plainObject(ev: LoopEvent): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = { time: ev.time.toISOString(), ...(ev.app !== undefined ? { app: ev.app } : {}), action: ev.action };
  if (ev.object !== undefined) out.object = ev.object;
  if (ev.namespace !== undefined) out.namespace = ev.namespace;
  if (ev.result !== undefined) out.result = ev.result;
  if (ev.revision !== undefined) out.revision = ev.revision;
  if (ev.message !== undefined) out.message = ev.message;
  for (const [k, v] of Object.entries(ev.detail ?? {})) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * One event as one line (ending in a newline): `-o json` a JSON object per line; `-o kv` `TIME=… ACTION=…` pairs
 * (values with spaces JSON-quoted); `-o yaml` one document per event; table mode a readable line.
 */
export function formatEvent(ev: LoopEvent, format: OutputFormat): string {
  const o = plainObject(ev);
  switch (format) {
    case 'json':
      return `${JSON.stringify(o)}\n`;
    case 'kv':
      return `${Object.entries(o)
        .map(([k, v]) => `${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}=${kvValue(v)}`)
        .join(' ')}\n`;
    case 'yaml':
      // Quoted for YAML 1.1 readers, as render/yaml-text.ts prints (watch/ sits beside render/, not above it).
      return `---\n${stringify(o, { version: '1.1' })}`;
    default: {
      const parts = [o.time as string, ...(ev.app !== undefined ? [ev.app] : []), ev.action.padEnd(9)];
      if (ev.object !== undefined) parts.push(ev.namespace ? `${ev.object} (${ev.namespace})` : ev.object);
      if (ev.result !== undefined) parts.push(ev.result);
      if (ev.revision !== undefined) parts.push(`revision ${ev.revision.slice(0, 12)}`);
      for (const [k, v] of Object.entries(ev.detail ?? {})) parts.push(`${k}=${v}`);
      if (ev.message !== undefined) parts.push(`- ${ev.message}`);
      return `${parts.join('  ')}\n`;
    }
  }
}
