// Renders the status report: header + resource table (or live tree), kv lines, JSON or YAML.
import type { SourceRevision } from '../app/types.js';
import { renderDocument } from './document.js';
import type { Paint } from './colour.js';
import type { OutputFormat } from './colour.js';
import { displayName, keyString } from '../model/object.js';
import type { Cause } from '../health/reason.js';
import type { HealthStatusCode } from '../health/types.js';
import type { ChildStatus, ResourceStatus, StatusReport, SyncStatusCode, TreeReport } from '../health/report.js';
import { treeRows } from './tree.js';
import { childAppMessage, childAppOf, childKvLines, childrenSection, isApplication } from './children.js';
import { windowLine, type ProjectStatus } from '../settings/window-report.js';

export interface StatusRenderOptions {
  output: OutputFormat;
  tree: boolean;
  paint: Paint;
}

/** One line: newlines and runs of blanks become one space (kv values and table cells stay on one line). */
function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** `Pod/broken-6f9c-abcde: Unschedulable: 0/2 nodes are available: …` */
export function describeCause(c: Cause): string {
  const where = c.container ? ` container ${c.container}` : '';
  const parts = c.source === 'Health' ? [c.message] : [c.reason, c.message].filter((p) => p !== '');
  return oneLine(`${c.object.kind}/${c.object.name}${where}: ${parts.join(': ')}`);
}

/** The app's REASON: the most specific cause of its health, empty when Healthy. */
export function reasonText(r: StatusReport): string {
  if (r.sync.reason !== undefined) return oneLine(r.sync.reason);
  if (r.health.status === 'Healthy') return '';
  if (r.health.cause) return describeCause(r.health.cause);
  if (r.health.status === 'Missing') return "none of the app's resources exists in the cluster";
  return '';
}

function syncColour(p: Paint, s: SyncStatusCode): (t: string) => string {
  return s === 'Synced' ? p.green : s === 'OutOfSync' ? p.yellow : p.gray;
}

function healthColour(p: Paint, h: HealthStatusCode | undefined): (t: string) => string {
  switch (h) {
    case 'Healthy':
      return p.green;
    case 'Progressing':
      return p.cyan;
    case 'Suspended':
      return p.magenta;
    case 'Missing':
      return p.yellow;
    case 'Degraded':
      return p.red;
    default:
      return p.gray;
  }
}

function syncMessage(r: ResourceStatus): string {
  switch (r.syncReason) {
    case 'drifted':
      return r.driftedFields !== undefined ? `drifted (${r.driftedFields} field${r.driftedFields === 1 ? '' : 's'})` : 'drifted';
    case 'missing':
      return 'not in the cluster';
    case 'requires-pruning':
      return r.countsForSync ? 'requires pruning' : 'requires pruning (IgnoreExtraneous: does not count)';
    case 'not-compared':
      return r.error ? `not compared: ${r.error}` : 'not compared';
    case 'not-permitted':
      return r.notPermitted ?? 'not permitted in the project';
    default:
      return '';
  }
}

function resourceMessage(r: ResourceStatus): string {
  return oneLine([syncMessage(r), r.health?.message ?? ''].filter((m) => m !== '').join('; '));
}

interface Cell {
  text: string;
  colour?: (t: string) => string;
}

/** Aligned columns; the last column is not padded. Widths come from the plain text, colour is added after padding. */
function table(header: string[], rows: Cell[][]): string {
  const all: Cell[][] = [header.map((text) => ({ text })), ...rows];
  // One pass over the rows (a spread of every row into Math.max overflows the stack past ~120,000 resources).
  const widths = header.map(() => 0);
  for (const row of all) for (let c = 0; c < widths.length; c++) widths[c] = Math.max(widths[c]!, row[c]?.text.length ?? 0);
  return all
    .map((row) => {
      // Cells after the last non-empty one are dropped and that one is not padded, so no line ends in blanks.
      let last = row.length - 1;
      while (last > 0 && row[last]?.text === '') last--;
      return row
        .slice(0, last + 1)
        .map((cell, c) => {
          const text = c === last ? cell.text : cell.text.padEnd(widths[c] ?? 0);
          return cell.colour ? cell.colour(text) : text;
        })
        .join('  ');
    })
    .join('\n');
}

function policyText(r: StatusReport): string {
  if (!r.syncPolicy.automated) return 'Manual';
  const flags = [r.syncPolicy.prune && 'Prune', r.syncPolicy.selfHeal && 'SelfHeal', r.syncPolicy.allowEmpty && 'AllowEmpty'].filter(
    (f): f is string => typeof f === 'string',
  );
  return flags.length > 0 ? `Automated (${flags.join(', ')})` : 'Automated';
}

/** One entry of spec.sources: where, what, and the revision it was read at. */
function sourceLine(x: SourceRevision): string {
  const wanted = x.targetRevision || 'HEAD';
  const at = x.revision !== wanted ? `${wanted} (${x.revision.slice(0, 7)})` : wanted;
  const what = x.chart !== undefined ? `chart ${x.chart}` : x.path ? `path ${x.path}` : 'no path';
  return `${x.repoURL || '-'}, ${what}, revision ${at}${x.ref ? `, ref ${x.ref}` : ''}${x.type ? `, ${x.type}` : ''}`;
}

function header(r: StatusReport, p: Paint): string {
  const s = r.source;
  const revision = s.targetRevision ?? 'HEAD';
  const at = s.revision && s.revision !== revision ? `${revision} (${s.revision.slice(0, 7)})` : revision;
  const d = r.destination;
  const lines: [string, string][] = [
    ['Name:', `${r.app.namespace}/${r.app.name}`],
    ...(r.sources
      ? r.sources.map((x, i): [string, string] => [`Source ${i + 1}:`, sourceLine(x)])
      : [['Source:', `${s.repoURL ?? '-'}, path ${s.path || '.'}, revision ${at}`] as [string, string]]),
    ...(r.hydrator
      ? [
          [
            'Dry Source:',
            `${r.hydrator.drySource.repoURL}, path ${r.hydrator.drySource.path || '.'}, revision ${r.hydrator.drySource.targetRevision || 'HEAD'}${r.hydrator.drySha ? ` (hydrated from ${r.hydrator.drySha.slice(0, 7)})` : ''}`,
          ] as [string, string],
        ]
      : []),
    ...(s.type ? [['Source Type:', s.type] as [string, string]] : []),
    ...(s.manifests ? [['Manifests:', s.manifests] as [string, string]] : []),
    [
      'Destination:',
      `${d.server ?? d.name ?? '-'}, namespace ${d.namespace ?? '-'}${d.declaredNamespace ? ` (-n; the Application's is ${d.declaredNamespace})` : ''}`,
    ],
    ...(d.context ? [['Context:', `${d.context} (${d.contextServer ?? ''})`] as [string, string]] : []),
    ['Sync Policy:', policyText(r)],
    [
      'Sync Status:',
      syncColour(p, r.sync.status)(r.sync.status) +
        (r.sync.outOfSync > 0 ? ` (${r.sync.outOfSync} OutOfSync${r.sync.requiresPruning > 0 ? `, ${r.sync.requiresPruning} requiring pruning` : ''})` : ''),
    ],
    ['Health Status:', healthColour(p, r.health.status)(r.health.status)],
  ];
  const reason = reasonText(r);
  if (reason !== '') lines.push(['Reason:', reason]);
  if (r.operation) lines.push(['Last Sync:', operationText(r.operation)]);
  for (const c of r.conditions ?? []) lines.push(['Condition:', `${c.type}: ${oneLine(c.message)}`]);
  if (r.project) lines.push(...projectLines(r.project, p));
  return lines.map(([k, v]) => `${k.padEnd(16)}${v}`).join('\n');
}

/** The last operation in one line: phase, when, revision, message (`Succeeded at …, revision abc1234: successfully synced`). */
function operationText(o: NonNullable<StatusReport['operation']>): string {
  const when = o.finishedAt ?? o.startedAt;
  const head = o.phase ?? (o.requested ? 'requested' : '');
  return `${head}${when ? ` at ${when}` : ''}${o.revision ? `, revision ${o.revision.slice(0, 12)}` : ''}${o.message ? `: ${oneLine(o.message)}` : ''}`;
}

/** The project's header lines: its name, what it forbids, and (when it has windows for the app) whether a sync may run now. */
function projectLines(pr: ProjectStatus, p: Paint): [string, string][] {
  const out: [string, string][] = [['Project:', `${pr.name}${pr.unchecked ? ' (not readable: not checked)' : ''}`]];
  for (const v of pr.violations) out.push(['Forbidden:', p.red(v)]);
  if (pr.windows.length === 0) return out;
  const perm = (s: ProjectStatus['manualSync']) => (s.allowed ? p.green('allowed') : p.red(`blocked${s.opensAt ? ` until ${s.opensAt}` : ''}`));
  out.push(['Sync Now:', `manual ${perm(pr.manualSync)}, automated ${perm(pr.automatedSync)}`]);
  for (const w of pr.windows) out.push(['Sync Window:', w.active ? p.yellow(windowLine(w)) : windowLine(w)]);
  return out;
}

function resourceTable(r: StatusReport, p: Paint): string {
  const rows = r.resources.map((res): Cell[] => [
    { text: res.group || '-' },
    { text: res.kind },
    { text: res.namespace || '-' },
    { text: res.name },
    { text: res.status, colour: syncColour(p, res.status) },
    { text: res.health?.status ?? '-', colour: healthColour(p, res.health?.status) },
    { text: resourceMessage(res) },
  ]);
  return table(['GROUP', 'KIND', 'NAMESPACE', 'NAME', 'STATUS', 'HEALTH', 'MESSAGE'], rows);
}

/**
 * A tree node, or a resource that is not live (a root without a tree); `app`: the child Application the resource is, as
 * `status --recursive` compared it (its own resources drawn under it with `--tree`).
 */
type TreeItem = ({ node: TreeReport; resource?: ResourceStatus } | { node?: undefined; resource: ResourceStatus }) & { app?: ChildStatus };

/** The roots of one app's tree: its resources, each with its live tree and, for a child Application, its comparison. */
function treeRoots(resources: readonly ResourceStatus[], trees: readonly TreeReport[], children: readonly ChildStatus[] | undefined): TreeItem[] {
  const byKey = new Map(trees.map((t) => [keyString(t), t]));
  return resources.map((res) => {
    const t = byKey.get(keyString(res));
    const app = childAppOf(res, children);
    return { ...(t ? { node: t, resource: res } : { resource: res }), ...(app ? { app } : {}) };
  });
}

/** Below a node: its live children, then, for a child Application compared with --tree, its own resources' trees. */
function treeChildren(i: TreeItem): TreeItem[] {
  const live: TreeItem[] = i.node ? i.node.children.map((c) => ({ node: c })) : [];
  const own = i.app?.resources !== undefined ? treeRoots(i.app.resources, i.app.trees ?? [], i.app.children) : [];
  return [...live, ...own];
}

function treeTable(r: StatusReport, p: Paint): string {
  const roots = treeRoots(r.resources, r.trees, r.children);
  const rows = treeRows<TreeItem>(roots, treeChildren).map(({ prefix, node: item }): Cell[] => {
    const key = item.node ?? item.resource;
    const live = item.node ? item.node.health : item.resource?.health;
    const health = item.app ? { status: item.app.health as HealthStatusCode } : live;
    const cause = item.node?.cause;
    const own = cause ? oneLine([cause.container ? `container ${cause.container}` : '', cause.reason, cause.message].filter((x) => x !== '').join(': ')) : '';
    const about = item.app ? childAppMessage(item.app) : own || (live?.message ?? '');
    // Without --recursive a child Application is one node: say how to see its own tree.
    const hint = !item.app && r.children === undefined && item.resource && isApplication(item.resource) ? 'child Application: --recursive draws its tree' : '';
    const message = [item.resource ? syncMessage(item.resource) : '', about, hint].filter((m) => m !== '').join('; ');
    const sync = item.resource?.status;
    return [
      { text: `${prefix}${key.kind}/${key.name}` },
      { text: sync ?? '', ...(sync ? { colour: syncColour(p, sync) } : {}) },
      { text: health?.status ?? '-', colour: healthColour(p, health?.status) },
      { text: oneLine(message), ...(item.app?.error !== undefined ? { colour: p.red } : {}) },
    ];
  });
  return table(['KIND/NAME', 'STATUS', 'HEALTH', 'MESSAGE'], rows);
}

/** The five kv lines scripts read first (SYNC, HEALTH, REASON on one line, PRUNE, ALLOW_EMPTY), then the revision, the last operation, conditions and one line per resource. */
export function renderStatusKv(r: StatusReport): string {
  const lines = [
    `SYNC=${r.sync.status}`,
    `HEALTH=${r.health.status}`,
    `REASON=${reasonText(r)}`,
    `PRUNE=${r.syncPolicy.prune}`,
    `ALLOW_EMPTY=${r.syncPolicy.allowEmpty}`,
  ];
  // Only when the project has something to say: what it forbids, and the sync windows that apply to the app.
  const pr = r.project;
  for (const v of pr?.violations ?? []) lines.push(`PROJECT_VIOLATION=${oneLine(v)}`);
  // The app's hooks still in the cluster, as the sync's HOOK= lines name them.
  for (const h of r.hooks ?? []) lines.push(`HOOK=${h.phases.join(',')} ${displayName(h)} ${h.result}`);
  if (pr && pr.windows.length > 0) {
    for (const w of pr.windows) lines.push(`SYNC_WINDOW=${windowLine(w)}`);
    lines.push(`SYNC_ALLOWED=${pr.manualSync.allowed}`);
    if (!pr.manualSync.allowed) lines.push(`SYNC_OPENS=${pr.manualSync.opensAt ?? ''}`);
  }
  // As argocd app get: the revision compared, the last operation, the stored conditions and one line per resource.
  if (r.source.revision) lines.push(`REVISION=${r.source.revision}`);
  // A Source Hydrator app: the dry commit the synced manifests were hydrated from.
  if (r.hydrator?.drySha) lines.push(`DRY_REVISION=${r.hydrator.drySha}`);
  if (r.operation) {
    lines.push(`PHASE=${r.operation.phase ?? (r.operation.requested ? 'Requested' : '')}`);
    if (r.operation.revision) lines.push(`OPERATION_REVISION=${r.operation.revision}`);
    if (r.operation.message) lines.push(`OPERATION_MESSAGE=${oneLine(r.operation.message)}`);
  }
  for (const c of r.conditions ?? []) lines.push(`CONDITION=${c.type} ${oneLine(c.message)}`);
  for (const res of r.resources) lines.push(`RESOURCE=${displayName(res)} ${res.status} ${res.health?.status ?? '-'}`);
  // The AppProject's orphanedResources: the objects of the destination namespace no app tracks.
  for (const k of r.orphaned?.resources ?? []) lines.push(`ORPHANED=${displayName(k)}`);
  // status --recursive: each child Application, depth first.
  lines.push(...childKvLines(r.children ?? []));
  return lines.join('\n') + '\n';
}

/** The report as printed by -o json|yaml: the data plus `health.reason`, the REASON line's text. */
function withReason(r: StatusReport): StatusReport & { health: { reason: string } } {
  return { ...r, health: { ...r.health, reason: reasonText(r) } };
}

export function renderStatus(r: StatusReport, opts: StatusRenderOptions): string {
  return renderDocument(opts.output === 'json' || opts.output === 'yaml' ? withReason(r) : r, opts.output, {
    kv: () => renderStatusKv(r),
    table: () => {
      const body = r.resources.length === 0 ? 'No resources.' : opts.tree ? treeTable(r, opts.paint) : resourceTable(r, opts.paint);
      const hooks =
        (r.hooks ?? []).length === 0
          ? ''
          : `\n\nHooks still in the cluster (last runs):\n${table(
              ['PHASE', 'KIND/NAME', 'RESULT', 'MESSAGE'],
              (r.hooks ?? []).map((h) =>
                [h.phases.join(','), displayName(h), h.result, oneLine(h.message ?? '')].map((text) => ({
                  text,
                  ...(h.result === 'Failed' ? { colour: opts.paint.red } : {}),
                })),
              ),
            )}`;
      const orphaned =
        (r.orphaned?.resources ?? []).length === 0
          ? ''
          : `\n\nOrphaned resources (in the destination namespace, no app tracks them):\n${table(
              ['KIND/NAME', 'NAMESPACE'],
              (r.orphaned?.resources ?? []).map((k) => [{ text: displayName(k) }, { text: k.namespace }]),
            )}`;
      // With --tree the child Applications are nodes of the tree (their own trees under them): no second list.
      const children = opts.tree && r.resources.length > 0 ? '' : childrenSection(r.children ?? [], opts.paint);
      return `${header(r, opts.paint)}\n\n${body}${hooks}${orphaned}${children}\n`;
    },
  });
}
