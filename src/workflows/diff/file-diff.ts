// File-mode diff: desired manifests against live objects read from files, ignore rules from an optional Application file.
import { loadJq } from '../../jq/load.js';
import type { Io } from '../../model/context.js';
import { InputError } from '../../model/errors.js';
import type { Application } from '../../app/types.js';
import { loadApplicationFile } from '../../app/application.js';
import { loadManifests } from '../../manifest/index.js';
import type { ManifestObject } from '../../manifest/parse.js';
import { DIFF_SCHEMA_VERSION, type DiffPair, type DiffReport } from '../../diff/index.js';
import { compareApp, firstFailure, reportedDiff } from '../../diff/comparison.js';
import { asApplied, instanceName } from '../../tracking/tracking-id.js';
import { DEFAULT_TRACKING } from '../../tracking/method.js';
import type { KubeObject } from '../../model/object.js';
import { keyOf, keyString } from '../../model/object.js';
import { hookOf } from '../../sync/hooks.js';

export interface FileDiffRequest {
  desired: string;
  live: string;
  appFile?: string;
  /** Namespace for desired objects that declare none (else the Application's destination namespace). */
  namespace?: string;
  fieldManager: string;
  io?: Pick<Io, 'readStdin'>;
  /** Render `desired` (a folder) like a source (--render), with these tools. */
  render?: {
    env: Record<string, string | undefined>;
    kustomize?: string;
    kustomizeBuildOptions?: string;
    helm?: string;
    kubeVersion?: string;
    apiVersions?: string[];
  };
  /** argocd-cm from a file: its system-wide ignore rules apply after the Application's. */
  argocdCm?: string;
}

export interface FileDiffResult {
  report: DiffReport;
  app?: Application;
}

/**
 * Pairs desired with live objects by group/kind/namespace/name. A desired object without a
 * namespace matches a live one without namespace (cluster-scoped), else one in the default namespace.
 */
export function pairObjects(desired: readonly ManifestObject[], live: readonly ManifestObject[], defaultNamespace?: string): DiffPair[] {
  const byKey = new Map<string, KubeObject>();
  for (const l of live) byKey.set(keyString(keyOf(l.object)), l.object);
  return desired.map(({ object }) => {
    const key = keyOf(object);
    let match = byKey.get(keyString(key));
    if (!match && !key.namespace && defaultNamespace) match = byKey.get(keyString({ ...key, namespace: defaultNamespace }));
    return match ? { desired: object, live: match } : { desired: object };
  });
}

export async function runFileDiff(req: FileDiffRequest): Promise<FileDiffResult> {
  if (req.desired === '-' && req.live === '-') throw new InputError('--desired and --live cannot both read standard input (-)');
  if (req.appFile === '-' && (req.desired === '-' || req.live === '-'))
    throw new InputError(`-f/--app-file and --${req.desired === '-' ? 'desired' : 'live'} cannot both read standard input (-)`);
  const app = req.appFile ? await loadApplicationFile(req.appFile, req.io ? { io: req.io } : {}) : undefined;
  let desired: ManifestObject[];
  if (req.render) {
    const { renderLocalDirectory } = await import('../../source/index.js');
    const { kubeVersion, apiVersions, ...tools } = req.render;
    // No cluster: Helm's capabilities are the flags' (else Helm's own defaults).
    const capabilities = { kubeVersion: kubeVersion ?? '', apiVersions: apiVersions ?? [] };
    const rendered = await renderLocalDirectory(
      req.desired,
      app,
      { ...tools, capabilities: async () => capabilities, ...(req.namespace !== undefined ? { namespace: req.namespace } : {}) },
      { env: req.render.env },
    );
    // Hooks (a chart's helm.sh/hook objects among them) run in sync phases: not compared, as in the live diff.
    desired = rendered.objects.filter((o) => hookOf(o.object) === undefined);
  } else {
    desired = await loadManifests(req.desired, req.io);
  }
  const live = await loadManifests(req.live, req.io);
  const pairs = pairObjects(desired, live, req.namespace ?? app?.destination.namespace);
  const settings = req.argocdCm ? await (await import('../session/rules.js')).readArgoSettingsFile(req.argocdCm) : undefined;
  // With an Application, each desired object is compared as the cluster diff compares it: marked with the app's tracking.
  const destinationNamespace = req.namespace ?? app?.destination.namespace ?? '';
  const tracking = settings ? { method: settings.trackingMethod, labelKey: settings.instanceLabelKey, installationID: settings.installationID } : undefined;
  const mark = (o: KubeObject): KubeObject => (app ? asApplied(o, instanceName(app), destinationNamespace, tracking) : o);
  const comparison = await compareApp({
    desired: pairs.map((p) => ({ key: keyOf(p.desired), applied: mark(p.desired), declared: p.desired, ...(p.live ? { live: p.live } : {}) })),
    rules: [...(app?.ignoreDifferences ?? []), ...(settings?.ignoreDifferences ?? [])],
    fieldManager: req.fieldManager,
    jq: loadJq,
    // With an Application, Argo CD's tracking normalization before the diff (resource_tracking.go Normalize).
    ...(app ? { tracking: tracking ?? DEFAULT_TRACKING } : {}),
    ...(settings
      ? {
          ignoreResourceStatusField: settings.compareOptions.ignoreResourceStatusField,
          knownTypeFields: settings.knownTypeFields,
          sensitiveAnnotations: settings.sensitiveAnnotations,
        }
      : {}),
  });
  const failed = firstFailure(comparison);
  if (failed) throw failed;
  const report: DiffReport = {
    schemaVersion: DIFF_SCHEMA_VERSION,
    sync: comparison.sync,
    objects: comparison.objects.map(reportedDiff),
    extras: [],
    warnings: comparison.warnings,
  };
  return app ? { report, app } : { report };
}
