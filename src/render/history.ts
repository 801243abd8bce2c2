// Renders the `history` report: a table (ID, DATE, REVISION, SOURCE, INITIATED BY), kv lines, JSON or YAML.
import type { OutputFormat, Paint } from './colour.js';
import { renderDocument } from './document.js';
import { oneLineText } from './kv.js';
import type { HistoryReport } from '../workflows/history/history.js';
import type { HistoryEntry } from '../record/app-status.js';
import { isPlainObject, nameToken, type JsonValue } from '../model/object.js';
import { columnFormatter } from './columns.js';

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** `repoURL path@targetRevision` (or the chart) of one source. */
function sourceText(s: JsonValue | undefined): string {
  if (!isPlainObject(s)) return '-';
  const where = str(s.chart) || str(s.path);
  const rev = str(s.targetRevision);
  return `${str(s.repoURL)}${where ? ` ${where}` : ''}${rev ? `@${rev}` : ''}`.trim() || '-';
}

function entrySource(e: HistoryEntry): string {
  if (e.sources) return e.sources.map(sourceText).join(', ');
  return sourceText(e.source);
}

function entryRevision(e: HistoryEntry): string {
  return e.revisions?.join(',') || e.revision || '-';
}

function initiator(e: HistoryEntry): string {
  const by = e.initiatedBy;
  if (!by) return '-';
  if (by.automated === true) return 'automated';
  return str(by.username) || '-';
}

function table(r: HistoryReport, p: Paint): string {
  if (r.entries.length === 0)
    return `Application ${r.app.namespace}/${r.app.name} has no history yet (a sync records one entry; at most ${r.limit} are kept).\n`;
  const header = ['ID', 'DATE', 'REVISION', 'SOURCE', 'INITIATED BY'];
  const rows = r.entries.map((e) => [String(e.id), e.deployedAt, entryRevision(e), entrySource(e), initiator(e)]);
  const fmt = columnFormatter(header, rows);
  return [p.bold(fmt(header)), ...rows.map(fmt)].join('\n') + '\n';
}

function kv(r: HistoryReport): string {
  const out = [`HISTORY_LIMIT=${r.limit}`];
  for (const e of r.entries) {
    out.push(`HISTORY=${e.id} ${e.deployedAt} ${entryRevision(e)} ${nameToken(initiator(e))}`);
    out.push(`HISTORY_SOURCE=${e.id} ${oneLineText(entrySource(e))}`);
  }
  return out.join('\n') + '\n';
}

export function renderHistory(r: HistoryReport, format: OutputFormat, p: Paint): string {
  return renderDocument(r, format, { kv: () => kv(r), table: () => table(r, p) });
}
