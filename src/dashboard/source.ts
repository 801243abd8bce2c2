// What the server serves, made from what the dashboard workflow keeps: each app's last comparison turned into its view
// (map, SVG, field tables) once per comparison, and a node's live object as YAML.
import { yamlText } from '../render/yaml-text.js';
import type { StatusReport } from '../health/report.js';
import type { DiffReport } from '../diff/types.js';
import type { KubeObject, ResourceKey } from '../model/object.js';
import { appView, DASHBOARD_SCHEMA_VERSION, type AppRow, type AppView } from './view.js';
import type { DashboardEvent, DashboardSource } from './server.js';

/** One app as the workflow last compared it (no report while the first comparison runs or when it failed). */
export interface ComparedApp {
  row: AppRow;
  report?: StatusReport;
  /** The live diff, for apps with a drifted object (their field tables). */
  diff?: Pick<DiffReport, 'objects'>;
  warnings: string[];
}

/** What the workflow (workflows/dashboard.ts) offers: data and reports, nothing drawn. */
export interface DashboardData {
  list(): { apps: AppRow[]; loading: boolean };
  app(id: string): ComparedApp | undefined;
  /** One of the app's live objects, as displayObject() shows it (Secrets masked), or why it cannot be had. */
  liveObject(appId: string, key: ResourceKey): Promise<{ object?: KubeObject; error?: string }>;
  refresh(appId?: string): void;
  subscribe(fn: (ev: DashboardEvent) => void): () => void;
}

/** The server's source over the workflow's data; views are made once per comparison (or row change) and kept. */
export function viewSource(data: DashboardData, now: () => Date = () => new Date()): DashboardSource {
  // A view is made again when its app's row, or the row of a child Application it draws, changed.
  const views = new Map<string, { row: AppRow; children: [string, AppRow | undefined][]; view: AppView }>();
  const viewOf = (id: string): AppView | undefined => {
    const c = data.app(id);
    if (!c) {
      views.delete(id);
      return undefined;
    }
    const hit = views.get(id);
    if (hit && hit.row === c.row && hit.children.every(([child, row]) => data.app(child)?.row === row)) return hit.view;
    const view: AppView = c.report
      ? appView(c.row, c.report, c.diff, c.warnings, now(), (child) => data.app(child)?.row)
      : { schemaVersion: DASHBOARD_SCHEMA_VERSION, row: c.row, svg: '', nodes: [], warnings: [...c.warnings] };
    const children = view.nodes.flatMap((n): [string, AppRow | undefined][] => (n.app ? [[n.app.id, data.app(n.app.id)?.row]] : []));
    views.set(id, { row: c.row, children, view });
    return view;
  };
  return {
    list: () => {
      const l = data.list();
      const ids = new Set(l.apps.map((a) => a.id));
      for (const id of views.keys()) if (!ids.has(id)) views.delete(id);
      return { loading: l.loading, apps: l.apps.map((r) => viewOf(r.id)?.row ?? r) };
    },
    app: viewOf,
    node: async (appId, nodeId) => {
      const node = viewOf(appId)?.nodes.find((n) => n.id === nodeId);
      if (!node) return undefined;
      if (!node.key) return { node };
      const live = await data.liveObject(appId, node.key);
      return {
        node,
        ...(live.object ? { yaml: yamlText(live.object) } : {}),
        ...(live.error ? { error: live.error } : {}),
      };
    },
    refresh: (id) => data.refresh(id),
    subscribe: (fn) => data.subscribe(fn),
  };
}
