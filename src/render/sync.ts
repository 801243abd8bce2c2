// Renders a SyncReport: kv lines (APPLIED=, HEALED=, IGNORED=, PRUNED=, REFUSED=...), a readable table, JSON or YAML.
import { renderDocument } from './document.js';
import type { SyncReport } from '../workflows/sync/execute.js';
import type { ChildSync } from '../workflows/sync/recursive.js';
import type { OutputFormat, Paint } from './colour.js';
import { displayName, nameToken } from '../model/object.js';
import { oneLineText } from './kv.js';
import { columnFormatter } from './columns.js';

const name = (o: { kind: string; name: string }) => displayName(o);

/**
 * kv lines. Refused: `REFUSED=<reason>` (then PHASE=/REVISION=, below). Dry run: `DRY_RUN=true`, `APPLY=<Kind>/<name> <action>` per
 * step in order, `HEAL=`/`CONFLICT=` predictions, `IGNORED=`, `PRUNE=`/`PRUNE_SKIPPED=`, `FAILED=`; with pruning off,
 * `PRUNE_CANDIDATE=` for each object a sync with --prune would delete.
 * Otherwise `APPLIED=<n>`, `HEALED=`, `IGNORED=`, `CONFLICT=`, `FAILED=`, `PRUNED=` (and its note, if any), `PRUNE_SKIPPED=`, `PRUNE_GONE=`, `PRUNE_FAILED=`;
 * `STOPPED=<why>` when the sync stopped before its first write (nothing applied or deleted), `NEXT_COMMAND=<command>`
 * the command that goes on (the same without --no-force-conflicts; with --confirm-prune after a prune held for its
 * confirmation, `PRUNE_WAITING=<gitops-engine's message>`), `INTERRUPTED=<where>` when it was asked to stop.
 * Hooks, in both: `HOOK=<Phase> <Kind>/<name> <Succeeded|Failed|Running|would-run>`, in the order they ran.
 * `SERVICE_ACCOUNT=<user>` when the writes were sent as the project's destination ServiceAccount (sync impersonation).
 * Not a dry run: last, `PHASE=` (the operation's phase as recorded) and `REVISION=` (operationLines); after REFUSED= too.
 * A multi-step sync (hooks or several waves): `WAVE=<Phase> <wave> <done|failed|not-run>` per (phase, wave), in order
 * (`would-run` in a dry run: the plan's phases and waves, SyncFail's last).
 * --recursive: `CHILD=<ns>/<name> <depth> <wave> <result> <sync> <health>` per child Application in the order walked,
 * `CHILD_MESSAGE=` beside a child that did not end synced, `CHILDREN_STOPPED=<why>` when the walk stopped early.
 */
export function renderSyncKv(r: SyncReport): string {
  if (r.refused) return [`REFUSED=${oneLineText(r.refused)}`, ...operationLines(r)].join('\n') + '\n';
  const lines: string[] = [];
  if (r.dryRun) {
    lines.push('DRY_RUN=true');
    for (const s of r.steps) lines.push(`APPLY=${name(s)} ${s.action === 'skip' ? 'skip' : s.action}`);
    for (const h of r.healed) lines.push(`HEAL=${name(h)} ${oneLineText(h.field)} ${nameToken(h.manager)}`);
  } else {
    lines.push(`APPLIED=${r.applied}`);
    for (const h of r.healed) lines.push(`HEALED=${name(h)} ${oneLineText(h.field)} ${nameToken(h.manager)}`);
  }
  for (const i of r.ignored) lines.push(`IGNORED=${name(i)} ${oneLineText(i.field)} ${nameToken(i.manager)}`);
  for (const c of r.conflicts) lines.push(`CONFLICT=${name(c)} ${oneLineText(c.field)} ${nameToken(c.manager)}`);
  for (const h of r.hooks) lines.push(`HOOK=${h.phase} ${name(h)} ${h.outcome}`);
  for (const w of r.waves ?? []) lines.push(`WAVE=${w.phase} ${w.wave} ${w.outcome}`);
  for (const f of r.failures) lines.push(`FAILED=${name(f)} ${f.phase}: ${oneLineText(f.message)}`);
  for (const p of r.prune.results) {
    if (p.outcome === 'pruned') lines.push(`PRUNED=${name(p)} ${oneLineText(p.message ?? '')}`.trimEnd());
    else if (p.outcome === 'would-prune') lines.push(`PRUNE=${name(p)}`);
    else if (p.outcome === 'candidate') lines.push(`PRUNE_CANDIDATE=${name(p)}`);
    else if (p.outcome === 'skipped') lines.push(`PRUNE_SKIPPED=${name(p)} ${oneLineText(p.message ?? '')}`.trimEnd());
    else if (p.outcome === 'gone') lines.push(`PRUNE_GONE=${name(p)}`);
    else lines.push(`PRUNE_FAILED=${name(p)} ${oneLineText(p.message ?? p.outcome)}`);
  }
  if (r.prune.blocked) lines.push(`PRUNE_BLOCKED=${oneLineText(r.prune.blocked)}`);
  if (r.prune.waiting !== undefined) lines.push(`PRUNE_WAITING=${oneLineText(r.prune.waiting)}`);
  if (r.stoppedBeforeWriting !== undefined) lines.push(`STOPPED=${oneLineText(r.stoppedBeforeWriting)}`);
  if (r.interrupted) lines.push(`INTERRUPTED=${oneLineText(r.interrupted.message)}`);
  if (r.nextCommand !== undefined) lines.push(`NEXT_COMMAND=${oneLineText(r.nextCommand)}`);
  for (const c of flatChildren(r.children ?? [])) {
    lines.push(`CHILD=${nameToken(`${c.namespace}/${c.name}`)} ${c.depth} ${c.wave} ${c.outcome} ${c.sync ?? '-'} ${c.health ?? '-'}`);
    if (c.message !== undefined) lines.push(`CHILD_MESSAGE=${nameToken(`${c.namespace}/${c.name}`)} ${oneLineText(c.message)}`);
  }
  if (r.childrenStopped !== undefined) lines.push(`CHILDREN_STOPPED=${oneLineText(r.childrenStopped)}`);
  // The run's overrides, only when given: the sync options that replaced the Application's, and the strategy.
  if (r.syncOptions) lines.push(`SYNC_OPTIONS=${r.syncOptions.join(',')}`);
  if (r.syncStrategy) lines.push(`STRATEGY=${r.syncStrategy.apply ? 'apply' : 'hook'}${(r.syncStrategy.apply ?? r.syncStrategy.hook)?.force ? ' force' : ''}`);
  // Argo CD's sync impersonation: who the writes were sent as.
  if (r.serviceAccount !== undefined) lines.push(`SERVICE_ACCOUNT=${r.serviceAccount}`);
  lines.push(...operationLines(r));
  return lines.join('\n') + '\n';
}

/**
 * The last lines of a sync that ran an operation (not a dry run), as `argocd app sync` ends with its operation:
 * `PHASE=<Succeeded|Failed|Running|Error>` as recorded, then `REVISION=<commit>` (a multi-source app's, one per source in
 * spec.sources order, comma-separated) when the source has one.
 */
function operationLines(r: SyncReport): string[] {
  if (r.phase === undefined) return [];
  const revision = r.revisions?.join(',') ?? r.revision;
  return [`PHASE=${r.phase}`, ...(revision ? [`REVISION=${revision}`] : [])];
}

/** The child Applications of a --recursive sync in the order they were walked, each with its depth (1: the app's own). */
function flatChildren(children: readonly ChildSync[], depth = 1): (ChildSync & { depth: number })[] {
  return children.flatMap((c) => [{ ...c, depth }, ...flatChildren(c.children ?? [], depth + 1)]);
}

/** The table of a --recursive sync's child Applications, indented by depth. */
function childrenTable(r: SyncReport, paint: Paint): string[] {
  const rows = flatChildren(r.children ?? []);
  if (rows.length === 0) return r.childrenStopped !== undefined ? [paint.red(r.childrenStopped)] : [];
  const cells = rows.map((c) => [
    `${'  '.repeat(c.depth - 1)}${c.namespace}/${c.name}`,
    String(c.wave),
    c.outcome,
    c.sync ?? '-',
    c.health ?? '-',
    c.message !== undefined ? oneLineText(c.message) : '',
  ]);
  const head = ['CHILD APPLICATION', 'WAVE', 'RESULT', 'SYNC', 'HEALTH', 'MESSAGE'];
  const cols = columnFormatter(head, cells);
  const fmt = (row: readonly string[]) => cols(row).trimEnd();
  const colour = (c: ChildSync, line: string) => (c.outcome === 'synced' ? line : c.outcome === 'not-synced' ? paint.gray(line) : paint.red(line));
  return [
    '',
    paint.bold(fmt(head)),
    ...cells.map((row, i) => colour(rows[i]!, fmt(row))),
    ...(r.childrenStopped !== undefined ? [paint.red(r.childrenStopped)] : []),
  ];
}

/** A readable account: the plan or what happened per object, healed and ignored fields, pruning, and a last summary line. */
function renderSyncTable(r: SyncReport, paint: Paint): string {
  if (r.refused) return `${paint.red('REFUSED')}: ${r.refused}\nNothing was applied or deleted.\n`;
  const out: string[] = [];
  out.push(
    paint.bold(
      `${r.dryRun ? 'Plan for' : 'Sync of'} ${r.app} (${r.origin}${r.revision ? ` @ ${r.revision.slice(0, 7)}` : ''})${r.context ? ` on context ${r.context}` : ''}${r.force ? `, forcing conflicts (${r.forceReason})` : ''}`,
    ),
  );
  const rows = r.steps.map((s) => [s.wave === null ? 'pre' : String(s.wave), `${s.kind}/${s.name}`, s.namespace || '-', s.action, s.outcome, s.message ?? '']);
  const head = ['WAVE', 'OBJECT', 'NAMESPACE', 'ACTION', 'RESULT', 'MESSAGE'];
  const cols = columnFormatter(head, rows);
  const fmt = (cells: readonly string[]) => '  ' + cols(cells);
  out.push(fmt(head));
  for (const row of rows) {
    const line = fmt(row);
    out.push(row[4] === 'failed' || row[4] === 'conflict' ? paint.red(line) : line);
  }
  for (const h of r.healed) out.push(`${paint.yellow(r.dryRun ? 'would heal' : 'healed')}  ${name(h)} ${h.field} (taken from ${h.manager})`);
  for (const i of r.ignored)
    out.push(
      `${paint.dim('ignored')}  ${name(i)} ${i.field} ${i.manager === '-' ? 'left as it is (no field manager records it, e.g. set through /scale)' : `left to ${i.manager}`} (${i.rule})`,
    );
  for (const c of r.conflicts)
    out.push(
      `${paint.magenta('conflict')}  ${name(c)} ${c.field} owned by ${c.manager}${r.force ? '' : r.dryRun ? ': with --no-force-conflicts the sync stops before any write' : ': not taken (--no-force-conflicts); a sync without it takes it back'}`,
    );
  for (const h of r.hooks) {
    const line = `hook ${h.phase} wave ${h.wave}  ${name(h)}  ${h.outcome}${h.message ? `: ${h.message}` : ''}`;
    out.push(h.outcome === 'Failed' ? paint.red(line) : line);
  }
  for (const w of r.waves ?? []) {
    const line = `wave ${w.phase} ${w.wave}  ${w.resources} resources, ${w.hooks} hooks  ${w.outcome}`;
    out.push(w.outcome === 'failed' ? paint.red(line) : w.outcome === 'not-run' ? paint.dim(line) : line);
  }
  for (const f of r.failures) out.push(`${paint.red('failed')}  ${name(f)} (${f.phase}): ${f.message}`);
  if (!r.prune.enabled) out.push(paint.dim(`prune: ${r.prune.why}`));
  for (const p of r.prune.results) {
    const what = p.outcome === 'candidate' ? 'prune candidate (not pruned without --prune)' : p.outcome;
    out.push(
      `${p.outcome === 'pruned' || p.outcome === 'would-prune' ? paint.yellow(what) : what}  ${name(p)}${p.namespace ? ` (namespace ${p.namespace})` : ''}${p.message ? `: ${p.message}` : ''}`,
    );
  }
  if (r.prune.blocked) out.push(`${paint.red('prune blocked')}: ${r.prune.blocked}`);
  const pruned = r.prune.results.filter((p) => p.outcome === 'pruned').length;
  if (r.nextCommand !== undefined && r.prune.waiting !== undefined)
    out.push(
      `to approve these deletions: ${r.nextCommand} (or set the Application's argocd.argoproj.io/deletion-approved annotation to the time now and sync again)`,
    );
  else if (r.nextCommand !== undefined) out.push(`to go on and take these fields: ${r.nextCommand}`);
  out.push(...childrenTable(r, paint));
  out.push(closingLine(r, pruned, paint));
  return out.join('\n') + '\n';
}

/** The last line: what the sync did, never more (a sync that stopped before writing says that nothing changed). */
function closingLine(r: SyncReport, pruned: number, paint: Paint): string {
  if (r.dryRun)
    return `DRY RUN: ${r.steps.filter((s) => s.outcome === 'would-apply').length} to apply, ${r.prune.results.filter((p) => p.outcome === 'would-prune').length} to prune; nothing was changed`;
  if (r.stoppedBeforeWriting !== undefined) return `${paint.red('STOPPED')} before any write: ${r.stoppedBeforeWriting}; nothing was applied or deleted`;
  const counts = `${r.applied} applied, ${pruned} pruned, ${r.failures.length} failed, ${r.conflicts.length} conflicting fields`;
  if (r.interrupted) return `${paint.red('INTERRUPTED')}: ${counts}; ${r.interrupted.message}`;
  if (r.prune.waiting !== undefined) return `${paint.yellow('WAITING')}: ${counts}; ${r.prune.waiting}`;
  const all = flatChildren(r.children ?? []);
  const children =
    r.children === undefined
      ? ''
      : `; child Applications: ${all.filter((c) => c.outcome === 'synced').length} synced, ${all.filter((c) => c.outcome === 'failed' || c.outcome === 'refused' || c.outcome === 'unhealthy').length} failed, ${all.filter((c) => c.outcome === 'not-synced').length} not synced`;
  const incomplete = r.failures.length + r.conflicts.length > 0 || r.childrenStopped !== undefined;
  return `${incomplete ? paint.red('INCOMPLETE') : paint.green('DONE')}: ${counts}${children}`;
}

export function renderSync(r: SyncReport, format: OutputFormat, paint: Paint): string {
  return renderDocument(r, format, { kv: () => renderSyncKv(r), table: () => renderSyncTable(r, paint) });
}
