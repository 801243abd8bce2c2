// Annotation and label keys that carry meaning for Argo CD and for this tool.

export const TRACKING_ID = 'argocd.argoproj.io/tracking-id';
export const SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';
export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
/** argocd-cm's application.instanceLabelKey when it sets none (label tracking's label). */
export const DEFAULT_INSTANCE_LABEL_KEY = 'app.kubernetes.io/instance';
export const COMPARE_OPTIONS = 'argocd.argoproj.io/compare-options';
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
export const DEFAULT_FIELD_MANAGER = 'argocd-controller';
export const DEFAULT_APP_NAMESPACE = 'argocd';
/** Argo CD's control-plane namespace: where its cluster Secrets (and by default its Applications) live. */
export const CONTROL_PLANE_NAMESPACE = 'argocd';
/** Argo CD's namespace as given (--argocd-namespace; the Applications of `list` and the dashboard give none), else the default. */
export function controlPlaneNamespace(given: string | undefined): string {
  return given || CONTROL_PLANE_NAMESPACE;
}
/** The label that makes a Secret one of Argo CD's cluster Secrets (`=cluster`). */
export const SECRET_TYPE = 'argocd.argoproj.io/secret-type';
