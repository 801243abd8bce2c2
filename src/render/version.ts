// Renders build information in every output mode.
import { renderDocument } from './document.js';
import type { VersionInfo } from '../version.js';
import type { OutputFormat } from './colour.js';

export function renderVersion(v: VersionInfo, output: OutputFormat): string {
  return renderDocument(v, output, {
    kv: () => `VERSION=${v.version}\nGIT_COMMIT=${v.gitCommit}\nNODE_VERSION=${v.nodeVersion}\nPLATFORM=${v.platform}/${v.arch}\n`,
    table: () => `kubectl-gitops ${v.version} (commit ${v.gitCommit}, node ${v.nodeVersion}, ${v.platform}/${v.arch})\n`,
  });
}
