// `history`: the deployments recorded in the Application's status.history (by sync, as Argo CD's controller records them).
import { applicationNotFound } from '../session/application-source.js';
import { InputError } from '../../model/errors.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { KubeObject } from '../../model/object.js';
import { historyLimit, historyOf, type HistoryEntry } from '../../record/app-status.js';

export const HISTORY_SCHEMA_VERSION = 1;

/** What `history -o json` prints (schemaVersion 1): the entries oldest first, as stored. */
export interface HistoryReport {
  schemaVersion: typeof HISTORY_SCHEMA_VERSION;
  app: { name: string; namespace: string };
  /** spec.revisionHistoryLimit (10 when unset). */
  limit: number;
  entries: HistoryEntry[];
}

/** GETs the Application object as stored (spec and status); an absent CRD or object is an input error. */
export async function readApplicationObject(gw: KubeGateway, namespace: string, name: string): Promise<KubeObject> {
  const { preferred } = await gw.discover();
  const type = preferred.find((t) => t.group === 'argoproj.io' && t.kind === 'Application');
  if (!type) throw new InputError('the cluster does not serve argoproj.io Applications (no Argo CD CRD)');
  const obj = await gw.get(type, namespace, name);
  if (!obj) throw await applicationNotFound(gw, type, namespace, name, '(use --app-namespace)');
  return obj;
}

export function historyReport(app: KubeObject): HistoryReport {
  return {
    schemaVersion: HISTORY_SCHEMA_VERSION,
    app: { name: app.metadata.name ?? '', namespace: app.metadata.namespace ?? '' },
    limit: historyLimit(app),
    entries: historyOf(app),
  };
}

export async function runHistory(gw: KubeGateway, ref: { namespace: string; name: string }): Promise<HistoryReport> {
  return historyReport(await readApplicationObject(gw, ref.namespace, ref.name));
}
