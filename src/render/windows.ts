// Renders the `windows` report: a header and a table of windows, kv lines, JSON or YAML.
import type { OutputFormat, Paint } from './colour.js';
import { renderDocument } from './document.js';
import { windowLine, type SyncPermission, type WindowStatus } from '../settings/window-report.js';
import type { WindowsReport } from '../workflows/windows.js';
import { columnFormatter } from './columns.js';

function permissionText(s: SyncPermission): string {
  return s.allowed ? 'allowed' : `blocked${s.opensAt ? ` until ${s.opensAt}` : ''}`;
}

function selectors(w: WindowStatus): string {
  const parts = [
    w.applications.length ? `apps=${w.applications.join(',')}` : '',
    w.namespaces.length ? `namespaces=${w.namespaces.join(',')}` : '',
    w.clusters.length ? `clusters=${w.clusters.join(',')}` : '',
  ].filter((s) => s !== '');
  return parts.join(w.andOperator ? ' AND ' : ' ') || '-';
}

function table(r: WindowsReport, p: Paint): string {
  const pr = r.project;
  const head: [string, string][] = [
    ['Application:', `${r.app.namespace}/${r.app.name}`],
    ['Project:', `${pr.name} (${pr.origin})${pr.unchecked ? ': not readable, not checked' : ''}`],
    ['Now:', r.now],
    ['Manual sync:', pr.manualSync.allowed ? p.green('allowed') : p.red(permissionText(pr.manualSync))],
    ['Automated sync:', pr.automatedSync.allowed ? p.green('allowed') : p.red(permissionText(pr.automatedSync))],
  ];
  for (const v of pr.violations) head.push(['Forbidden:', p.red(v)]);
  if (!pr.manualSync.allowed && pr.manualSync.reason) head.push(['Why:', pr.manualSync.reason]);
  const lines = head.map(([k, v]) => `${k.padEnd(17)}${v}`);
  if (pr.windows.length === 0) return `${lines.join('\n')}\n\nNo sync windows apply to this application.\n`;
  const rows = pr.windows.map((w) => [
    String(w.index),
    w.kind,
    w.schedule,
    w.duration,
    w.timeZone,
    w.active ? 'yes' : 'no',
    w.active ? (w.until ?? 'never ends') : '-',
    w.nextStart ?? '-',
    w.manualSync ? 'yes' : 'no',
    `${selectors(w)}${w.matches ? '' : ' (does not apply)'}${w.problem ? ` (${w.problem})` : ''}${w.description ? ` - ${w.description}` : ''}`,
  ]);
  const header = ['ID', 'KIND', 'SCHEDULE', 'DURATION', 'TIMEZONE', 'ACTIVE', 'UNTIL', 'NEXT START', 'MANUAL', 'SELECTORS'];
  const cols = columnFormatter(header, rows);
  const fmt = (row: string[], active = false) => {
    const text = cols(row);
    return active ? p.yellow(text) : text;
  };
  return `${lines.join('\n')}\n\n${[fmt(header), ...rows.map((row, i) => fmt(row, pr.windows[i]!.active))].join('\n')}\n`;
}

function kv(r: WindowsReport): string {
  const pr = r.project;
  const out = [`PROJECT=${pr.name}`];
  for (const v of pr.violations) out.push(`PROJECT_VIOLATION=${v.replace(/\s+/g, ' ')}`);
  for (const w of pr.windows) out.push(`SYNC_WINDOW=${windowLine(w)}`);
  out.push(`MANUAL_SYNC=${pr.manualSync.allowed ? 'allowed' : 'blocked'}`);
  if (!pr.manualSync.allowed) out.push(`MANUAL_SYNC_OPENS=${pr.manualSync.opensAt ?? ''}`);
  out.push(`AUTOMATED_SYNC=${pr.automatedSync.allowed ? 'allowed' : 'blocked'}`);
  if (!pr.automatedSync.allowed) out.push(`AUTOMATED_SYNC_OPENS=${pr.automatedSync.opensAt ?? ''}`);
  return out.join('\n') + '\n';
}

export function renderWindows(r: WindowsReport, format: OutputFormat, p: Paint): string {
  const { warnings: _w, ...doc } = r;
  return renderDocument(doc, format, { kv: () => kv(r), table: () => table(r, p) });
}
