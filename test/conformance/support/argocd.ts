// Helpers for the conformance suite: Applications that Argo CD's own controller reconciles, its verdict
// (read from the Application's status after a hard refresh, once that status is a comparison made after the last
// change, of the commit the repository holds), kubectl-gitops's verdict on the same Application (of the same commit),
// and the resource-by-resource differences between the two.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectl, kubectlOk, runPlugin, TEST_RUN_LABEL, testRunId } from '../../integration/support/index.js';
import { staleness } from './current.js';

/** How long a poll of Argo CD may take before the test fails (a refresh takes seconds here). */
const POLL_LIMIT_MS = 90_000;
const POLL_EVERY_MS = 500;

export interface AppSpec {
  name: string;
  repoURL: string;
  path: string;
  namespace: string;
  syncOptions?: string[];
  ignoreDifferences?: Record<string, unknown>[];
  /** More of spec.source (helm, kustomize, directory options), as written. */
  source?: Record<string, unknown>;
  /** spec.sources instead of spec.source (repoURL and path above are then not used), each as written. */
  sources?: Record<string, unknown>[];
  /**
   * The Application's own namespace (default `argocd`, the control plane's). Another one must be among those the
   * controller reconciles (test/argocd/up: `conf-apps-*`) and the default AppProject's sourceNamespaces.
   */
  appNamespace?: string;
}

/** The namespace of each Application `application` made outside `argocd`, by name (the helpers below find it there). */
const appNamespaces = new Map<string, string>();

/** Where the Application of this name lives: `argocd` unless `application` was given another namespace for it. */
function appNamespaceOf(name: string): string {
  return appNamespaces.get(name) ?? 'argocd';
}

/** An Application in `argocd` with a manual sync policy, labelled with this run's id (the teardown deletes it). */
export function application(spec: AppSpec): Record<string, unknown> {
  if (spec.appNamespace && spec.appNamespace !== 'argocd') appNamespaces.set(spec.name, spec.appNamespace);
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: spec.name, namespace: spec.appNamespace ?? 'argocd', labels: { [TEST_RUN_LABEL]: testRunId() } },
    spec: {
      project: 'default',
      ...(spec.sources ? { sources: spec.sources } : { source: { repoURL: spec.repoURL, path: spec.path, targetRevision: 'HEAD', ...(spec.source ?? {}) } }),
      destination: { server: 'https://kubernetes.default.svc', namespace: spec.namespace },
      ...(spec.ignoreDifferences ? { ignoreDifferences: spec.ignoreDifferences } : {}),
      ...(spec.syncOptions ? { syncPolicy: { syncOptions: spec.syncOptions } } : {}),
    },
  };
}

/** When each Application was last applied (epoch ms, taken just before): its first reconciliation must not be older. */
const appliedAt = new Map<string, number>();

/** Creates (or replaces the spec of) the Application in the cluster; Argo CD starts reconciling it at once. */
export async function applyApplication(app: Record<string, unknown>): Promise<void> {
  const name = String((app.metadata as { name?: unknown } | undefined)?.name);
  appliedAt.set(name, Date.now());
  await kubectlOk(['apply', '-f', '-'], { stdin: JSON.stringify(app) });
}

/** The commit a `file://` source names now: `git rev-parse` of its targetRevision in the repository it reads. */
function commitOf(source: { repoURL?: string; targetRevision?: string } | undefined): string {
  if (!source?.repoURL?.startsWith('file://')) throw new Error(`the conformance suite reads file:// repositories only, not ${source?.repoURL}`);
  const dir = fileURLToPath(source.repoURL);
  return execFileSync('git', ['-C', dir, 'rev-parse', '--verify', `${source.targetRevision || 'HEAD'}^{commit}`], { encoding: 'utf8' }).trim();
}

/**
 * The commit the Application's source names now, or each source's of a multi-source Application (every repository of
 * the suite is one the tests commit to, read by the repo-server with git): what a current comparison must name.
 */
function headCommits(app: ArgoApplication): { commit: string } | { commits: string[] } {
  const sources = app.spec?.sources;
  return sources && sources.length > 0 ? { commits: sources.map(commitOf) } : { commit: commitOf(app.spec?.source) };
}

/** The commits of `headCommits` as one string, in spec.sources order (`a,b`). */
const shown = (c: { commit: string } | { commits: string[] }) => ('commit' in c ? c.commit : c.commits.join(','));

interface ArgoResource {
  group?: string;
  kind: string;
  namespace?: string;
  name: string;
  status?: string;
  health?: { status?: string; message?: string };
  requiresPruning?: boolean;
  hook?: boolean;
}

export interface ArgoApplication {
  metadata: { annotations?: Record<string, string>; generation?: number };
  spec?: { source?: { repoURL?: string; targetRevision?: string }; sources?: { repoURL?: string; targetRevision?: string }[] };
  operation?: unknown;
  status?: {
    sync?: { status?: string; revision?: string; revisions?: string[] };
    health?: { status?: string; message?: string };
    resources?: ArgoResource[];
    reconciledAt?: string;
    conditions?: { type: string; message: string }[];
    operationState?: {
      phase?: string;
      message?: string;
      finishedAt?: string;
      syncResult?: { revision?: string; revisions?: string[]; resources?: SyncResultResource[] };
    };
  };
}

export interface SyncResultResource {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  status: string;
  message: string;
  syncPhase?: string;
}

async function getApplication(name: string): Promise<ArgoApplication> {
  return JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', name, '-n', appNamespaceOf(name), '-o', 'json'])) as ArgoApplication;
}

/** Polls `check` every half second until it returns a value, failing after the bound with what was last seen. */
export async function pollFor<T>(what: string, check: () => Promise<T | undefined>, limitMs = POLL_LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const got = await check();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`waiting for ${what}: not reached after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, POLL_EVERY_MS));
  }
}

/** How long a hard refresh may stay requested, with no new comparison, before it is asked for again. */
const REREQUEST_AFTER_MS = 20_000;

/**
 * The last lines of Argo CD's application-controller and repo-server logs that name `name` or are errors or warnings
 * (test/argocd/up writes them to its state folder's logs/), for the message of a test that waited in vain.
 */
function argoLogsAbout(name: string): string {
  const dir = process.env.KGITOPS_ARGOCD_LOGS;
  if (!dir) return '';
  const out: string[] = [];
  for (const component of ['argocd-application-controller', 'argocd-repo-server']) {
    const path = join(dir, `${component}.log`);
    if (!existsSync(path)) continue;
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.includes(name) || /level=(error|warning)/.test(l));
    if (lines.length > 0) out.push(`--- ${component}.log, the last lines about ${name} or at level error/warning:`, ...lines.slice(-15));
  }
  return out.length > 0 ? `\n${out.join('\n')}` : '';
}

/**
 * Polls the Application until its status is a comparison made at or after `sinceMs` of the commit its source names
 * (support/current.ts), failing after the bound with the reasons it was last stale for and what Argo CD logged about it.
 * `rerequest`, when given, is called when a refresh has stayed requested for REREQUEST_AFTER_MS with no new comparison.
 */
async function currentStatus(what: string, name: string, sinceMs: number, rerequest?: () => Promise<void>): Promise<ArgoApplication> {
  let reasons: string[] = ['not read yet'];
  let askedAt = Date.now();
  try {
    return await pollFor(what, async () => {
      const app = await getApplication(name);
      reasons = staleness(app, { sinceMs, ...headCommits(app) });
      if (reasons.length === 0) return app;
      if (rerequest && Date.now() - askedAt > REREQUEST_AFTER_MS && app.metadata.annotations?.['argocd.argoproj.io/refresh'] !== undefined) {
        askedAt = Date.now();
        await rerequest();
      }
      return undefined;
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; last seen: ${reasons.join('; ')}${argoLogsAbout(name)}`);
  }
}

/**
 * Asks Argo CD for a hard refresh (a new comparison, the manifests rendered anew) and waits until it is done: the
 * controller removes the annotation in the same write as the new status, whose `reconciledAt` must not be earlier
 * than the annotation and whose `sync.revision` must be the repository's commit. A refresh still requested after
 * REREQUEST_AFTER_MS is asked for again (the annotation removed and set anew), as a user would: Argo CD's controller
 * drops a refresh when the write of its status fails (persistAppStatus logs the error and does not queue the app
 * again), and the annotation then waits for the next periodic reconciliation, minutes away. Said on stderr when it
 * happens; the verdict read is still one made after the first request.
 */
export async function hardRefresh(name: string): Promise<ArgoApplication> {
  const since = Date.now();
  const annotate = (value: string) => kubectlOk(['annotate', 'applications.argoproj.io', name, '-n', appNamespaceOf(name), '--overwrite', value]);
  await annotate('argocd.argoproj.io/refresh=hard');
  return currentStatus(`Argo CD's hard refresh of ${name}`, name, since, async () => {
    process.stderr.write(`[conformance] the hard refresh of ${name} is still requested after ${REREQUEST_AFTER_MS} ms: asked again\n`);
    await annotate('argocd.argoproj.io/refresh-');
    await annotate('argocd.argoproj.io/refresh=hard');
  });
}

/**
 * Waits for Argo CD's first reconciliation of a new Application: a comparison made after `applyApplication`
 * created it, of the repository's commit.
 */
export async function firstReconciliation(name: string): Promise<ArgoApplication> {
  const since = appliedAt.get(name);
  if (since === undefined) throw new Error(`${name} was not created by applyApplication in this file`);
  return currentStatus(`Argo CD's first reconciliation of ${name}`, name, since);
}

/**
 * Has Argo CD sync the Application and waits until the operation ends. The `operation` is the one Argo CD's
 * API server writes for `argocd app sync`: the controller reads sync options only from it, and the server
 * copies them from the Application's `syncPolicy.syncOptions` unless the request names its own.
 */
export async function argoSync(name: string, sync: { prune?: boolean; syncOptions?: string[] } = {}): Promise<ArgoApplication> {
  const spec = (
    JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', name, '-n', appNamespaceOf(name), '-o', 'json'])) as {
      spec: { syncPolicy?: { syncOptions?: string[] }; sources?: unknown[] };
    }
  ).spec;
  const syncOptions = sync.syncOptions ?? spec.syncPolicy?.syncOptions;
  const operation = {
    initiatedBy: { username: 'conformance' },
    // A multi-source sync names no revision: each source is synced at its targetRevision.
    sync: { ...(spec.sources ? {} : { revision: 'HEAD' }), prune: sync.prune ?? false, ...(syncOptions ? { syncOptions } : {}) },
  };
  await kubectlOk(['patch', 'applications.argoproj.io', name, '-n', appNamespaceOf(name), '--type', 'merge', '-p', JSON.stringify({ operation })]);
  const done = await pollFor(`Argo CD's sync of ${name}`, async () => {
    const app = await getApplication(name);
    const phase = app.status?.operationState?.phase;
    return app.operation === undefined && phase && phase !== 'Running' && phase !== 'Terminating' ? app : undefined;
  });
  // The sync applied the commit the repository holds, not one an older comparison had resolved.
  const result = done.status?.operationState?.syncResult;
  const want = headCommits(done);
  const synced = 'commit' in want ? result?.revision : result?.revisions?.join(',');
  if (done.status?.operationState?.phase === 'Succeeded' && synced !== shown(want)) {
    throw new Error(`Argo CD's sync of ${name} applied revision ${synced || '(none)'}, not the repository's commit ${shown(want)}`);
  }
  return done;
}

/** One resource's verdict, in the terms both tools share. */
export interface ResourceVerdict {
  status: string;
  health?: string;
  message?: string;
  requiresPruning: boolean;
}

/**
 * An app's verdict: its sync status and health, each resource's by `group/kind/namespace/name`, and the hooks
 * still in the cluster (Argo CD lists them among its resources with `hook: true`; kubectl-gitops apart).
 */
export interface Verdict {
  sync: string;
  health: string;
  resources: Record<string, ResourceVerdict>;
  hooks: string[];
}

function resourceId(r: { group?: string; kind: string; namespace?: string; name: string }): string {
  return `${r.group ?? ''}/${r.kind}/${r.namespace ?? ''}/${r.name}`;
}

/** Argo CD's verdict from the Application's status (the controller runs with --persist-resource-health). */
export function argoVerdict(app: ArgoApplication): Verdict {
  const resources: Record<string, ResourceVerdict> = {};
  const hooks: string[] = [];
  for (const r of app.status?.resources ?? []) {
    if (r.hook) {
      hooks.push(resourceId(r));
      continue;
    }
    resources[resourceId(r)] = {
      status: r.status ?? '',
      ...(r.health?.status ? { health: r.health.status } : {}),
      ...(r.health?.message ? { message: r.health.message } : {}),
      requiresPruning: r.requiresPruning === true,
    };
  }
  return { sync: app.status?.sync?.status ?? '', health: app.status?.health?.status ?? '', resources, hooks: hooks.sort() };
}

interface OurStatusReport {
  source: { revision?: string };
  sources?: { revision: string }[];
  sync: { status: string };
  health: { status: string };
  resources: {
    group: string;
    kind: string;
    namespace: string;
    name: string;
    status: string;
    requiresPruning: boolean;
    health?: { status: string; message?: string };
  }[];
  hooks?: { group: string; kind: string; namespace: string; name: string }[];
}

/**
 * kubectl-gitops's verdict on the same Application, read from the cluster (`status APP -o json --no-record`), of the
 * same commit as Argo CD's (`commit`; a multi-source Application's commits joined with commas, in spec.sources order).
 */
async function ourVerdict(name: string, commit: string): Promise<Verdict> {
  const res = await runPlugin(['status', name, '--app-namespace', appNamespaceOf(name), '--no-record', '-o', 'json']);
  if (res.code !== 0) throw new Error(`kubectl gitops status ${name} exited ${res.code}: ${res.stderr.trim()}`);
  const report = JSON.parse(res.stdout) as OurStatusReport;
  const read = report.sources ? report.sources.map((s) => s.revision).join(',') : report.source.revision;
  if (read !== commit) throw new Error(`kubectl gitops status ${name} read revision ${read || '(none)'}, not ${commit}`);
  const resources: Record<string, ResourceVerdict> = {};
  for (const r of report.resources) {
    resources[resourceId(r)] = {
      status: r.status,
      ...(r.health?.status ? { health: r.health.status } : {}),
      ...(r.health?.message ? { message: r.health.message } : {}),
      requiresPruning: r.requiresPruning,
    };
  }
  return { sync: report.sync.status, health: report.health.status, resources, hooks: (report.hooks ?? []).map(resourceId).sort() };
}

/**
 * Every way the two verdicts differ, one line each, with the namespace written as `<ns>` so that the lines
 * are the same in every run: `app sync: Argo CD OutOfSync, kubectl-gitops Synced`,
 * `apps/Deployment/<ns>/web health message: Argo CD "…", kubectl-gitops "…"`, `… only in Argo CD`.
 */
export function differences(argo: Verdict, ours: Verdict, namespace: string): string[] {
  const out: string[] = [];
  const show = (v: string | boolean | undefined) => (v === undefined ? '(none)' : JSON.stringify(v));
  if (argo.sync !== ours.sync) out.push(`app sync: Argo CD ${argo.sync}, kubectl-gitops ${ours.sync}`);
  if (argo.health !== ours.health) out.push(`app health: Argo CD ${argo.health}, kubectl-gitops ${ours.health}`);
  const ids = [...new Set([...Object.keys(argo.resources), ...Object.keys(ours.resources)])].sort();
  for (const id of ids) {
    const label = id.split(`/${namespace}/`).join('/<ns>/');
    const a = argo.resources[id];
    const o = ours.resources[id];
    if (!a || !o) {
      out.push(`${label} only in ${a ? 'Argo CD' : 'kubectl-gitops'}`);
      continue;
    }
    for (const field of ['status', 'health', 'message', 'requiresPruning'] as const) {
      if (a[field] !== o[field]) out.push(`${label} ${field}: Argo CD ${show(a[field])}, kubectl-gitops ${show(o[field])}`);
    }
  }
  for (const h of argo.hooks.filter((x) => !ours.hooks.includes(x))) out.push(`hook ${h} only in Argo CD`);
  for (const h of ours.hooks.filter((x) => !argo.hooks.includes(x))) out.push(`hook ${h} only in kubectl-gitops`);
  return out.map((line) => line.split(namespace).join('<ns>'));
}

/**
 * Argo CD's verdict after a hard refresh (a comparison made after the refresh was asked for, of the repository's
 * commit) and ours of the same commit, read one after the other on the same cluster state.
 */
export async function bothVerdicts(name: string): Promise<{ argo: Verdict; ours: Verdict; app: ArgoApplication }> {
  const app = await hardRefresh(name);
  return { argo: argoVerdict(app), ours: await ourVerdict(name, app.status?.sync?.revisions?.join(',') ?? app.status?.sync?.revision ?? ''), app };
}

/** The live object as JSON, or undefined when it does not exist. */
export async function liveObject(kind: string, name: string, namespace: string): Promise<Record<string, any> | undefined> {
  const res = await kubectl(['get', kind, name, '-n', namespace, '-o', 'json', '--show-managed-fields']);
  return res.code === 0 ? (JSON.parse(res.stdout) as Record<string, any>) : undefined;
}

/** The uid of each of these live objects (`[kind, name]`, `undefined` when one is gone): what a test compares to see nothing was recreated. */
export async function uidsOf(objects: readonly (readonly [string, string])[], namespace: string): Promise<string[]> {
  const out: string[] = [];
  for (const [kind, name] of objects) out.push(String((await liveObject(kind, name, namespace))?.metadata?.uid));
  return out;
}

/** Waits until a Deployment's rollout is complete, so that both tools read a settled cluster. */
export async function rolledOut(name: string, namespace: string): Promise<void> {
  await kubectlOk(['rollout', 'status', `deployment/${name}`, '-n', namespace, '--timeout=90s']);
}

/**
 * A verdict as an absolute expectation reads it: `app` and each resource (namespace written `<ns>`) with its sync
 * status, `, requires pruning` added where it does.
 */
function syncSummary(v: Verdict, namespace: string): Record<string, string> {
  const out: Record<string, string> = { app: v.sync };
  for (const [id, r] of Object.entries(v.resources))
    out[id.split(`/${namespace}/`).join('/<ns>/')] = r.requiresPruning ? `${r.status}, requires pruning` : r.status;
  return out;
}

/** Both sides' summaries, to be compared with `onBothSides(expected)`: neither tool may be wrong, even in agreement. */
export function summaries(both: { argo: Verdict; ours: Verdict }, namespace: string): { argo: Record<string, string>; ours: Record<string, string> } {
  return { argo: syncSummary(both.argo, namespace), ours: syncSummary(both.ours, namespace) };
}

/** The same expected summary for Argo CD and for kubectl-gitops. */
export function onBothSides(expected: Record<string, string>): { argo: Record<string, string>; ours: Record<string, string> } {
  return { argo: expected, ours: expected };
}
