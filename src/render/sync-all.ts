// Renders the `sync --all` summary: one row per Application, kv lines, JSON or YAML.
import type { OutputFormat, Paint } from './colour.js';
import { renderDocument } from './document.js';
import { oneLineText } from './kv.js';
import { nameToken } from '../model/object.js';
import type { SyncAllReport, SyncedApp } from '../workflows/sync/sync-all.js';
import { columnFormatter } from './columns.js';

/** One word for how an app's sync ended. */
function syncResult(a: SyncedApp, dryRun: boolean): string {
  if (a.exitCode === 0) return dryRun ? 'planned' : 'synced';
  if (a.exitCode === 4) return 'refused';
  if (a.exitCode === 2) return 'error';
  return 'failed';
}

function message(a: SyncedApp): string {
  const r = a.report;
  if (a.error !== undefined) return oneLineText(a.error);
  if (!r) return '';
  if (r.refused) return oneLineText(r.refused);
  const f = r.failures[0];
  if (f) return oneLineText(`${f.kind}/${f.name}: ${f.message}`);
  if (r.conflicts.length > 0) return `${r.conflicts.length} conflicting field(s) not applied`;
  return '';
}

function table(r: SyncAllReport, p: Paint): string {
  if (r.apps.length === 0)
    return `No Applications found${r.namespace !== undefined ? ` in namespace ${r.namespace}` : ''}${r.selector !== undefined ? ` matching ${r.selector}` : ''}: nothing synced.\n`;
  const header = ['NAME', 'NAMESPACE', 'RESULT', 'APPLIED', 'PRUNED', 'REVISION', 'MESSAGE'];
  const rows = r.apps.map((a) => [
    a.name,
    a.namespace,
    syncResult(a, r.dryRun),
    String(a.report ? (r.dryRun ? a.report.steps.filter((s) => s.outcome === 'would-apply').length : a.report.applied) : 0),
    String(a.report?.prune.results.filter((x) => x.outcome === 'pruned' || x.outcome === 'would-prune').length ?? 0),
    a.report?.revision?.slice(0, 7) ?? '-',
    message(a),
  ]);
  const cols = columnFormatter(header, rows);
  const fmt = (row: readonly string[]) => cols(row).trimEnd();
  const counts = new Map<string, number>();
  for (const a of r.apps) counts.set(syncResult(a, r.dryRun), (counts.get(syncResult(a, r.dryRun)) ?? 0) + 1);
  const total = `${r.apps.length} Application${r.apps.length === 1 ? '' : 's'}: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')}`;
  return [p.bold(fmt(header)), ...rows.map((row, i) => (r.apps[i]!.exitCode === 0 ? fmt(row) : p.red(fmt(row)))), '', total].join('\n') + '\n';
}

function kv(r: SyncAllReport): string {
  const out: string[] = [];
  if (r.dryRun) out.push('DRY_RUN=true');
  for (const a of r.apps) {
    const m = message(a);
    out.push(`SYNC_APP=${nameToken(`${a.namespace}/${a.name}`)} ${syncResult(a, r.dryRun)} ${a.report?.applied ?? 0}${m ? ` ${m}` : ''}`);
  }
  out.push(`APPS=${r.apps.length}`);
  out.push(`APPS_NOT_SYNCED=${r.apps.filter((a) => a.exitCode !== 0).length}`);
  return out.join('\n') + '\n';
}

export function renderSyncAll(r: SyncAllReport, format: OutputFormat, p: Paint): string {
  return renderDocument(r, format, { kv: () => kv(r), table: () => table(r, p) });
}
