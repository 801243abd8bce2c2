// Renders a PruneReport: `PRUNE=`/`PRUNE_SKIPPED=` (list) or `PRUNED=` (with its note)/`PRUNE_GONE=`/`PRUNE_TERMINATING=`/`PRUNE_FAILED=` (confirm) lines, a table, JSON or YAML.
import { renderDocument } from './document.js';
import type { PruneReport } from '../workflows/prune/prune.js';
import type { OutputFormat, Paint } from './colour.js';
import { displayName } from '../model/object.js';
import { oneLineText } from './kv.js';
import { columnFormatter } from './columns.js';

export function renderPruneKv(r: PruneReport): string {
  const lines: string[] = [];
  for (const e of r.entries) {
    const n = displayName(e);
    switch (e.outcome) {
      case 'candidate':
        lines.push(`PRUNE=${n}`);
        break;
      case 'skipped':
        lines.push(`PRUNE_SKIPPED=${n} ${oneLineText(e.message ?? '')}`.trimEnd());
        break;
      case 'deleted':
        // With the note of one still Terminating when the wait was stopped, as -o json says it.
        lines.push(`PRUNED=${n} ${oneLineText(e.message ?? '')}`.trimEnd());
        break;
      case 'gone':
        lines.push(`PRUNE_GONE=${n}`);
        break;
      case 'terminating':
        lines.push(`PRUNE_TERMINATING=${n} ${oneLineText(e.message ?? '')}`.trimEnd());
        break;
      default:
        lines.push(`PRUNE_FAILED=${n} ${oneLineText(e.message ?? e.outcome)}`);
    }
  }
  if (r.interrupted !== undefined) lines.push(`INTERRUPTED=${oneLineText(r.interrupted)}`);
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}

function renderPruneTable(r: PruneReport, paint: Paint): string {
  const out: string[] = [];
  if (r.entries.length === 0) out.push(`No prune candidates for ${r.app} in ${r.namespaces.join(', ') || 'cluster scope'} (and cluster-scoped kinds).`);
  else {
    const rows = r.entries.map((e) => [displayName(e), e.namespace || '-', e.outcome, oneLineText(e.message ?? '')]);
    const head = ['OBJECT', 'NAMESPACE', 'RESULT', 'REASON'];
    const fmt = columnFormatter(head, rows);
    out.push(fmt(head));
    for (const row of rows) out.push(row[2] === 'failed' || row[2] === 'changed' || row[2] === 'terminating' ? paint.red(fmt(row)) : fmt(row));
  }
  const listed = r.entries.filter((e) => e.outcome === 'candidate').length;
  if (!r.confirm && listed > 0)
    out.push(paint.dim(`${listed} to delete: run again with --confirm (propagation ${r.propagationPolicy}; each guarded by uid and resourceVersion)`));
  return out.join('\n') + '\n';
}

export function renderPrune(r: PruneReport, format: OutputFormat, paint: Paint): string {
  return renderDocument(r, format, { kv: () => renderPruneKv(r), table: () => renderPruneTable(r, paint) });
}
