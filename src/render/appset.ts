// Renders `appset generate`: the generated Applications as one YAML stream or a JSON List (as `manifests` prints
// objects), or stable KEY=value lines for scripts; what the controller would not write is a warning (appsetWarnings).
import type { AppSetGenerateReport } from '../workflows/appset/generate.js';
import type { OutputFormat } from './colour.js';
import { renderManifests } from './manifests.js';

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
