// The Argo CD Application (argoproj.io/v1alpha1) as this tool reads it: the declaration of the loop.
import type { JsonValue, PropagationPolicy } from '../model/object.js';
import type { SourceOptions } from './source-options.js';

/** One `spec.ignoreDifferences[]` entry (Argo CD semantics: group/kind globs, name/namespace exact or empty). */
export interface IgnoreDifference {
  group: string;
  kind: string;
  name?: string;
  namespace?: string;
  jsonPointers: string[];
  jqPathExpressions: string[];
  managedFieldsManagers: string[];
  /** Where a rule that is not the Application's own comes from (argocd-cm's key); absent for spec.ignoreDifferences. */
  source?: string;
}

/** `spec.syncPolicy.syncOptions`, parsed; unknown options are kept as warnings, never dropped silently. */
export interface SyncOptions {
  createNamespace: boolean;
  pruneLast: boolean;
  serverSideApply: boolean;
  applyOutOfSyncOnly: boolean;
  respectIgnoreDifferences: boolean;
  failOnSharedResource: boolean;
  prunePropagationPolicy: PropagationPolicy;
  /** App-level `Prune=false` default (the per-resource annotation wins). */
  prune: boolean;
  /** App-level `Prune=confirm`: a sync prunes nothing until the deletion is approved (the per-resource annotation wins). */
  pruneConfirm?: boolean;
  /** `ClientSideApplyMigration=false` turns off the migration of a client-side manager's fields (on by default, as Argo CD v3). */
  clientSideApplyMigration?: boolean;
  /** App-level `Replace=true`: every object is replaced (PUT, or created) instead of applied; an annotation cannot switch it off (gitops-engine ORs the two). */
  replace?: boolean;
  /** App-level `Validate=false`: the API server ignores unknown fields (fieldValidation=Ignore); the annotation wins. */
  validate?: boolean;
  /** App-level `SkipDryRunOnMissingResource=true`: a kind the cluster does not serve yet is applied when its wave comes; the annotation wins. */
  skipDryRunOnMissingResource?: boolean;
  /**
   * App-level `Delete=false` or `Delete=confirm` (the first `Delete=` entry, as Argo CD's GetOptionValue reads it): what
   * `delete` does with an object whose own annotation says nothing (controller/appcontroller.go shouldBeDeleted).
   */
  delete?: 'false' | 'confirm' | 'true';
  /** `sync --force` (Argo CD's SyncStrategy force, no syncOptions entry): every object is applied as if annotated Force=true. */
  force?: boolean;
}

export interface AutomatedPolicy {
  prune: boolean;
  selfHeal: boolean;
  allowEmpty: boolean;
}

/** `spec.syncPolicy.retry`: how a failed sync operation is tried again (Argo CD's RetryStrategy, defaults filled in). */
export interface RetryPolicy {
  /** Attempts after the first; -1 for no limit. */
  limit: number;
  durationMs: number;
  factor: number;
  maxDurationMs: number;
  /** `refresh: true`: each retry reads the source's revision again; otherwise it retries the revision the first attempt synced. */
  refresh?: boolean;
}

/** One entry of `spec.sources` (or `spec.source`): where its files come from and how they are rendered. */
export interface AppSource {
  repoURL?: string;
  path?: string;
  targetRevision?: string;
  /** `ref: name`: the source's files are `$name/...` for the value files of the others. */
  ref?: string;
  /** `name`: a label for the source (Argo CD's ApplicationSource.name). */
  name?: string;
  options?: SourceOptions;
  /** The rendering keys as written (as Application.sourceOptions), for parameter override files. */
  sourceOptions?: Record<string, JsonValue>;
}

/** What one source of a multi-source Application was read at, for status and diff. */
export interface SourceRevision {
  repoURL: string;
  path?: string;
  chart?: string;
  ref?: string;
  targetRevision?: string;
  /** The commit SHA (or the chart version) that was read. */
  revision: string;
  /** How it was rendered (Directory, Kustomize, Helm); absent for a source that only lends its files (`ref`, no path). */
  type?: string;
}

export interface Application {
  /** metadata.name */
  name: string;
  /** metadata.namespace: where the Application object lives. */
  namespace: string;
  source: { repoURL?: string; path?: string; targetRevision?: string; options?: SourceOptions };
  /** How many entries `spec.sources` has (0 when the Application uses `spec.source`); `source` is then the first. */
  sourcesCount: number;
  /** Every entry of `spec.sources`, in order (absent when the Application uses `spec.source`). */
  sources?: AppSource[];
  /** The source's rendering keys as written (`chart`, `helm`, `kustomize`, `plugin`, `directory`, `ref`), for the render check. */
  sourceOptions: Record<string, JsonValue>;
  destination: { namespace?: string; server?: string; name?: string };
  /** spec.project (ARGOCD_APP_PROJECT_NAME in a render's environment; Argo CD reads an empty one as `default`). */
  project?: string;
  /** Absent when the app has no `syncPolicy.automated` (manual sync). */
  automated?: AutomatedPolicy;
  syncOptions: SyncOptions;
  /**
   * spec.syncPolicy.managedNamespaceMetadata: with CreateNamespace=true, the labels and annotations the sync applies onto
   * the destination namespace (Argo CD's syncNamespace); absent when the Application sets none.
   */
  managedNamespaceMetadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  /**
   * managedNamespaceMetadata differs from the one the last sync recorded (status.operationState.syncResult): the app is
   * OutOfSync until it is synced again (Argo CD's HasChangedManagedNamespaceMetadata).
   */
  managedNamespaceMetadataChanged?: true;
  /** Absent when the Application sets no retry. */
  retry?: RetryPolicy;
  ignoreDifferences: IgnoreDifference[];
  /** Human-readable warnings: unsupported options, ignored fields. */
  warnings: string[];
  /** Where it was read from (a file path, or `cluster`), for error messages. */
  origin: string;
  /**
   * What approves a prune that needs confirmation (Prune=confirm), as Argo CD reads it: the time in the
   * `argocd.argoproj.io/deletion-approved` annotation, and the start of a stored operation still waiting for it.
   */
  pruneApproval?: { approvedAt?: string; waitingSince?: string };
  /** metadata.deletionTimestamp: the Application is being deleted (Terminating, held by its finalizers). */
  deletingSince?: string;
  /**
   * spec.sourceHydrator: the app is compared and synced from the hydrated manifests (`source` is its syncSource: the dry
   * repoURL at syncSource.targetBranch and path, as Argo CD's GetSource); the dry source is hydrated by Argo CD's commit
   * server, not by this tool.
   */
  hydrator?: {
    drySource: { repoURL: string; targetRevision: string; path: string };
    syncSource: { targetBranch: string; path: string };
    hydrateTo?: { targetBranch: string };
  };
  /**
   * The Application's `argocd.argoproj.io/compare-options` that change how it is compared: `ServerSideDiff=true|false`
   * (absent: the controller's setting, argocd-cmd-params-cm `controller.diff.server.side`) and `IncludeMutationWebhook=true`.
   */
  compareOptions?: { serverSideDiff?: boolean; includeMutationWebhook?: boolean };
  /** `argocd.argoproj.io/client-side-apply-migration-manager`: the client-side manager whose fields a server-side sync takes over. */
  csaMigrationManager?: string;
  /** The operation the Application records (status.operationState) or has requested (top-level `operation`), when any. */
  operation?: OperationProgress;
  /** status.conditions as stored (ComparisonError, SharedResourceWarning, SyncError, …), for `status` to show. */
  conditions?: { type: string; message: string }[];
  /**
   * The namespaces of the objects status.resources lists (the last comparison's record, Argo CD's or this tool's),
   * sorted, absent when none: the prune scan covers them too, so an object left behind in a namespace that no desired
   * object is in any more (a child Application in argocd, removed from its parent's render) is still found.
   */
  recordedNamespaces?: string[];
}

/** Where the Application's sync operation stands, as `argocd app wait --operation` reads it. */
export interface OperationProgress {
  /** A top-level `operation` is set: an operation was requested and no controller has taken it yet. */
  requested: boolean;
  /** status.operationState.phase (Running, Terminating, Succeeded, Failed, Error), when recorded. */
  phase?: string;
  message?: string;
  /** status.operationState.finishedAt: absent while the operation runs. */
  finishedAt?: string;
  /** status.operationState.startedAt. */
  startedAt?: string;
  /** The revision(s) the operation synced (operationState.syncResult.revision, or .revisions for several sources). */
  revision?: string;
}
