// The child Applications of `status --recursive` and `diff --recursive` (app-of-apps), each compared afresh: kv lines
// and a table indented by depth, the same in both commands.
import type { ChildStatus, SyncStatusCode } from '../health/report.js';
import type { HealthStatusCode } from '../health/types.js';
import { nameToken } from '../model/object.js';
import type { Paint } from './colour.js';
import { oneLineText } from './kv.js';

/** Whether a resource is an Argo CD Application (a child of an app-of-apps). */
export function isApplication(k: { group: string; kind: string }): boolean {
  return k.group === 'argoproj.io' && k.kind === 'Application';
}

/** The child Application a resource is, as `status --recursive` compared it (absent: not one, or not compared). */
export function childAppOf(
  res: { group: string; kind: string; namespace: string; name: string },
  children: readonly ChildStatus[] | undefined,
): ChildStatus | undefined {
  return isApplication(res) ? children?.find((c) => c.namespace === res.namespace && c.name === res.name) : undefined;
}

/** A child Application's own sync status and reason (or why it could not be compared), for its node in a tree or map. */
export function childAppMessage(app: ChildStatus): string {
  return [`application ${app.sync}`, app.error ?? app.reason ?? ''].filter((m) => m !== '').join(': ');
}

/** Depth first, each with its depth (1: the app's own children). */
function flatChildren(children: readonly ChildStatus[], depth = 1): (ChildStatus & { depth: number })[] {
  return children.flatMap((c) => [{ ...c, depth }, ...flatChildren(c.children ?? [], depth + 1)]);
}

/** `CHILD=<ns>/<name> <depth> <sync> <health>`, with `CHILD_ERROR=` (could not be compared) or `CHILD_REASON=`. */
export function childKvLines(children: readonly ChildStatus[]): string[] {
  const lines: string[] = [];
  for (const c of flatChildren(children)) {
    const id = nameToken(`${c.namespace}/${c.name}`);
    lines.push(`CHILD=${id} ${c.depth} ${c.sync} ${c.health}`);
    if (c.error !== undefined) lines.push(`CHILD_ERROR=${id} ${oneLineText(c.error)}`);
    else if (c.reason !== undefined) lines.push(`CHILD_REASON=${id} ${oneLineText(c.reason)}`);
  }
  return lines;
}

function syncColour(p: Paint, s: string): (t: string) => string {
  return (s as SyncStatusCode) === 'Synced' ? p.green : s === 'OutOfSync' ? p.yellow : p.gray;
}

function healthColour(p: Paint, h: string): (t: string) => string {
  const code = h as HealthStatusCode;
  return code === 'Healthy' ? p.green : code === 'Degraded' ? p.red : code === 'Progressing' ? p.cyan : p.gray;
}

/** "Child Applications (compared live):" and one row each, indented by depth; '' when there are none. */
export function childrenSection(children: readonly ChildStatus[], p: Paint): string {
  const rows = flatChildren(children);
  if (rows.length === 0) return '';
  const cells = rows.map((c) => [`${'  '.repeat(c.depth - 1)}${c.namespace}/${c.name}`, c.sync, c.health, oneLineText(c.error ?? c.reason ?? '')]);
  const head = ['APPLICATION', 'SYNC', 'HEALTH', 'MESSAGE'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[], colours: ((t: string) => string)[] = []) => {
    let last = row.length - 1;
    while (last > 0 && row[last] === '') last--;
    return row
      .slice(0, last + 1)
      .map((text, i) => {
        const padded = i === last ? text : text.padEnd(widths[i]!);
        return colours[i] ? colours[i]!(padded) : padded;
      })
      .join('  ');
  };
  return `\n\nChild Applications (compared live):\n${[
    line(head),
    ...cells.map((row, i) => {
      const c = rows[i]!;
      return line(row, [(t) => t, syncColour(p, c.sync), healthColour(p, c.health), c.error !== undefined ? p.red : (t) => t]);
    }),
  ].join('\n')}`;
}
