// `diff` against the cluster: the core diff of every desired/live pair, ignored fields left to their owners, the app's extras,
// and with --server-side the result of a server-side apply dry-run plus a conflict preview that neither fails nor forces.
import type { ChildStatus } from '../../health/report.js';
import type { SourceRevision } from '../../app/types.js';
import type { RunContext } from '../../model/context.js';
import { ExitCode, UnrenderableError } from '../../model/errors.js';
import { appSync, compareExtras, compareObject, objectWarnings, reportedDiff, type CompareEntry, type ObjectComparison } from '../../diff/comparison.js';
import type { DiffReport, FieldDiff } from '../../diff/types.js';
import { DIFF_SCHEMA_VERSION } from '../../diff/types.js';
import { ApplyConflictError } from '../../kube/errors.js';
import type { KubeGateway } from '../../kube/gateway.js';
import { keyString, type JsonValue, type KubeObject, type ResourceKey } from '../../model/object.js';
import { parseServerField, renderPath, serverFieldText, type FieldPath } from '../../model/field-path.js';
import {
  compareEntries,
  compareEntryOf,
  diffOptionsOf,
  loadAppState,
  type AppStateArgs,
  type AppStateDeps,
  type AppTarget,
  type DesiredEntry,
} from '../session/app-state.js';

/** One field another manager owns that our apply would take (an SSA dry-run without force refused on it). */
export interface ConflictPreview {
  key: ResourceKey;
  /** The field as the diff prints it. */
  path: string;
  /** The field as the API server named it. */
  field: string;
  manager: string;
  subresource?: string;
  desired?: unknown;
  live?: unknown;
}

/** The live diff report: the core DiffReport (schemaVersion 1) plus the server-side preview. */
export interface LiveDiffReport extends Omit<DiffReport, 'sync'> {
  /** Unknown when the source could not be rendered as Argo CD would (`reason` says why; nothing was compared). */
  sync: DiffReport['sync'] | 'Unknown';
  reason?: string;
  app: string;
  /** The kubeconfig context the destination resolved to, and its server. */
  context?: string;
  server?: string;
  origin: string;
  revision?: string;
  /** Each entry of spec.sources and the revision it was read at (multi-source Applications). */
  sources?: SourceRevision[];
  /** The namespace the diff acted on: -n, else the Application's destination.namespace ('' when neither; absent when nothing was compared). */
  namespace?: string;
  serverSide: boolean;
  /** With --server-side: every field a non-forced apply would be refused on, with its manager. */
  conflicts: ConflictPreview[];
  /** Extras that Prune=false (or similar) protects: still OutOfSync, never pruned. */
  extrasSkipped: { key: ResourceKey; reason: string }[];
  /** `diff --recursive`: the child Applications among the desired objects, each compared afresh (app-of-apps). */
  children?: ChildStatus[];
}

/** `diff APP` against the cluster: where the app state comes from, and whether to compare by a server-side apply dry-run. */
export interface LiveDiffRequest extends AppStateArgs {
  serverSide: boolean;
}

/** Values at a human path are taken from the diff fields when known; otherwise from the objects by the pointer of a matching diff field. */
function conflictValues(fields: readonly FieldDiff[], path: string): { desired?: unknown; live?: unknown } {
  const f = fields.find((x) => renderPath(x.path) === path);
  if (!f) return {};
  return { ...(f.desired !== undefined ? { desired: f.desired } : {}), ...(f.live !== undefined ? { live: f.live } : {}) };
}

/**
 * Server-side: apply-dry-run without force (learning the conflicts), then forced (the predicted
 * object), and diff the desired object as the server would store it (`obj`: marked, see asApplied) against live.
 */
async function serverSideDiff(
  gw: KubeGateway,
  d: DesiredEntry,
  obj: KubeObject,
  live: KubeObject | undefined,
  ctx: { fieldManager: string },
): Promise<{ predicted?: KubeObject; conflicts: ConflictPreview[]; refused: FieldPath[]; warning?: string }> {
  try {
    const predicted = await gw.apply(d.type, obj, { fieldManager: ctx.fieldManager, force: false, dryRun: true });
    return { predicted, conflicts: [], refused: [] };
  } catch (err) {
    if (!(err instanceof ApplyConflictError))
      return { conflicts: [], refused: [], warning: `server-side dry-run failed, showing the plain diff: ${(err as Error).message}` };
    // The server names each field in its own text: read against the live object (a label key with dots is one key).
    const liveValue = live as unknown as JsonValue | undefined;
    const refused = err.conflicts.flatMap((c) => {
      const at = parseServerField(c.field, liveValue);
      return at ? [at] : [];
    });
    const conflicts: ConflictPreview[] = err.conflicts.map((c) => ({
      key: d.key,
      path: serverFieldText(c.field, liveValue),
      field: c.field,
      manager: c.manager,
      ...(c.subresource ? { subresource: c.subresource } : {}),
    }));
    try {
      const predicted = await gw.apply(d.type, obj, { fieldManager: ctx.fieldManager, force: true, dryRun: true });
      return { predicted, conflicts, refused };
    } catch (err2) {
      return { conflicts, refused, warning: `forced server-side dry-run failed, showing the plain diff: ${(err2 as Error).message}` };
    }
  }
}

/** Builds the live diff report from the one comparison (see diff/comparison.ts); never prints. */
export async function liveDiff(req: LiveDiffRequest, deps: AppStateDeps): Promise<LiveDiffReport> {
  const state = await loadAppState(req, deps, { extras: true });
  const { app } = state;
  const fieldManager = deps.opts.fieldManager;
  const opts = diffOptionsOf(state, fieldManager);
  const conflicts: ConflictPreview[] = [];

  // Each object is compared as soon as its dry-run answers, so the predicted objects (full objects with
  // managedFields) are not all held at once: at 5,000 objects that was the peak of the command's memory.
  // An app compared by server-side diff (its ServerSideDiff compare option) is diffed so without --server-side too, as
  // status compares it (the conflict preview is --server-side's alone).
  const predicted = !req.serverSide && state.serverSideDiff ? await compareEntries(state, fieldManager, deps.gateway) : undefined;
  const perObject = await Promise.all(
    state.desired.map(async (d, i) => {
      const entry: CompareEntry = predicted?.[i] ?? compareEntryOf(state, d);
      let warning: string | undefined;
      let objConflicts: ConflictPreview[] = [];
      if (req.serverSide && !d.pendingCrd) {
        const ss = await serverSideDiff(deps.gateway, d, entry.applied, entry.live, { fieldManager });
        warning = ss.warning;
        objConflicts = ss.conflicts;
        entry.server = { ...(ss.predicted ? { predicted: ss.predicted } : {}), conflicts: ss.refused.map((at) => ({ at })) };
      }
      let object: ObjectComparison;
      try {
        object = await compareObject(entry, opts);
      } catch (err) {
        throw new Error(`diffing ${d.key.kind}/${d.key.name}`, { cause: err });
      }
      if (warning) object.warnings = [...(object.warnings ?? []), warning];
      // Live, but of a kind or a namespace the AppProject does not permit: compared as not live, as Argo CD compares it.
      const refused = state.notPermitted?.get(keyString(d.key));
      if (refused !== undefined) object.warnings = [...(object.warnings ?? []), `${refused}: live, but compared as not live, as Argo CD compares it`];
      for (const c of objConflicts) Object.assign(c, conflictValues(object.fields, c.path));
      return { object, objConflicts };
    }),
  );
  const objects = perObject.map((p) => p.object);
  for (const p of perObject) conflicts.push(...p.objConflicts);

  const candidates = state.prune?.candidates ?? [];
  // An extra annotated compare-options: IgnoreExtraneous is listed but does not make the app OutOfSync (as in status).
  const extras = compareExtras(candidates.map((c) => ({ key: c.key, object: c.object, ...(c.skip ? { skip: c.skip } : {}) })));
  return {
    schemaVersion: DIFF_SCHEMA_VERSION,
    sync: appSync(objects, extras),
    objects: objects.map(reportedDiff),
    extras: extras.map((e) => e.key),
    warnings: [...state.warnings, ...objectWarnings(objects)],
    app: app.name,
    ...(state.target ? { context: state.target.context, server: state.target.server } : {}),
    origin: state.origin,
    ...(state.revision ? { revision: state.revision } : {}),
    ...(state.sources ? { sources: state.sources } : {}),
    namespace: state.destinationNamespace,
    serverSide: req.serverSide,
    conflicts,
    extrasSkipped: extras.filter((e) => e.skip).map((e) => ({ key: e.key, reason: e.skip as string })),
  };
}

/** The `diff` command in cluster mode: connect to the destination and compare (the report of Unknown when the source cannot be rendered). */
export async function diffAgainstCluster(req: LiveDiffRequest, ctx: RunContext): Promise<LiveDiffReport> {
  const { withAppTarget } = await import('../session/session.js');
  return withAppTarget(ctx, 'diff', req, async (session) => {
    const deps = { io: ctx.io, opts: ctx.opts, ...session };
    try {
      return await liveDiff(req, deps);
    } catch (err) {
      if (!(err instanceof UnrenderableError)) throw err;
      return unknownDiff(err, err.app ?? req.app ?? req.appFile ?? '', session.target, req.serverSide);
    }
  });
}

/** A live diff's exit code: 0 in sync, 1 drift, 4 when the source cannot be rendered. */
export function liveDiffExitCode(report: LiveDiffReport): ExitCode {
  if (report.sync === 'Unknown') return ExitCode.Refused;
  const childDrift = (cs: readonly ChildStatus[]): boolean => cs.some((c) => c.sync !== 'Synced' || childDrift(c.children ?? []));
  return report.sync === 'Synced' && !childDrift(report.children ?? []) ? ExitCode.Ok : ExitCode.Drift;
}

/** The report of a diff that compared nothing: the source cannot be rendered as Argo CD would. */
function unknownDiff(err: UnrenderableError, app: string, target: AppTarget, serverSide: boolean): LiveDiffReport {
  return {
    schemaVersion: DIFF_SCHEMA_VERSION,
    sync: 'Unknown',
    reason: err.reasons.join('; '),
    objects: [],
    extras: [],
    warnings: [...target.warnings],
    app,
    context: target.context,
    server: target.server,
    origin: '',
    serverSide,
    conflicts: [],
    extrasSkipped: [],
  };
}
