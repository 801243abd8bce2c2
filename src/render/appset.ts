// Renders `appset generate`: the generated Applications as one YAML stream or a JSON List (as `manifests` prints
// objects), or stable KEY=value lines for scripts; what the controller would not write is a warning (appsetWarnings);
// and `appset sync`'s report of what it wrote.
import type { AppSetGenerateReport } from '../workflows/appset/generate.js';
import type { AppSetSyncReport, AppSetSyncResult } from '../workflows/appset/sync.js';
import { paint as makePaint, type OutputFormat, type Paint } from './colour.js';
import { renderDocument } from './document.js';
import { oneLineText } from './kv.js';
import { renderManifests } from './manifests.js';
import { renderSyncAll } from './sync-all.js';

export function renderAppSetGenerate(report: AppSetGenerateReport, format: OutputFormat): string {
  if (format === 'kv') {
    const lines = [`APPLICATIONSET=${report.applicationSet}`];
    for (const a of report.applications) lines.push(`APPLICATION=${a.metadata.namespace ?? ''}/${a.metadata.name ?? ''}`);
    for (const i of report.invalid) lines.push(`INVALID=${i.name} ${i.error}`);
    lines.push(`COUNT=${report.applications.length}`);
    return `${lines.join('\n')}\n`;
  }
  return renderManifests(report.applications, format === 'json' ? 'json' : 'yaml');
}

/** The Applications Argo CD's controller would leave out, as warnings (stderr). */
export function appsetWarnings(report: AppSetGenerateReport): string[] {
  return report.invalid.map((i) => `${i.name} left out, as Argo CD's controller leaves it out: ${i.error}`);
}

const SYNC_KV_KEY: Readonly<Record<AppSetSyncResult['action'], [string, string]>> = {
  create: ['CREATE', 'CREATED'],
  update: ['UPDATE', 'UPDATED'],
  delete: ['DELETE', 'DELETED'],
  unchanged: ['UNCHANGED', 'UNCHANGED'],
};

/**
 * `appset sync`: `APPLICATIONSET=`, `POLICY=`, `OWNED=true|false`, then per Application `CREATED=|UPDATED=|DELETED=|
 * UNCHANGED=<ns>/<name>` (on a dry run `CREATE=|UPDATE=|DELETE=`), a note after it where there is one,
 * `WRITE_FAILED=<ns>/<name> <action> <why>`, `INVALID=`, then `COUNT=<Applications generated>`.
 */
function renderAppSetSyncKv(r: AppSetSyncReport): string {
  const lines = [`APPLICATIONSET=${r.applicationSet}`, `POLICY=${r.policy}`, `OWNED=${r.owned}`];
  for (const x of r.results) {
    if (x.error !== undefined) {
      lines.push(`WRITE_FAILED=${x.app} ${x.action} ${oneLineText(x.error)}`);
      continue;
    }
    const [planned, done] = SYNC_KV_KEY[x.action];
    lines.push(`${x.done ? done : planned}=${x.app}${x.note ? ` ${oneLineText(x.note)}` : ''}`);
  }
  for (const i of r.invalid) lines.push(`INVALID=${i.name} ${oneLineText(i.error)}`);
  if (r.dryRun) lines.push('DRY_RUN=true');
  return `${lines.join('\n')}\n${r.synced ? renderSyncAll(r.synced, 'kv', makePaint(false)) : ''}`;
}

function renderAppSetSyncTable(r: AppSetSyncReport, paint: Paint): string {
  const verb = (x: AppSetSyncResult) =>
    x.error !== undefined ? `${x.action} failed` : x.action === 'unchanged' ? 'unchanged' : x.done ? `${x.action}d` : `would ${x.action}`;
  const rows = r.results.map((x) => [x.app, verb(x), oneLineText(x.error ?? x.note ?? '')]);
  const out: string[] = [];
  if (rows.length === 0) out.push(`ApplicationSet ${r.applicationSet} generates no Application, and owns none.`);
  else {
    const head = ['APPLICATION', 'RESULT', 'NOTE'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const fmt = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
    out.push(fmt(head).trimEnd());
    for (const [i, row] of rows.entries()) out.push(r.results[i]!.error !== undefined ? paint.red(fmt(row)) : fmt(row).trimEnd());
  }
  const failed = r.results.filter((x) => x.error !== undefined).length;
  out.push(
    paint.dim(
      `ApplicationSet ${r.applicationSet}: applicationsSync ${r.policy}; ${r.owned ? 'owner of its Applications' : 'not in the cluster: no owner, nothing deleted'}${r.dryRun ? '; dry run, nothing written' : ''}${failed ? `; ${failed} write(s) failed` : ''}`,
    ),
  );
  return out.join('\n') + '\n' + (r.synced ? `\n${renderSyncAll(r.synced, 'table', paint)}` : '');
}

export function renderAppSetSync(r: AppSetSyncReport, format: OutputFormat, paint: Paint): string {
  return renderDocument({ schemaVersion: 1, ...r }, format, { kv: () => renderAppSetSyncKv(r), table: () => renderAppSetSyncTable(r, paint) });
}
