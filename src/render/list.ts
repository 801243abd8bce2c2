// Renders the `list` report: one row per Application (NAME … LAST SYNC, and AGE with --stored), kv lines, JSON or YAML.
import type { OutputFormat, Paint } from './colour.js';
import { renderDocument } from './document.js';
import { oneLineText } from './kv.js';
import { nameToken } from '../model/object.js';
import type { ListedApp, ListReport } from '../workflows/list.js';
import { columnFormatter } from './columns.js';

function destination(a: ListedApp): string {
  const where = a.destination.name ?? a.destination.server ?? '-';
  return a.destination.namespace ? `${where} ${a.destination.namespace}` : where;
}

function table(r: ListReport, p: Paint): string {
  if (r.apps.length === 0)
    return `No Applications found${r.namespace !== undefined ? ` in namespace ${r.namespace}` : ''}${r.selector !== undefined ? ` matching ${r.selector}` : ''}.\n`;
  const withError = r.apps.some((a) => a.error !== undefined);
  const stored = r.stored === true;
  const header = [
    'NAME',
    'NAMESPACE',
    'PROJECT',
    'SYNC',
    'HEALTH',
    'REVISION',
    'DESTINATION',
    'LAST SYNC',
    ...(stored ? ['AGE'] : []),
    ...(withError ? ['MESSAGE'] : []),
  ];
  const rows = r.apps.map((a) => [
    a.name,
    a.namespace,
    a.project,
    a.sync,
    a.health,
    a.revision ? a.revision.slice(0, 7) : '-',
    destination(a),
    a.lastSync ?? '-',
    ...(stored ? [a.age ?? '-'] : []),
    ...(withError ? [a.error !== undefined ? oneLineText(a.error) : ''] : []),
  ]);
  const cols = columnFormatter(header, rows);
  const fmt = (row: readonly string[]) => cols(row).trimEnd();
  const colour = (a: ListedApp, line: string) =>
    a.sync === 'Synced' && a.health === 'Healthy' ? line : a.error !== undefined || a.health === 'Degraded' ? p.red(line) : p.yellow(line);
  return [p.bold(fmt(header)), ...rows.map((row, i) => colour(r.apps[i]!, fmt(row)))].join('\n') + '\n';
}

function kv(r: ListReport): string {
  const out: string[] = [];
  for (const a of r.apps) {
    out.push(`APP=${nameToken(`${a.namespace}/${a.name}`)} ${a.sync} ${a.health} ${a.revision ?? '-'} ${a.lastSync ?? '-'}`);
    if (a.error !== undefined) out.push(`APP_ERROR=${nameToken(`${a.namespace}/${a.name}`)} ${oneLineText(a.error)}`);
  }
  if (r.stored) out.push('STORED=true');
  out.push(`APPS=${r.apps.length}`);
  return out.join('\n') + '\n';
}

export function renderList(r: ListReport, format: OutputFormat, p: Paint): string {
  return renderDocument(r, format, { kv: () => kv(r), table: () => table(r, p) });
}
