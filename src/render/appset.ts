// Renders `appset generate`: the generated Applications as one YAML stream or a JSON List (as `manifests` prints
// objects), or stable KEY=value lines for scripts; what the controller would not write is a warning (appsetWarnings);
// and `appset sync`'s report of what it wrote.
import type { AppSetGenerateReport } from '../workflows/appset/generate.js';
import type { AppSetSyncReport, AppSetSyncResult, RollingSyncReport } from '../workflows/appset/sync.js';
import { nameToken } from '../model/object.js';
import { paint as makePaint, type OutputFormat, type Paint } from './colour.js';
import { renderDocument } from './document.js';
import { oneLineText } from './kv.js';
import { renderManifests } from './manifests.js';
import { renderSyncAll } from './sync-all.js';
import { columnFormatter } from './columns.js';

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
  if (r.rolling) lines.push(...rollingKv(r.rolling));
  return `${lines.join('\n')}\n${r.synced ? renderSyncAll(r.synced, 'kv', makePaint(false)) : ''}`;
}

/**
 * A RollingSync rollout: `STEP=<ns>/<name> <step> <result> <sync> <health>` per Application in step order (`-` where it
 * was not waited for), `EXCLUDED=<ns>/<name>` for those no step selects, `ROLLOUT_STOPPED=<why>` when it stopped early.
 */
function rollingKv(r: RollingSyncReport): string[] {
  return [
    ...r.children.map((c) => `STEP=${nameToken(`${c.namespace}/${c.name}`)} ${c.wave} ${c.outcome} ${c.sync ?? '-'} ${c.health ?? '-'}`),
    ...r.excluded.map((x) => `EXCLUDED=${nameToken(x)}`),
    ...(r.stopped !== undefined ? [`ROLLOUT_STOPPED=${oneLineText(r.stopped)}`] : []),
  ];
}

/** The rollout as a table: one row per Application in step order, then those no step selects and why it stopped. */
function rollingTable(r: RollingSyncReport, paint: Paint): string {
  const head = ['APPLICATION', 'STEP', 'RESULT', 'SYNC', 'HEALTH', 'MESSAGE'];
  const rows = r.children.map((c) => [`${c.namespace}/${c.name}`, String(c.wave), c.outcome, c.sync ?? '-', c.health ?? '-', oneLineText(c.message ?? '')]);
  const cols = columnFormatter(head, rows);
  const fmt = (row: readonly string[]) => cols(row).trimEnd();
  const out = [
    paint.bold(`RollingSync: ${r.steps.map((s) => `step ${s.step} (${s.apps.length} app(s), maxUpdate ${s.maxUpdate})`).join(', ')}`),
    fmt(head),
    ...rows.map((row, i) => {
      const o = r.children[i]!.outcome;
      return o === 'synced' ? fmt(row) : o === 'not-synced' ? paint.gray(fmt(row)) : paint.red(fmt(row));
    }),
  ];
  if (r.excluded.length > 0) out.push(paint.dim(`selected by no step, left to be synced by hand: ${r.excluded.join(', ')}`));
  if (r.stopped !== undefined) out.push(paint.red(`rollout stopped: ${r.stopped}`));
  return out.join('\n') + '\n';
}

function renderAppSetSyncTable(r: AppSetSyncReport, paint: Paint): string {
  const verb = (x: AppSetSyncResult) =>
    x.error !== undefined ? `${x.action} failed` : x.action === 'unchanged' ? 'unchanged' : x.done ? `${x.action}d` : `would ${x.action}`;
  const rows = r.results.map((x) => [x.app, verb(x), oneLineText(x.error ?? x.note ?? '')]);
  const out: string[] = [];
  if (rows.length === 0) out.push(`ApplicationSet ${r.applicationSet} generates no Application, and owns none.`);
  else {
    const head = ['APPLICATION', 'RESULT', 'NOTE'];
    const fmt = columnFormatter(head, rows);
    out.push(fmt(head).trimEnd());
    for (const [i, row] of rows.entries()) out.push(r.results[i]!.error !== undefined ? paint.red(fmt(row)) : fmt(row).trimEnd());
  }
  const failed = r.results.filter((x) => x.error !== undefined).length;
  out.push(
    paint.dim(
      `ApplicationSet ${r.applicationSet}: applicationsSync ${r.policy}; ${r.owned ? 'owner of its Applications' : 'not in the cluster: no owner, nothing deleted'}${r.dryRun ? '; dry run, nothing written' : ''}${failed ? `; ${failed} write(s) failed` : ''}`,
    ),
  );
  return out.join('\n') + '\n' + (r.synced ? `\n${renderSyncAll(r.synced, 'table', paint)}` : '') + (r.rolling ? `\n${rollingTable(r.rolling, paint)}` : '');
}

export function renderAppSetSync(r: AppSetSyncReport, format: OutputFormat, paint: Paint): string {
  return renderDocument({ schemaVersion: 1, ...r }, format, { kv: () => renderAppSetSyncKv(r), table: () => renderAppSetSyncTable(r, paint) });
}
