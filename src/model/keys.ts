// Annotation and label keys that carry meaning for Argo CD and for this tool.

export const TRACKING_ID = 'argocd.argoproj.io/tracking-id';
export const SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';
export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
export const COMPARE_OPTIONS = 'argocd.argoproj.io/compare-options';
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
export const DEFAULT_FIELD_MANAGER = 'argocd-controller';
export const DEFAULT_APP_NAMESPACE = 'argocd';
