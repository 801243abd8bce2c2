// Renders build information in every output mode.
import { stringify } from 'yaml';
import type { VersionInfo } from '../version.js';
import type { OutputFormat } from './colour.js';

export function renderVersion(v: VersionInfo, output: OutputFormat): string {
  switch (output) {
    case 'json':
      return JSON.stringify(v, null, 2) + '\n';
    case 'yaml':
      return stringify(v);
    case 'kv':
      return `VERSION=${v.version}\nGIT_COMMIT=${v.gitCommit}\nNODE_VERSION=${v.nodeVersion}\nPLATFORM=${v.platform}/${v.arch}\n`;
    default:
      return `kubectl-gitops ${v.version} (commit ${v.gitCommit}, node ${v.nodeVersion}, ${v.platform}/${v.arch})\n`;
  }
}
