// Renders a DiffReport as a table (coloured per the colour policy), kv lines, JSON or YAML.
import { renderDocument } from './document.js';
import type { DiffReport, FieldDiff, ObjectDiff } from '../diff/types.js';
import { renderPath } from '../model/field-path.js';
import { describeRule } from '../diff/ignore.js';
import type { JsonValue, ResourceKey } from '../model/object.js';
import { displayName } from '../model/object.js';
import type { Owner } from '../ownership/index.js';
import type { OutputFormat } from './colour.js';
import type { Paint } from './colour.js';

const MAX_CELL = 48;

/** Renders the report; `now` fixes owner ages for reproducible output. Always ends with a newline. */
export function renderDiff(report: DiffReport, format: OutputFormat, paint: Paint, now: Date = new Date()): string {
  return renderDocument(diffDocument(report), format, { kv: () => renderDiffKv(report), table: () => renderDiffTable(report, paint, now) });
}

/** A field in `-o json|yaml` (schemaVersion 1): its path as renderPath's text, the other keys in their order. */
export type FieldDocument = Omit<FieldDiff, 'path'> & { path: string };

/** The report as `-o json|yaml` prints it: each field's path turned into text (the only place the diff's paths are). */
export function diffDocument<R extends { objects: readonly ObjectDiff[] }>(
  report: R,
): Omit<R, 'objects'> & { objects: (Omit<ObjectDiff, 'fields'> & { fields: FieldDocument[] })[] } {
  return { ...report, objects: report.objects.map((o) => ({ ...o, fields: o.fields.map((f) => ({ ...f, path: renderPath(f.path) })) })) };
}

/** `SYNC=...`, then `DRIFT=<Kind>/<name> <path>` per drifted (or conflicting) field, `MISSING=`, `EXTRA=`. */
export function renderDiffKv(report: DiffReport): string {
  const lines = [`SYNC=${report.sync}`];
  for (const o of report.objects) {
    for (const f of o.fields) if (f.verdict !== 'ignored') lines.push(`DRIFT=${displayName(o.key)} ${renderPath(f.path)}`);
    if (o.status === 'missing') lines.push(`MISSING=${displayName(o.key)}`);
  }
  for (const e of report.extras) lines.push(`EXTRA=${displayName(e)}`);
  return lines.join('\n') + '\n';
}

/** A cell value: JSON (so `3` and `"3"` differ), `<absent>` when the field is not there, cut to a readable width. */
export function formatValue(v: JsonValue | undefined): string {
  if (v === undefined) return '<absent>';
  const s = JSON.stringify(v);
  return s.length > MAX_CELL ? s.slice(0, MAX_CELL - 1) + '…' : s;
}

/** kubectl-style age: 45s, 12m, 5h, 3d. */
export function formatAge(time: string | undefined, now: Date): string | undefined {
  if (!time) return undefined;
  const t = Date.parse(time);
  if (Number.isNaN(t)) return undefined;
  const s = Math.max(0, Math.floor((now.getTime() - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** `kubectl-client-side-apply (Update, 5m)`, `kube-controller-manager (Update/status, 2h)`. */
function formatOwner(o: Owner, now: Date): string {
  const op = o.subresource ? `${o.operation}/${o.subresource}` : o.operation;
  const age = formatAge(o.time, now);
  return `${o.manager} (${age ? `${op}, ${age}` : op})`;
}

function objectTitle(key: ResourceKey, apiVersion: string): string {
  const where = key.namespace ? `, namespace ${key.namespace}` : '';
  return `${displayName(key)} (${apiVersion}${where})`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

const HEADERS = ['PATH', 'DESIRED', 'LIVE', 'OWNER', 'VERDICT'] as const;

function verdictText(f: FieldDiff): string {
  return f.verdict === 'ignored' && f.rule ? `ignored (${describeRule(f.rule)})` : f.verdict;
}

function statusText(o: ObjectDiff, paint: Paint): string {
  if (o.status === 'missing') return paint.red('MISSING');
  if (o.status === 'drifted') return paint.red('DRIFTED');
  return paint.green('IN SYNC');
}

/** One block per object (title, then PATH DESIRED LIVE OWNER VERDICT rows), extras, and a last line SYNCED or OUTOFSYNC. */
export function renderDiffTable(report: DiffReport, paint: Paint, now: Date = new Date()): string {
  const out: string[] = [];
  for (const o of report.objects) {
    out.push(`${paint.bold(objectTitle(o.key, o.apiVersion))}  ${statusText(o, paint)}`);
    if (o.fields.length > 0) {
      const rows = o.fields.map((f) => ({
        f,
        cells: [renderPath(f.path), formatValue(f.desired), formatValue(f.live), f.owners.map((w) => formatOwner(w, now)).join(', ') || '-', verdictText(f)],
      }));
      const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r.cells[i]!.length)));
      out.push('  ' + HEADERS.map((h, i) => (i === HEADERS.length - 1 ? h : pad(h, widths[i]!))).join('  '));
      for (const { f, cells } of rows) {
        const colour = f.verdict === 'drift' || f.verdict === 'removed' ? paint.red : f.verdict === 'conflict' ? paint.magenta : paint.dim;
        const text = cells.map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i]!)));
        text[4] = colour(text[4]!);
        out.push('  ' + text.join('  '));
      }
    }
    for (const w of o.warnings ?? []) out.push(`  ${paint.yellow('warning:')} ${w}`);
  }
  for (const e of report.extras) {
    out.push(
      `${paint.bold(`${displayName(e)}${e.namespace ? ` (namespace ${e.namespace})` : ''}`)}  ${paint.yellow('EXTRA')} (live, not desired: a prune candidate)`,
    );
  }
  out.push(report.sync === 'Synced' ? paint.green('SYNCED') : paint.red('OUTOFSYNC'));
  return out.join('\n') + '\n';
}
