// Renders the live diff: the core diff table/kv plus the server-side conflict preview and ignored fields' owners.
import { renderDocument } from './document.js';
import type { LiveDiffReport } from '../workflows/diff/live-diff.js';
import { displayName, nameToken } from '../model/object.js';
import { oneLineText } from './kv.js';
import { childKvLines, childrenSection } from './children.js';
import { diffDocument, formatValue, renderDiffKv, renderDiffTable } from './diff.js';
import { renderPath } from '../model/field-path.js';
import type { OutputFormat, Paint } from './colour.js';
import { columnFormatter } from './columns.js';

/**
 * The core kv lines (SYNC=, DRIFT=, MISSING=, EXTRA=) then, per field another manager owns,
 * `OWNER=<Kind>/<name> <path> <manager>` for drift, `IGNORED=<Kind>/<name> <path> <manager>` for ignored
 * fields, and with --server-side `CONFLICT=<Kind>/<name> <path> <manager>` per field a non-forced apply is refused on;
 * with --recursive, `CHILD=` lines (render/children.ts).
 */
function renderLiveDiffKv(r: LiveDiffReport, fieldManager: string): string {
  if (r.sync === 'Unknown') return `SYNC=Unknown\nREASON=${oneLine(r.reason ?? '')}\n`;
  const lines = [renderDiffKv({ ...r, sync: r.sync }).trimEnd()];
  for (const o of r.objects) {
    for (const f of o.fields) {
      const others = [...new Set(f.owners.filter((w) => w.manager !== fieldManager && w.subresource !== 'status').map((w) => w.manager))];
      if (f.verdict === 'ignored') {
        // An ignored field nobody owns is still named, with `-` for its manager.
        for (const m of others.length > 0 ? others : ['-']) lines.push(`IGNORED=${displayName(o.key)} ${renderPath(f.path)} ${nameToken(m)}`);
      } else for (const m of others) lines.push(`OWNER=${displayName(o.key)} ${renderPath(f.path)} ${nameToken(m)}`);
    }
  }
  for (const c of r.conflicts) lines.push(`CONFLICT=${displayName(c.key)} ${oneLineText(c.path)} ${nameToken(c.manager)}`);
  lines.push(...childKvLines(r.children ?? []));
  return lines.join('\n') + '\n';
}

function conflictSection(r: LiveDiffReport, paint: Paint): string[] {
  if (!r.serverSide) return [];
  if (r.conflicts.length === 0) return [paint.dim('Conflict preview (server-side apply dry-run, not forced): no field of another manager would be taken.')];
  const rows = r.conflicts.map((c) => [
    displayName(c.key),
    c.path,
    c.manager + (c.subresource ? ` (${c.subresource})` : ''),
    formatValue(c.live as never),
    formatValue(c.desired as never),
  ]);
  const head = ['OBJECT', 'FIELD', 'MANAGER', 'LIVE', 'DESIRED'];
  const cols = columnFormatter(head, rows);
  const fmt = (cells: readonly string[]) => '  ' + cols(cells);
  const managers = [...new Set(r.conflicts.map((c) => c.manager))];
  return [
    paint.bold(`Conflict preview (server-side apply dry-run, not forced): ${r.conflicts.length} field(s) owned by ${managers.join(', ')}`),
    fmt(head),
    ...rows.map((row) => paint.magenta(fmt(row))),
    paint.dim('A sync takes these fields back (server-side apply with force, as Argo CD); with --no-force-conflicts it stops before any write instead.'),
  ];
}

/** Renders the report; `now` fixes the owners' ages in the table (for reproducible output). Always ends with a newline. */
export function renderLiveDiff(r: LiveDiffReport, format: OutputFormat, paint: Paint, fieldManager = 'argocd-controller', now: Date = new Date()): string {
  return renderDocument(diffDocument(r), format, {
    kv: () => renderLiveDiffKv(r, fieldManager),
    table: () => {
      // Which Application, where it acts: the context its destination resolved to and the namespace (-n over the Application's).
      const head = [paint.dim(`Application ${r.app}${r.context ? ` on context ${r.context} (${r.server ?? ''})` : ''}, namespace ${r.namespace || '-'}`)];
      if (r.sync === 'Unknown') return [...head, `${paint.bold('UNKNOWN')} ${r.reason ?? ''}`].join('\n') + '\n';
      const table = renderDiffTable({ ...r, sync: r.sync }, paint, now)
        .trimEnd()
        .split('\n');
      const last = table.pop() as string;
      const skipped = r.extrasSkipped.map((s) => `${paint.dim('  (not pruned:')} ${displayName(s.key)} ${paint.dim(s.reason + ')')}`);
      const children = childrenSection(r.children ?? [], paint);
      return [...head, ...table, ...skipped, ...conflictSection(r, paint), last].join('\n') + children + '\n';
    },
  });
}

/** A value on one kv line: line breaks would start a new KEY=, so they are written as spaces. */
function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ');
}
