// `status --tree -o dot`: the live map as Graphviz dot text (left to right; health as a word, a symbol and a shape).
import type { HealthStatusCode } from '../health/types.js';
import { statusLine, type Graph, type GraphNode } from './graph.js';

/** Fill colours per health (light, so the black label stays readable) and a shape per health for those who cannot tell them apart. */
export const HEALTH_STYLE: Record<HealthStatusCode | 'none', { fill: string; stroke: string; dotShape: string }> = {
  Healthy: { fill: '#dcfce7', stroke: '#15803d', dotShape: 'box' },
  Progressing: { fill: '#dbeafe', stroke: '#1d4ed8', dotShape: 'hexagon' },
  Suspended: { fill: '#f3e8ff', stroke: '#7e22ce', dotShape: 'parallelogram' },
  Missing: { fill: '#fef9c3', stroke: '#a16207', dotShape: 'note' },
  Degraded: { fill: '#fee2e2', stroke: '#b91c1c', dotShape: 'octagon' },
  Unknown: { fill: '#f3f4f6', stroke: '#4b5563', dotShape: 'diamond' },
  none: { fill: '#ffffff', stroke: '#6b7280', dotShape: 'box' },
};

/** A dot double-quoted string. */
function q(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

function label(n: GraphNode): string {
  const lines = [n.kind, n.name, statusLine(n)].filter((l) => l !== '');
  return lines.join('\n');
}

/** Renders the graph as a dot digraph; same input, same bytes. */
export function renderDot(g: Graph): string {
  const out = ['digraph "live map" {', '  rankdir=LR;', '  node [style="rounded,filled", fontname="Helvetica", fontsize=10];', '  edge [color="#9ca3af"];'];
  for (const n of g.nodes) {
    const s = HEALTH_STYLE[n.health ?? 'none'];
    const attrs = [`label=${q(label(n))}`, `shape=${s.dotShape}`, `fillcolor=${q(s.fill)}`, `color=${q(s.stroke)}`];
    if (n.extra) attrs.push('style="rounded,filled,dashed"');
    if (n.worst) attrs.push('penwidth=2.5');
    if (n.sync === 'OutOfSync') attrs.push(`xlabel=${q(n.extra ? 'prune' : 'OutOfSync')}`);
    if (n.cause) attrs.push(`tooltip=${q(n.cause)}`);
    out.push(`  ${q(n.id)} [${attrs.join(', ')}];`);
  }
  for (const e of g.edges) out.push(`  ${q(e.from)} -> ${q(e.to)}${e.worst ? ' [color="#b91c1c", penwidth=2]' : ''};`);
  out.push('}');
  return out.join('\n') + '\n';
}
