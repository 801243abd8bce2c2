// Renders a DeleteReport: one kv line per object and hook, then the Application and the phase; a table; JSON or YAML.
import { renderDocument } from './document.js';
import type { DeleteEntryReport, DeleteReport } from '../workflows/delete/delete.js';
import type { OutputFormat, Paint } from './colour.js';
import { displayName } from '../model/object.js';
import { oneLineText } from './kv.js';
import { columnFormatter } from './columns.js';

const KV_KEY: Readonly<Record<DeleteEntryReport['outcome'], string>> = {
  'would-delete': 'DELETE',
  deleted: 'DELETED',
  gone: 'DELETE_GONE',
  changed: 'DELETE_FAILED',
  failed: 'DELETE_FAILED',
  timeout: 'DELETE_FAILED',
  'not-run': 'DELETE_NOT_RUN',
  kept: 'DELETE_KEPT',
  waiting: 'DELETE_WAITING',
};

/**
 * `DELETE=<object>` (to delete: a dry run), `DELETED=`, `DELETE_GONE=`, `DELETE_KEPT=<object> <why>`,
 * `DELETE_WAITING=<object> <why>`, `DELETE_FAILED=<object> <why>`, `DELETE_NOT_RUN=`; `HOOK=<phase> <object> <result>`;
 * then `CASCADE=`, `APPLICATION=`, `PHASE=`, `MESSAGE=`, `NEXT_COMMAND=` and `INTERRUPTED=<where>` when there is one.
 */
export function renderDeleteKv(r: DeleteReport): string {
  const lines: string[] = [];
  for (const e of r.entries) {
    const why = e.outcome === 'changed' || e.outcome === 'timeout' ? (e.message ?? e.outcome) : (e.message ?? '');
    const withWhy = e.outcome !== 'would-delete' && e.outcome !== 'deleted' && e.outcome !== 'gone' && e.outcome !== 'not-run';
    lines.push(`${KV_KEY[e.outcome]}=${displayName(e)}${withWhy && why ? ` ${oneLineText(why)}` : ''}`);
  }
  for (const h of r.hooks) lines.push(`HOOK=${h.phase} ${displayName(h)} ${h.outcome}${h.cleanup ? ` ${h.cleanup}` : ''}`);
  lines.push(...childLines(r.children ?? []));
  lines.push(`CASCADE=${r.cascade}`, `APPLICATION=${r.application}`, `PHASE=${r.phase}`);
  if (r.message) lines.push(`MESSAGE=${oneLineText(r.message)}`);
  if (r.nextCommand) lines.push(`NEXT_COMMAND=${oneLineText(r.nextCommand)}`);
  if (r.interrupted) lines.push(`INTERRUPTED=${oneLineText(r.interrupted)}`);
  return lines.join('\n') + '\n';
}

/** --recursive: `CHILD_DELETE=<ns>/<app> <Kind>/<name>`, `CHILD_KEPT=… <why>`, `CHILD_HOOK=…`, `CHILD_ERROR=<ns>/<app> <why>`, depth first. */
function childLines(children: readonly DeleteReport[]): string[] {
  const out: string[] = [];
  for (const c of children) {
    const app = `${c.appNamespace ?? ''}/${c.app}`;
    for (const e of c.entries) {
      const key = e.outcome === 'kept' ? 'CHILD_KEPT' : e.outcome === 'waiting' ? 'CHILD_WAITING' : 'CHILD_DELETE';
      out.push(`${key}=${app} ${displayName(e)}${key !== 'CHILD_DELETE' && e.message ? ` ${oneLineText(e.message)}` : ''}`);
    }
    for (const h of c.hooks) out.push(`CHILD_HOOK=${app} ${h.phase} ${displayName(h)}`);
    if (c.phase === 'Failed' && c.message) out.push(`CHILD_ERROR=${app} ${oneLineText(c.message)}`);
    out.push(...childLines(c.children ?? []));
  }
  return out;
}

function renderDeleteTable(r: DeleteReport, paint: Paint): string {
  const out: string[] = [];
  const rows = [
    ...r.hooks.filter((h) => h.phase === 'PreDelete').map((h) => [`${h.phase} hook`, displayName(h), h.namespace || '-', h.outcome, h.cleanup ?? '']),
    ...r.entries.map((e) => [e.wave === undefined ? '-' : `wave ${e.wave}`, displayName(e), e.namespace || '-', e.outcome, oneLineText(e.message ?? '')]),
    ...r.hooks.filter((h) => h.phase === 'PostDelete').map((h) => [`${h.phase} hook`, displayName(h), h.namespace || '-', h.outcome, h.cleanup ?? '']),
  ];
  if (rows.length === 0) out.push(`No object carries the mark of ${r.app} in ${r.namespaces.join(', ') || 'cluster scope'} (and cluster-scoped kinds).`);
  else {
    const head = ['STEP', 'OBJECT', 'NAMESPACE', 'RESULT', 'REASON'];
    const fmt = columnFormatter(head, rows);
    out.push(fmt(head));
    for (const row of rows) out.push(['failed', 'changed', 'timeout', 'Failed'].includes(row[3]!) ? paint.red(fmt(row)) : fmt(row));
  }
  const toDelete = r.entries.filter((e) => e.outcome === 'would-delete').length;
  out.push(
    paint.dim(
      `Application ${r.app}: ${r.application}; cascade ${r.cascade}${r.cascade === 'orphan' ? '' : ` (propagation ${r.propagationPolicy})`}; ${r.phase}${r.phase === 'DryRun' ? `: ${toDelete} object(s) would be deleted` : ''}`,
    ),
  );
  if (r.message) out.push(r.message);
  if (r.nextCommand) out.push(`to approve: ${r.nextCommand}`);
  for (const c of r.children ?? []) {
    out.push('', `Child Application ${c.app}, deleted with it:`);
    out.push(
      ...renderDeleteTable(c, paint)
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`),
    );
  }
  return out.join('\n') + '\n';
}

export function renderDelete(r: DeleteReport, format: OutputFormat, paint: Paint): string {
  return renderDocument(r, format, { kv: () => renderDeleteKv(r), table: () => renderDeleteTable(r, paint) });
}
