// Renders a plan (workflows/plan/plan.ts): per Application what a sync at head would do, each change marked "this
// change" or "already there", as a table, kv lines, JSON/YAML, or Markdown for a pull-request comment.
import type { MovedSource, PlanAppReport, PlanHook, PlanObject, PlanReport } from '../workflows/plan/plan.js';
import type { PlannedField } from '../diff/plan.js';
import { renderPath } from '../model/field-path.js';
import { displayName, nameToken, type JsonValue } from '../model/object.js';
import type { Owner } from '../ownership/index.js';
import { formatValue } from './diff.js';
import { renderDocument } from './document.js';
import { oneLineText } from './kv.js';
import type { OutputFormat, Paint } from './colour.js';
import { columnFormatter } from './columns.js';

/** A field in `-o json|yaml`: its path as text, base before head (`desired`) and live. */
function fieldDocument(f: PlannedField) {
  return {
    path: renderPath(f.path),
    pointer: f.pointer,
    origin: f.origin,
    verdict: f.verdict,
    ...(f.base !== undefined ? { base: f.base } : {}),
    ...(f.desired !== undefined ? { desired: f.desired } : {}),
    ...(f.live !== undefined ? { live: f.live } : {}),
    owners: f.owners,
    ...(f.rule ? { rule: f.rule } : {}),
  };
}

/** The report as `-o json|yaml` prints it (schemaVersion 1). */
function planDocument(r: PlanReport) {
  return {
    ...r,
    apps: r.apps.map((a) => ({
      ...a,
      objects: a.objects.map((o) => {
        const { key, fields, ...rest } = o;
        return { ...key, ...rest, fields: fields.map(fieldDocument) };
      }),
    })),
  };
}

/** The managers of the live value other than ours (status writers aside): who a sync takes the field from. */
function otherManagers(owners: readonly Owner[], fieldManager: string): string[] {
  return [...new Set(owners.filter((w) => w.manager !== fieldManager && w.subresource !== 'status').map((w) => w.manager))];
}

/** The app as named in the output: `namespace/name` in a plan --all (apps of several namespaces), else its name. */
function appId(a: PlanAppReport): string {
  return a.namespace !== undefined ? `${a.namespace}/${a.app}` : a.app;
}

const ORIGIN_KV = { 'this-change': 'this-change', 'already-there': 'already-there' } as const;

/** A hook as named in the output: `<Kind>/<name>`, a generated name by its generateName. */
function hookName(h: PlanHook): string {
  return displayName({ kind: h.kind, name: h.name !== '' ? h.name : (h.generateName ?? '') });
}

/** A field's verdict in words: an ignored field the sync writes after all (no RespectIgnoreDifferences) says so. */
function verdictText(f: PlannedField): string {
  return f.rule !== undefined && f.verdict !== 'ignored' ? `${f.verdict} (ignored, but written)` : f.verdict;
}

/**
 * `OFFLINE=true` first with --offline; per app: `APP=`, `PARENT=` (plan --recursive: the app that renders it), `BASE=`, `HEAD=`, `SOURCE=<position> <repoURL> <base> <head>` per
 * source a multi-source app's change moves, `REFUSED=` (when refused), then per counted field `CHANGE=<Kind>/<name> <path>`
 * (this change) or `DRIFT=<Kind>/<name> <path>` (already there) and `OWNER=<Kind>/<name> <path> <manager>` per other
 * manager of the live value, `SHARED=<Kind>/<name> <app>` for an object the sync takes over from another app,
 * `CREATE=`/`PRUNE=<Kind>/<name> <origin>`, `KEEP=<Kind>/<name> <origin> <reason>`, `FAIL=<Kind>/<name> <origin>
 * <reason>` (the sync at head would fail it), `HOOK=<phases> <Kind>/<name> this-change` per hook the change adds or
 * changes, `UNKNOWN=<reason>` (what the app's change does is not known in full), then `THIS_CHANGE=<n>`,
 * `ALREADY_THERE=<n>`, `IN_SYNC=<n>`.
 */
function renderPlanKv(r: PlanReport, fieldManager: string): string {
  const lines: string[] = r.offline ? ['OFFLINE=true'] : [];
  if (r.applicationSet !== undefined) lines.push(`APPLICATION_SET=${nameToken(r.applicationSet)}`);
  for (const a of r.apps) {
    lines.push(`APP=${nameToken(appId(a))}`);
    // plan --recursive: the app that renders this one.
    if (a.parent !== undefined) lines.push(`PARENT=${nameToken(a.parent)}`);
    lines.push(`BASE=${a.base}`, `HEAD=${a.head}`);
    // A multi-source app: each source the change moves, with its commits.
    for (const m of a.sources ?? []) lines.push(`SOURCE=${m.position} ${nameToken(m.repoURL)} ${m.base} ${m.head}`);
    // An ApplicationSet's app generated at one revision only; one that goes says what its deletion does.
    if (a.presence !== undefined) lines.push(`PRESENCE=${a.presence}`);
    if (a.presence === 'disappears') lines.push(`PRESENCE_NOTE=${oneLineText(a.prune.why)}`);
    if (a.unknown !== undefined) lines.push(`UNKNOWN=${oneLineText(a.unknown)}`);
    if (a.refused !== undefined) lines.push(`REFUSED=${oneLineText(a.refused)}`);
    for (const o of a.objects) {
      const name = displayName(o.key);
      if (o.action === 'update') {
        for (const f of o.fields) {
          if (f.verdict === 'ignored') continue;
          const path = renderPath(f.path);
          lines.push(`${f.origin === 'this-change' ? 'CHANGE' : 'DRIFT'}=${name} ${path}`);
          for (const m of otherManagers(f.owners, fieldManager)) lines.push(`OWNER=${name} ${path} ${nameToken(m)}`);
        }
        // Another app's object: the sync at head takes it over (SharedResourceWarning).
        if (o.sharedWith !== undefined) lines.push(`SHARED=${name} ${nameToken(o.sharedWith)}`);
      } else if (o.action === 'keep') lines.push(`KEEP=${name} ${ORIGIN_KV[o.origin]} ${oneLineText(o.reason ?? '')}`);
      else if (o.action === 'fail') lines.push(`FAIL=${name} ${ORIGIN_KV[o.origin]} ${oneLineText(o.reason ?? '')}`);
      else lines.push(`${o.action === 'create' ? 'CREATE' : 'PRUNE'}=${name} ${ORIGIN_KV[o.origin]}`);
    }
    // The hooks the change adds or changes: the next sync runs them.
    for (const h of a.hooks) if (h.origin === 'this-change') lines.push(`HOOK=${h.phases.join(',')} ${hookName(h)} this-change`);
    lines.push(`THIS_CHANGE=${a.summary.thisChange}`, `ALREADY_THERE=${a.summary.alreadyThere}`, `IN_SYNC=${a.summary.inSync}`);
  }
  // plan --all: the Applications left out, each with the reason.
  for (const k of r.skipped ?? []) lines.push(`SKIPPED=${nameToken(`${k.namespace}/${k.name}`)} ${oneLineText(k.reason)}`);
  return lines.join('\n') + '\n';
}

const ORIGIN_TEXT = { 'this-change': 'this change', 'already-there': 'already there' } as const;

function ownerText(owners: readonly Owner[]): string {
  return owners.map((w) => `${w.manager} (${w.subresource ? `${w.operation}/${w.subresource}` : w.operation})`).join(', ') || '-';
}

/** What happens to an object, in words: `update`, `create (wave 1)`, `prune`, `keep: Prune=false`, `fail: …`. */
function actionText(o: PlanObject): string {
  if (o.action === 'keep' || o.action === 'fail') return `${o.action}: ${o.reason ?? ''}`;
  return o.wave !== undefined && o.wave !== 0 ? `${o.action} (wave ${o.wave})` : o.action;
}

/** The field rows of one object: path, base, head, live, owners, verdict, origin. */
function fieldRows(o: PlanObject): string[][] {
  return o.fields.map((f) => [
    renderPath(f.path),
    formatValue(f.base),
    formatValue(f.desired),
    formatValue(f.live),
    ownerText(f.owners),
    verdictText(f),
    ORIGIN_TEXT[f.origin],
  ]);
}

function summaryText(a: PlanAppReport): string {
  const s = a.summary;
  return `${s.thisChange} change(s) from this change, ${s.alreadyThere} already there, ${s.inSync} object(s) in sync`;
}

function padRows(head: readonly string[], rows: readonly string[][]): string[] {
  const fmt = columnFormatter(head, rows);
  return [fmt(head), ...rows.map(fmt)];
}

const FIELD_HEAD = ['PATH', 'BASE', 'HEAD', 'LIVE', 'OWNER', 'VERDICT', 'FROM'] as const;

const OFFLINE_NOTE = 'offline: the head render compared with the base render, not with the cluster';

function renderPlanTable(r: PlanReport, paint: Paint): string {
  const out: string[] = r.offline ? [paint.dim(OFFLINE_NOTE)] : [];
  if (r.applicationSet !== undefined) out.push(paint.dim(`ApplicationSet ${r.applicationSet}: its Applications as generated at base and at head`), '');
  for (const a of r.apps) {
    if (a !== r.apps[0]) out.push('');
    const where = a.context ? ` on context ${a.context} (${a.server ?? ''})` : '';
    const presence =
      a.presence === 'appears' ? ' (generated at head only: it appears)' : a.presence === 'disappears' ? ' (generated at base only: it disappears)' : '';
    const child = a.parent !== undefined ? ` (rendered by ${a.parent})` : '';
    out.push(paint.bold(`Application ${appId(a)}${child}${where}: base ${short(a.base)}, head ${short(a.head)}${presence}`));
    out.push(...(a.sources ?? []).map((m) => paint.dim(`source ${m.position} ${sourceText(m)}: base ${short(m.base)}, head ${short(m.head)}`)));
    if (a.presence === 'disappears') out.push(paint.red(a.prune.why));
    if (a.unknown !== undefined) out.push(`${paint.red('UNKNOWN')} ${a.unknown}`);
    if (a.refused !== undefined) out.push(`${paint.red('REFUSED')} the ${a.sync} sync at head at ${r.at}: ${a.refused}`);
    for (const o of a.objects) {
      const origin = o.origin === 'this-change' ? paint.red(ORIGIN_TEXT[o.origin]) : paint.yellow(ORIGIN_TEXT[o.origin]);
      const ns = o.key.namespace ? `, namespace ${o.key.namespace}` : '';
      const action = o.action === 'fail' ? paint.red(actionText(o).toUpperCase()) : actionText(o).toUpperCase();
      out.push(`${paint.bold(`${displayName(o.key)} (${o.apiVersion}${ns})`)}  ${action}  ${origin}`);
      if (o.sharedWith !== undefined) out.push(`  ${paint.yellow(sharedText(o.sharedWith))}`);
      if (o.fields.length > 0) out.push(...padRows(FIELD_HEAD, fieldRows(o)).map((l) => `  ${l}`));
    }
    for (const h of a.hooks)
      out.push(
        h.origin === 'this-change'
          ? `hook ${hookName(h)} runs in ${h.phases.join(', ')}  ${paint.red(`${ORIGIN_TEXT['this-change']} (added or changed)`)}`
          : paint.dim(`hook ${hookName(h)} runs in ${h.phases.join(', ')}`),
      );
    out.push(summaryText(a));
  }
  const skipped = r.skipped ?? [];
  if (skipped.length > 0) {
    if (out.length > 0) out.push('');
    out.push(paint.dim(`Left out (${skipped.length}): the change is not about them`));
    out.push(...skipped.map((k) => paint.dim(`  ${k.namespace}/${k.name}: ${k.reason}`)));
  }
  if (r.skipped !== undefined && r.apps.length === 0) out.push('No Application follows the base revision: nothing to plan.');
  return out.join('\n') + '\n';
}

/** An object another app tracks, which the sync at head takes over. */
function sharedText(app: string): string {
  return `taken over from application ${app} (its tracking mark; SharedResourceWarning)`;
}

/** A moved source as people read it: its repository and path. */
function sourceText(m: MovedSource): string {
  return m.path !== undefined && m.path !== '' ? `${m.repoURL} ${m.path}` : m.repoURL;
}

/** A commit as people read it: its first 7 characters (anything else as given). */
function short(rev: string): string {
  return /^[0-9a-f]{40}$/.test(rev) ? rev.slice(0, 7) : rev;
}

/** A Markdown table cell: pipes escaped, line breaks as spaces, values in code spans. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

/** A value in a code span (JSON, `<absent>` when not there; a backtick inside would end the span). */
function code(v: JsonValue | undefined): string {
  return `\`${cell(formatValue(v)).replace(/`/g, "'")}\``;
}

/** The plan as a pull-request comment: one summary table over the apps, then a collapsible section per app. */
function renderPlanMarkdown(r: PlanReport): string {
  const out: string[] = [];
  out.push('### kubectl gitops plan', '');
  if (r.offline) out.push(`_${OFFLINE_NOTE}_`, '');
  if (r.applicationSet !== undefined) out.push(`ApplicationSet \`${cell(r.applicationSet)}\`: its Applications as generated at base and at head`, '');
  out.push('| Application | Base | Head | This change | Already there | In sync | Sync at head |');
  out.push('|---|---|---|---|---|---|---|');
  for (const a of r.apps) {
    const failing = a.objects.filter((o) => o.action === 'fail').length;
    const verdict =
      a.presence === 'disappears'
        ? `disappears: ${a.prune.why}${a.unknown !== undefined ? `; unknown: ${a.unknown}` : ''}`
        : `${a.presence === 'appears' ? 'appears: ' : ''}${a.refused !== undefined ? `refused: ${a.refused}` : failing > 0 ? `fails ${failing} object(s)` : a.summary.thisChange > 0 ? 'changes live objects' : 'changes nothing live'}`;
    out.push(
      `| ${cell(appId(a))}${a.parent !== undefined ? ` (rendered by ${cell(a.parent)})` : ''} | \`${short(a.base)}\` | \`${short(a.head)}\` | ${a.summary.thisChange} | ${a.summary.alreadyThere} | ${a.summary.inSync} | ${cell(verdict)} |`,
    );
  }
  for (const a of r.apps) {
    out.push('', `<details><summary><b>${cell(appId(a))}</b>: ${summaryText(a)}</summary>`, '');
    if (a.sources !== undefined && a.sources.length > 0)
      out.push(
        `Sources this change moves: ${a.sources.map((m) => `${m.position} (\`${cell(sourceText(m))}\`: \`${short(m.base)}\` → \`${short(m.head)}\`)`).join(', ')}`,
        '',
      );
    if (a.unknown !== undefined) out.push(`**Unknown**: ${cell(a.unknown)}`, '');
    if (a.refused !== undefined) out.push(`**Refused** (the ${a.sync} sync at ${r.at}): ${cell(a.refused)}`, '');
    if (a.objects.length > 0) {
      out.push('| Object | Action | Field | Base | Head | Live | Owner | From |', '|---|---|---|---|---|---|---|---|');
      for (const o of a.objects) {
        const name = cell(`${displayName(o.key)}${o.key.namespace ? ` (${o.key.namespace})` : ''}`);
        const action = cell(`${actionText(o)}${o.sharedWith !== undefined ? `, ${sharedText(o.sharedWith)}` : ''}`);
        if (o.fields.length === 0) out.push(`| ${name} | ${action} |  |  |  |  |  | ${ORIGIN_TEXT[o.origin]} |`);
        for (const f of o.fields) {
          const note = f.verdict === 'ignored' ? ' (ignored)' : f.rule !== undefined ? ' (ignored, but written)' : '';
          out.push(
            `| ${name} | ${action} | \`${cell(renderPath(f.path))}\` | ${code(f.base)} | ${code(f.desired)} | ${code(f.live)} | ${cell(ownerText(f.owners))} | ${ORIGIN_TEXT[f.origin]}${note} |`,
          );
        }
      }
      out.push('');
    }
    for (const h of a.hooks)
      out.push(`- hook ${cell(hookName(h))} runs in ${h.phases.join(', ')}${h.origin === 'this-change' ? ' (this change: added or changed)' : ''}`);
    out.push('</details>');
  }
  const skipped = r.skipped ?? [];
  if (skipped.length > 0)
    out.push('', `Left out (${skipped.length}): ${skipped.map((k) => `${cell(`${k.namespace}/${k.name}`)} (${cell(k.reason)})`).join(', ')}`);
  return out.join('\n') + '\n';
}

/** Renders the plan; always ends with a newline. */
export function renderPlan(r: PlanReport, format: OutputFormat, paint: Paint, fieldManager: string): string {
  if (format === 'markdown') return renderPlanMarkdown(r);
  return renderDocument(planDocument(r), format, { kv: () => renderPlanKv(r, fieldManager), table: () => renderPlanTable(r, paint) });
}
