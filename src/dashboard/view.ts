// What the dashboard serves, as data: one row per Application for the list, and per app its live map, the drifted
// objects' field tables with owners, and the reason. Pure: built from the status report and the live diff report.
import type { StatusReport } from '../health/report.js';
import type { DiffReport, FieldDiff } from '../diff/types.js';
import { keyString, type JsonValue } from '../model/object.js';
import { appGraph, type GraphNode } from '../render/graph.js';
import { renderSvg } from '../render/graph-svg.js';
import { formatAge, formatValue } from '../render/diff.js';
import { describeRule } from '../diff/ignore.js';
import { renderPath } from '../model/field-path.js';

export const DASHBOARD_SCHEMA_VERSION = 1;

/** One Application in the list. */
export interface AppRow {
  /** `namespace/name`. */
  id: string;
  name: string;
  namespace: string;
  project: string;
  labels: Record<string, string>;
  sync: string;
  health: string;
  revision?: string;
  destination: { server?: string; name?: string; namespace?: string };
  lastSync?: string;
  /** Why it could not be compared (then sync and health are Unknown). */
  error?: string;
  /** The app's reason (most specific cause of its health); empty when Healthy. */
  reason?: string;
  /** When it was last compared (ISO time); absent while the first comparison runs. */
  comparedAt?: string;
}

/** One row of a drifted object's field table, as the terminal table shows it. */
export interface FieldRow {
  path: string;
  desired: string;
  live: string;
  owners: { manager: string; operation: string; age?: string }[];
  verdict: string;
  /** drift, removed, conflict or ignored: what the colour follows. */
  kind: FieldDiff['verdict'];
}

export interface NodeView extends Omit<GraphNode, 'x' | 'y'> {
  /** The field table, for a drifted object. */
  fields?: FieldRow[];
  /**
   * A child Application (app-of-apps): its id (`namespace/name`) and, when this dashboard lists it, its own sync status
   * and health (the node is drawn with that health) and a link to its page.
   */
  app?: { id: string; listed: boolean; sync?: string; health?: string };
}

/** The child Application a node stands for (an argoproj.io Application the app declares), by id. */
function childAppId(n: Pick<GraphNode, 'key' | 'depth'>): string | undefined {
  return n.depth === 1 && n.key?.group === 'argoproj.io' && n.key.kind === 'Application' ? `${n.key.namespace}/${n.key.name}` : undefined;
}

const HEALTH_CODES: readonly string[] = ['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'];

export interface AppView {
  schemaVersion: typeof DASHBOARD_SCHEMA_VERSION;
  row: AppRow;
  /** The live map as SVG with `data-node` ids the page hooks its clicks on. */
  svg: string;
  nodes: NodeView[];
  warnings: string[];
}

/** The field table rows of one object diff; `now` fixes the ages. Values are the diff's (Secret data already masked). */
export function fieldRows(fields: readonly FieldDiff[], now: Date): FieldRow[] {
  return fields.map((f) => ({
    path: renderPath(f.path),
    desired: formatValue(f.desired as JsonValue | undefined),
    live: formatValue(f.live as JsonValue | undefined),
    owners: f.owners.map((o) => {
      const age = formatAge(o.time, now);
      return { manager: o.manager, operation: o.subresource ? `${o.operation}/${o.subresource}` : o.operation, ...(age ? { age } : {}) };
    }),
    verdict: f.verdict === 'ignored' && f.rule ? `ignored (${describeRule(f.rule)})` : f.verdict,
    kind: f.verdict,
  }));
}

/** The app's page: its map (with the drifted objects' field tables on their nodes) and its list row. */
export function appView(
  row: AppRow,
  report: StatusReport,
  diff: Pick<DiffReport, 'objects'> | undefined,
  warnings: readonly string[],
  now: Date,
  childRow: (id: string) => AppRow | undefined = () => undefined,
): AppView {
  const graph = appGraph(report);
  // A child Application is drawn with its own health (Argo CD has no health check for the kind: the node would say nothing).
  for (const n of graph.nodes) {
    const id = childAppId(n);
    const health = id !== undefined ? childRow(id)?.health : undefined;
    if (health !== undefined && HEALTH_CODES.includes(health)) n.health = health as GraphNode['health'];
  }
  const byKey = new Map<string, FieldRow[]>();
  for (const o of diff?.objects ?? []) if (o.fields.length > 0) byKey.set(keyString(o.key), fieldRows(o.fields, now));
  const nodes: NodeView[] = graph.nodes.map(({ x: _x, y: _y, ...n }) => {
    const fields = n.depth === 1 && n.key ? byKey.get(keyString(n.key)) : undefined;
    const id = childAppId(n);
    const child = id !== undefined ? childRow(id) : undefined;
    const app = id !== undefined ? { id, listed: child !== undefined, ...(child ? { sync: child.sync, health: child.health } : {}) } : undefined;
    return { ...n, ...(fields ? { fields } : {}), ...(app ? { app } : {}) };
  });
  return {
    schemaVersion: DASHBOARD_SCHEMA_VERSION,
    row: { ...row, ...(graph.reason ? { reason: graph.reason } : {}) },
    svg: renderSvg(graph, { interactive: true }),
    nodes,
    warnings: [...warnings],
  };
}

/** The node of `view` with that id, and its object's key (undefined for the Application node or an unknown id). */
