// Argo CD's tracking-id annotation, `<app>:<group>/<kind>:<namespace>/<name>`: build, parse, self-reference.
//
// Rules (Argo CD's util/argo/resource_tracking.go, BuildAppInstanceValue): the core group is empty (`shop:/ConfigMap:ns/cm`); a
// cluster-scoped object carries the app's destination namespace; the app part is the
// Application's name when it lives in the control-plane namespace, else `<namespace>_<name>`.
// We take the control-plane namespace to be `argocd` (Argo CD's default install) unless a
// caller says otherwise; `--app-namespace` only says where to read the Application from.
import { DEFAULT_APP_NAMESPACE, TRACKING_ID } from '../model/keys.js';
import type { KubeObject, ResourceKey } from '../model/object.js';
import { keyOf } from '../model/object.js';
import { DEFAULT_TRACKING, INSTALLATION_ID, truncateLabel, type Tracking } from './method.js';

const CONTROL_PLANE_NAMESPACE = DEFAULT_APP_NAMESPACE;

/** A parsed tracking-id: the app part plus the coordinates of the object the mark claims to be on. */
export interface TrackingId {
  app: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

export type ParsedTrackingId = { ok: true; id: TrackingId } | { ok: false; error: string };

export const WRONG_FORMAT = 'wrong resource tracking format, should be <application-name>:<group>/<kind>:<namespace>/<name>';

/** The app part of the ids an Application writes (Argo CD's `InstanceName`). */
export function instanceName(app: { name: string; namespace: string }, controlPlaneNamespace = CONTROL_PLANE_NAMESPACE): string {
  return app.namespace === '' || app.namespace === controlPlaneNamespace ? app.name : `${app.namespace}_${app.name}`;
}

/** The id value for an object; an object without a namespace gets the destination namespace. */
export function buildTrackingId(appInstance: string, key: ResourceKey, destinationNamespace: string): string {
  const ns = key.namespace !== '' ? key.namespace : destinationNamespace;
  return `${appInstance}:${key.group}/${key.kind}:${ns}/${key.name}`;
}

/** Parses a value as Argo CD does (split on the first two `:`, then each half on `/` into exactly two). */
export function parseTrackingId(value: string): ParsedTrackingId {
  const first = value.indexOf(':');
  const second = first < 0 ? -1 : value.indexOf(':', first + 1);
  if (first < 0 || second < 0) return { ok: false, error: WRONG_FORMAT };
  const app = value.slice(0, first);
  const gk = value.slice(first + 1, second).split('/');
  const nn = value.slice(second + 1).split('/');
  if (gk.length !== 2 || nn.length !== 2) return { ok: false, error: WRONG_FORMAT };
  const [group, kind] = gk as [string, string];
  const [namespace, name] = nn as [string, string];
  if (app === '') return { ok: false, error: 'tracking-id has an empty application name' };
  return { ok: true, id: { app, group, kind, namespace, name } };
}

/** Argo CD's self-reference rule: the mark names this very object (a cluster-scoped object matches any namespace). */
export function isSelfReferenced(key: ResourceKey, id: TrackingId): boolean {
  return (key.namespace === id.namespace || key.namespace === '') && key.name === id.name && key.group === id.group && key.kind === id.kind;
}

/**
 * A copy of the object carrying this app's mark as the tracking method writes it (SetAppInstance): the
 * tracking-id annotation (and the installation id when one is set), the instance label with the app
 * instance as its value, or both (the label then cut to 63 characters). The input is not changed.
 */
export function stampTrackingId(obj: KubeObject, appInstance: string, destinationNamespace: string, tracking: Tracking = DEFAULT_TRACKING): KubeObject {
  const metadata = { ...obj.metadata };
  if (tracking.method !== 'label') {
    const annotations: Record<string, string> = {
      ...(obj.metadata.annotations ?? {}),
      [TRACKING_ID]: buildTrackingId(appInstance, keyOf(obj), destinationNamespace),
    };
    if (tracking.installationID !== '') annotations[INSTALLATION_ID] = tracking.installationID;
    else delete annotations[INSTALLATION_ID];
    metadata.annotations = annotations;
  }
  if (tracking.method !== 'annotation') {
    const value = tracking.method === 'label' ? appInstance : truncateLabel(appInstance);
    metadata.labels = { ...(obj.metadata.labels ?? {}), [tracking.labelKey]: value };
    if (tracking.labelKey === LEGACY_APP_NAME_LABEL) return labelPodTemplate({ ...obj, metadata }, value);
  }
  return { ...obj, metadata };
}

/** The instance label key of Argo CD v0.10 and before (common.LabelKeyLegacyApplicationName). */
const LEGACY_APP_NAME_LABEL = 'applications.argoproj.io/app-name';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * With the legacy instance label key, Argo CD also labels the pod template (util/kube SetAppInstanceLabel): of an
 * apps/extensions Deployment, ReplicaSet, StatefulSet or DaemonSet and of a batch Job, `spec.template.metadata.labels`
 * gets the label; an apps/v1beta1 or extensions/v1beta1 one without a `spec.selector` gets the template's other labels
 * as `spec.selector.matchLabels` (so the server does not default the selector to include the label). A `spec`,
 * `template` or `metadata` that is not a map is left as it is (Argo CD fails on it; the server refuses such an object).
 */
function labelPodTemplate(obj: KubeObject, value: string): KubeObject {
  const slash = obj.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : obj.apiVersion.slice(0, slash);
  const workload = (group === 'apps' || group === 'extensions') && ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet'].includes(obj.kind);
  if (!workload && !(group === 'batch' && obj.kind === 'Job')) return obj;
  const o = obj as unknown as Json;
  const spec = o.spec ?? {};
  if (!isMap(spec)) return obj;
  const template = spec.template ?? {};
  if (!isMap(template)) return obj;
  const meta = template.metadata ?? {};
  if (!isMap(meta)) return obj;
  const old = meta.labels;
  if (old !== undefined && old !== null && !isMap(old)) return obj;
  const labels: Json = { ...(old ?? {}), [LEGACY_APP_NAME_LABEL]: value };
  const newSpec: Json = { ...spec, template: { ...template, metadata: { ...meta, labels } } };
  if (workload && (obj.apiVersion === 'apps/v1beta1' || obj.apiVersion === 'extensions/v1beta1')) {
    const selector = spec.selector;
    if (selector === undefined || selector === null || (isMap(selector) && Object.keys(selector).length === 0)) {
      const { [LEGACY_APP_NAME_LABEL]: _ours, ...matchLabels } = labels;
      newSpec.selector = { matchLabels };
    }
  }
  return { ...obj, spec: newSpec } as KubeObject;
}

/**
 * The desired object as a sync applies it and as Argo CD compares it (controller/state.go sets the
 * app instance on every target object before diffing): carrying this app's tracking-id, so that a
 * live object that lost its mark, or carries another app's, is out of sync. CRDs are applied and
 * compared unmarked: Argo CD skips them, so they are never pruned with their custom resources.
 */
export function asApplied(obj: KubeObject, appInstance: string, destinationNamespace: string, tracking: Tracking = DEFAULT_TRACKING): KubeObject {
  return obj.kind === 'CustomResourceDefinition' ? obj : stampTrackingId(obj, appInstance, destinationNamespace, tracking);
}

/** The object's tracking-id annotation, if any. */
export function trackingIdOf(obj: KubeObject): string | undefined {
  return obj.metadata.annotations?.[TRACKING_ID];
}
