// `status --tree -o svg` and the dashboard's map: the laid-out graph as one self-contained SVG (no scripts, no fonts, no links).
import { COLUMN_GAP, NODE_HEIGHT, NODE_WIDTH, statusLine, type Graph, type GraphNode } from './graph.js';
import { HEALTH_STYLE } from './graph-dot.js';

export interface SvgOptions {
  /** Add `data-node` ids and classes the dashboard's page hooks its clicks and styles on. */
  interactive?: boolean;
  /** A title line above the map (the app's name and its two axes). */
  title?: string;
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Cuts a label to about `max` characters with an ellipsis (the full text stays in the node's <title>). */
function cut(s: string, max: number): string {
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/**
 * Cuts a name in its middle, keeping its start and its end: what tells apart a Pod of its ReplicaSet's others, or one
 * run of a hook declared with generateName from another (`upgrade-sql-schema0d521c6-presync-1796681205`), is its end.
 */
function cutMiddle(s: string, max: number): string {
  if (s.length <= max) return s;
  const tail = Math.floor((max - 1) / 2);
  return `${s.slice(0, max - 1 - tail)}…${s.slice(s.length - tail)}`;
}

const TITLE_HEIGHT = 28;

/** A small shape per health drawn at the node's left edge: the same information as the colour, for those who cannot see it. */
function marker(n: GraphNode, x: number, y: number): string {
  const s = HEALTH_STYLE[n.health ?? 'none'];
  const a = `fill="${s.stroke}"`;
  switch (n.health) {
    case 'Healthy':
      return `<circle cx="${x}" cy="${y}" r="6" ${a}/>`;
    case 'Progressing':
      return `<circle cx="${x}" cy="${y}" r="6" fill="none" stroke="${s.stroke}" stroke-width="2" stroke-dasharray="3 2"/>`;
    case 'Degraded':
      return `<path d="M${x} ${y - 7}L${x + 7} ${y + 6}H${x - 7}Z" ${a}/>`;
    case 'Missing':
      return `<rect x="${x - 6}" y="${y - 6}" width="12" height="12" fill="none" stroke="${s.stroke}" stroke-width="2"/>`;
    case 'Suspended':
      return `<path d="M${x - 5} ${y - 6}h3v12h-3zM${x + 2} ${y - 6}h3v12h-3z" ${a}/>`;
    case 'Unknown':
      return `<path d="M${x} ${y - 7}L${x + 7} ${y}L${x} ${y + 7}L${x - 7} ${y}Z" ${a}/>`;
    default:
      return '';
  }
}

function nodeSvg(n: GraphNode, oy: number, interactive: boolean): string {
  const s = HEALTH_STYLE[n.health ?? 'none'];
  const y = n.y + oy;
  const status = statusLine(n);
  const full = [`${n.kind}/${n.name}`, n.namespace ? `namespace ${n.namespace}` : '', status, n.healthMessage ?? '', n.cause ? `reason: ${n.cause}` : '']
    .filter((l) => l !== '')
    .join('\n');
  const cls = [
    'node',
    `health-${(n.health ?? 'none').toLowerCase()}`,
    n.sync ? `sync-${n.sync.toLowerCase()}` : '',
    n.extra ? 'extra' : '',
    n.worst ? 'worst' : '',
  ]
    .filter((c) => c !== '')
    .join(' ');
  const attrs = interactive ? ` class="${cls}" data-node="${n.id}" tabindex="0" role="button"` : ` class="${cls}"`;
  const dash = n.extra ? ' stroke-dasharray="5 3"' : '';
  const outOfSync = n.sync === 'OutOfSync' ? `<rect x="${n.x + NODE_WIDTH - 10}" y="${y}" width="10" height="${NODE_HEIGHT}" rx="0" fill="#d97706"/>` : '';
  return [
    `<g${attrs}>`,
    `<title>${escapeXml(full)}</title>`,
    `<rect x="${n.x}" y="${y}" width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="6" fill="${s.fill}" stroke="${s.stroke}" stroke-width="${n.worst ? 3 : 1.5}"${dash}/>`,
    outOfSync,
    marker(n, n.x + 16, y + NODE_HEIGHT / 2),
    `<text x="${n.x + 30}" y="${y + 16}" font-size="10" fill="#374151">${escapeXml(cut(n.kind, 34))}</text>`,
    `<text x="${n.x + 30}" y="${y + 32}" font-size="12" font-weight="bold" fill="#111827">${escapeXml(cutMiddle(n.name, 30))}</text>`,
    `<text x="${n.x + 30}" y="${y + 47}" font-size="10" fill="#111827">${escapeXml(cut(status, 36))}</text>`,
    '</g>',
  ]
    .filter((l) => l !== '')
    .join('');
}

/** Renders the laid-out graph as an SVG document (same input, same bytes). */
export function renderSvg(g: Graph, opts: SvgOptions = {}): string {
  const oy = opts.title !== undefined ? TITLE_HEIGHT : 0;
  const height = g.height + oy;
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${g.width}" height="${height}" viewBox="0 0 ${g.width} ${height}" font-family="Helvetica, Arial, sans-serif" role="img" aria-label="live map">`,
    `<rect width="${g.width}" height="${height}" fill="#ffffff"/>`,
  ];
  if (opts.title !== undefined) out.push(`<text x="16" y="20" font-size="14" font-weight="bold" fill="#111827">${escapeXml(opts.title)}</text>`);
  for (const e of g.edges) {
    const a = byId.get(e.from);
    const b = byId.get(e.to);
    if (!a || !b) continue;
    const x1 = a.x + NODE_WIDTH;
    const y1 = a.y + oy + NODE_HEIGHT / 2;
    const x2 = b.x;
    const y2 = b.y + oy + NODE_HEIGHT / 2;
    const mid = x1 + COLUMN_GAP / 2;
    out.push(
      `<path d="M${x1} ${y1}C${mid} ${y1} ${mid} ${y2} ${x2} ${y2}" fill="none" stroke="${e.worst ? '#b91c1c' : '#9ca3af'}" stroke-width="${e.worst ? 2.5 : 1.2}"/>`,
    );
  }
  for (const n of g.nodes) out.push(nodeSvg(n, oy, opts.interactive === true));
  out.push('</svg>');
  return out.join('\n') + '\n';
}
