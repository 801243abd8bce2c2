// `status --tree -o dot|svg`: the status report's live map as Graphviz text or an SVG picture; undefined for the other formats.
import type { StatusReport } from '../health/report.js';
import type { OutputFormat } from './colour.js';
import { appGraph } from './graph.js';
import { renderDot } from './graph-dot.js';
import { renderSvg } from './graph-svg.js';

/** The map's title: the app and its two axes, with the reason when there is one. */
function graphTitle(r: StatusReport): string {
  return `Application ${r.app.namespace}/${r.app.name}: ${r.sync.status}, ${r.health.status}`;
}

export function renderStatusGraph(r: StatusReport, output: OutputFormat): string | undefined {
  if (output === 'dot') return renderDot(appGraph(r));
  if (output === 'svg') return renderSvg(appGraph(r), { title: graphTitle(r) });
  return undefined;
}
