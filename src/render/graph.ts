// The live map of an app as a left-to-right graph: the Application, its resources, then what they own, laid out as a tidy tree.
import { keyString, type ResourceKey } from '../model/object.js';
import type { HealthStatusCode } from '../health/types.js';
import type { ResourceStatus, StatusReport, SyncReason, SyncStatusCode, TreeReport } from '../health/report.js';
import { describeCause, reasonText } from './status.js';
import { childAppMessage, childAppOf } from './children.js';

/** Node box size and the gaps between columns and rows, in SVG user units. */
export const NODE_WIDTH = 250;
export const NODE_HEIGHT = 54;
export const COLUMN_GAP = 70;
const ROW_GAP = 12;
const MARGIN = 16;

export interface GraphNode {
  /** `app`, else `n<index>` in walk order (stable for one report). */
  id: string;
  /** Absent for the Application node. */
  key?: ResourceKey;
  kind: string;
  name: string;
  namespace: string;
  /** 0 for the Application, 1 for its resources, 2+ for what they own. */
  depth: number;
  parent?: string;
  health?: HealthStatusCode;
  healthMessage?: string;
  /** Only the Application and its own resources have a sync status (owned objects are not compared). */
  sync?: SyncStatusCode;
  syncReason?: SyncReason;
  driftedFields?: number;
  /** A prune candidate: live, not desired. */
  extra?: boolean;
  /** On the path from the Application to the most specific cause of its health. */
  worst?: boolean;
  /** The object the app's reason is read from. */
  cause?: string;
  /** A hook of the app still in the cluster: its phases and the last run's result (`PreSync: Succeeded`). */
  hook?: string;
  x: number;
  y: number;
}

export interface Graph {
  nodes: GraphNode[];
  edges: { from: string; to: string; worst: boolean }[];
  width: number;
  height: number;
  /** The app's reason line (empty when Healthy). */
  reason: string;
}

/** A short text badge per health, so health is never told by colour alone. */
export const HEALTH_SYMBOL: Record<HealthStatusCode, string> = {
  Healthy: '♥',
  Progressing: '◌',
  Suspended: '⏸',
  Missing: '∅',
  Degraded: '✖',
  Unknown: '?',
};

const sameKey = (a: ResourceKey, b: ResourceKey) => keyString(a) === keyString(b);

/**
 * The app's live map from its status report: one node for the Application, one per resource (in the report's order;
 * missing ones and prune candidates included), then each live resource's tree. Pure; positions are those of a tidy
 * tree: a leaf per row, a parent in the middle of its children, one column per depth.
 */
export function appGraph(r: StatusReport): Graph {
  const nodes: GraphNode[] = [];
  const edges: Graph['edges'] = [];
  const worstKeys = r.health.status === 'Healthy' ? [] : r.health.worst;
  const cause = r.health.cause;
  const app: GraphNode = {
    id: 'app',
    kind: 'Application',
    name: r.app.name,
    namespace: r.app.namespace,
    depth: 0,
    health: r.health.status,
    sync: r.sync.status,
    x: 0,
    y: 0,
  };
  nodes.push(app);
  const trees = new Map(r.trees.map((t) => [keyString(t), t]));
  const add = (n: Omit<GraphNode, 'id' | 'x' | 'y'>): GraphNode => {
    const node: GraphNode = { ...n, id: `n${nodes.length}`, x: 0, y: 0 };
    nodes.push(node);
    if (n.parent) edges.push({ from: n.parent, to: node.id, worst: false });
    return node;
  };
  const addTree = (t: TreeReport, parent: string, depth: number): GraphNode[] => {
    const node = add({ key: keyOf(t), kind: t.kind, name: t.name, namespace: t.namespace, depth, parent, ...healthOf(t.health) });
    if (cause && sameKey(cause.object, t)) node.cause = describeCause(cause);
    const path = t.children.flatMap((c) => addTree(c, node.id, depth + 1));
    return path.length > 0 || node.cause !== undefined ? [node, ...path] : [];
  };
  let worstPath: GraphNode[] = [];
  for (const res of r.resources) {
    const node = add({ ...resourceFields(res), depth: 1, parent: 'app' });
    // status --recursive: a child Application's node carries its own live health, as its own map's root would.
    const child = childAppOf(res, r.children);
    if (child) {
      if (child.health in HEALTH_SYMBOL) node.health = child.health as HealthStatusCode;
      node.healthMessage = childAppMessage(child);
    }
    const tree = trees.get(keyString(res));
    let below: GraphNode[] = [];
    if (tree && res.health?.status !== 'Missing') {
      if (cause && sameKey(cause.object, res)) node.cause = describeCause(cause);
      below = tree.children.flatMap((c) => addTree(c, node.id, 2));
    }
    if (worstKeys.some((k) => sameKey(k, res))) worstPath.push(node, ...(cause ? below : []));
  }
  // The app's hooks still in the cluster (the last runs' Jobs and Pods), beside its resources, never part of its axes.
  for (const h of r.hooks ?? []) {
    add({
      key: keyOf(h),
      kind: h.kind,
      name: h.name,
      namespace: h.namespace,
      depth: 1,
      parent: 'app',
      hook: `${h.phases.join(',')}: ${h.result}`,
      ...(h.message ? { healthMessage: h.message } : {}),
    });
  }
  if (worstPath.length > 0) worstPath = [app, ...worstPath];
  const onPath = new Set(worstPath.map((n) => n.id));
  for (const n of worstPath) n.worst = true;
  for (const e of edges) e.worst = onPath.has(e.from) && onPath.has(e.to);
  const { width, height } = layout(nodes);
  return { nodes, edges, width, height, reason: reasonText(r) };
}

function keyOf(k: ResourceKey): ResourceKey {
  return { group: k.group, kind: k.kind, namespace: k.namespace, name: k.name };
}

function healthOf(h: { status: HealthStatusCode; message: string } | undefined): Pick<GraphNode, 'health' | 'healthMessage'> {
  if (!h) return {};
  return { health: h.status, ...(h.message ? { healthMessage: h.message } : {}) };
}

function resourceFields(res: ResourceStatus): Omit<GraphNode, 'id' | 'x' | 'y' | 'depth'> {
  return {
    key: keyOf(res),
    kind: res.kind,
    name: res.name,
    namespace: res.namespace,
    ...healthOf(res.health),
    sync: res.status,
    ...(res.syncReason ? { syncReason: res.syncReason } : {}),
    ...(res.driftedFields !== undefined ? { driftedFields: res.driftedFields } : {}),
    ...(res.requiresPruning ? { extra: true } : {}),
  };
}

/** Tidy-tree positions (x by depth, y by leaf rows, parents centred on their children); returns the drawing's size. */
function layout(nodes: GraphNode[]): { width: number; height: number } {
  const children = new Map<string, GraphNode[]>();
  for (const n of nodes) if (n.parent) (children.get(n.parent) ?? children.set(n.parent, []).get(n.parent)!).push(n);
  let row = 0;
  let maxDepth = 0;
  const rowHeight = NODE_HEIGHT + ROW_GAP;
  // Iterative post-order: an app of thousands of objects must not exhaust the stack.
  const stack: { node: GraphNode; visited: boolean }[] = nodes[0] ? [{ node: nodes[0], visited: false }] : [];
  while (stack.length > 0) {
    const top = stack.pop()!;
    const n = top.node;
    const kids = children.get(n.id) ?? [];
    n.x = MARGIN + n.depth * (NODE_WIDTH + COLUMN_GAP);
    maxDepth = Math.max(maxDepth, n.depth);
    if (kids.length === 0) {
      n.y = MARGIN + row++ * rowHeight;
      continue;
    }
    if (!top.visited) {
      stack.push({ node: n, visited: true });
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i]!, visited: false });
      continue;
    }
    n.y = Math.round((kids[0]!.y + kids[kids.length - 1]!.y) / 2);
  }
  return { width: 2 * MARGIN + (maxDepth + 1) * NODE_WIDTH + maxDepth * COLUMN_GAP, height: 2 * MARGIN + Math.max(1, row) * rowHeight - ROW_GAP };
}

/** The node's status line: health (with its symbol) and, for compared objects, sync. */
export function statusLine(n: GraphNode): string {
  const parts: string[] = [];
  if (n.health) parts.push(`${HEALTH_SYMBOL[n.health]} ${n.health}`);
  if (n.hook !== undefined) parts.push(`hook ${n.hook}`);
  if (n.extra) parts.push('extra: prune candidate');
  else if (n.sync)
    parts.push(
      n.sync === 'OutOfSync' && n.driftedFields !== undefined
        ? `OutOfSync (${n.driftedFields} field${n.driftedFields === 1 ? '' : 's'})`
        : n.sync === 'OutOfSync' && n.syncReason === 'missing'
          ? 'OutOfSync (missing)'
          : n.sync,
    );
  return parts.join(' · ');
}
