// status --wait's modes, as argocd app wait: the pure decision over one status report (and the Application's operation).
import { buildStatusReport, type ResourceInput, type StatusReport } from '../../../../src/health/report.js';
import { keyOf, type KubeObject } from '../../../../src/model/object.js';
import type { OperationProgress } from '../../../../src/app/types.js';
import { describeUnmet, operationInProgress, waitConditions, waitSpec, waitVerdict, type WaitFlags } from '../../../../src/workflows/status/wait.js';
import { app } from '../../health/status-fixtures.js';
import { InputError } from '../../../../src/model/errors.js';

type Rollout = 'healthy' | 'progressing' | 'degraded' | 'paused';

function deployment(name: string, rollout: Rollout, namespace = 'shop'): KubeObject {
  const status =
    rollout === 'healthy' || rollout === 'paused'
      ? { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }
      : {
          observedGeneration: 1,
          replicas: 1,
          updatedReplicas: 1,
          availableReplicas: 0,
          ...(rollout === 'degraded' ? { conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] } : {}),
        };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, generation: 1, uid: `deploy-${namespace}-${name}` },
    spec: { replicas: 1, ...(rollout === 'paused' ? { paused: true } : {}) },
    status,
  };
}

const cronJob = (name: string, suspend: boolean): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name, namespace: 'shop', uid: `cj-${name}` },
  spec: { suspend, schedule: '* * * * *' },
  status: {},
});
const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop', uid: `cm-${name}` }, data: {} });
const clusterRole = (name: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name, uid: `cr-${name}` },
  rules: [],
});

const res = (live: KubeObject, comparison: ResourceInput['comparison'] = 'in-sync'): ResourceInput => ({ key: keyOf(live), comparison, live });

function report(...resources: ResourceInput[]): StatusReport {
  return buildStatusReport({ app: app(), resources, children: [] });
}

const verdict = (r: StatusReport, flags: WaitFlags, operation?: OperationProgress) =>
  waitVerdict({ report: r, ...(operation ? { operation } : {}) }, waitSpec(flags));

const running: OperationProgress = { requested: false, phase: 'Running', message: 'Waiting for pruning confirmation of v1/ConfigMap/old' };
const succeeded: OperationProgress = {
  requested: false,
  phase: 'Succeeded',
  message: 'successfully synced (all tasks run)',
  finishedAt: '2026-01-01T00:00:00Z',
};

describe('waitSpec: the conditions the flags ask for', () => {
  it('with no mode, sync, health and operation (argocd app wait), and --degraded or --resource alone keep that default', () => {
    const all = { sync: true, health: true, suspended: false, operation: true };
    expect(waitSpec({})).toMatchObject({ ...all, degraded: false, resources: [] });
    expect(waitSpec({ degraded: true })).toMatchObject({ ...all, degraded: true });
    expect(waitSpec({ resource: [':ConfigMap:a'] })).toMatchObject(all);
  });

  it('a mode flag selects only what it names', () => {
    expect(waitSpec({ health: true })).toMatchObject({ sync: false, health: true, suspended: false, operation: false });
    expect(waitSpec({ sync: true, operation: true })).toMatchObject({ sync: true, health: false, suspended: false, operation: true });
    expect(waitSpec({ suspended: true, degraded: true })).toMatchObject({ sync: false, health: false, suspended: true, operation: false, degraded: true });
  });

  it('a malformed --resource is an input error', () => {
    expect(() => waitSpec({ resource: ['Deployment:web'] })).toThrow(InputError);
    expect(() => waitSpec({ resource: ['apps:Deployment:shop/'] })).toThrow(/the name is empty/);
  });

  it('says what it waits for', () => {
    expect(waitConditions(waitSpec({}))).toBe('Synced, Healthy and no operation running');
    expect(waitConditions(waitSpec({ health: true, suspended: true }))).toBe('Healthy or Suspended');
    expect(waitConditions(waitSpec({ sync: true, resource: ['apps:Deployment:web'] }))).toBe('Synced (--resource apps:Deployment:web)');
    expect(waitConditions(waitSpec({ operation: true }))).toBe('no operation running');
  });
});

describe('waitVerdict for the app as a whole', () => {
  const healthy = report(res(deployment('web', 'healthy')), res(configMap('settings')));
  const progressing = report(res(deployment('web', 'progressing')));
  const degraded = report(res(deployment('web', 'degraded')));
  const drifted = report(res(deployment('web', 'healthy')), res(configMap('settings'), 'drifted'));
  const suspended = report(res(deployment('paused', 'paused')), res(deployment('web', 'healthy')));

  it('default: met when Synced, Healthy and no operation running; each missing condition is named', () => {
    expect(verdict(healthy, {})).toEqual({ outcome: 'met' });
    expect(verdict(healthy, {}, succeeded)).toEqual({ outcome: 'met' });
    expect(verdict(progressing, {})).toEqual({ outcome: 'waiting', unmet: [{ condition: 'health', now: 'Progressing' }] });
    expect(verdict(drifted, {})).toEqual({ outcome: 'waiting', unmet: [{ condition: 'sync', now: 'OutOfSync' }] });
    expect(verdict(healthy, {}, running)).toEqual({
      outcome: 'waiting',
      unmet: [{ condition: 'operation', now: 'Running', message: 'Waiting for pruning confirmation of v1/ConfigMap/old' }],
    });
    // Without --degraded a Degraded app is one more condition not met: the wait goes on to the timeout.
    expect(verdict(degraded, {})).toEqual({ outcome: 'waiting', unmet: [{ condition: 'health', now: 'Degraded' }] });
  });

  it('--health: Healthy only, whatever the sync status or operation', () => {
    expect(verdict(drifted, { health: true }, running)).toEqual({ outcome: 'met' });
    expect(verdict(progressing, { health: true })).toMatchObject({ outcome: 'waiting', unmet: [{ condition: 'health' }] });
    expect(verdict(suspended, { health: true })).toMatchObject({ outcome: 'waiting', unmet: [{ condition: 'health', now: 'Suspended' }] });
  });

  it('--sync: Synced only, whatever the health', () => {
    expect(verdict(progressing, { sync: true })).toEqual({ outcome: 'met' });
    expect(verdict(drifted, { sync: true })).toEqual({ outcome: 'waiting', unmet: [{ condition: 'sync', now: 'OutOfSync' }] });
    const unknown = report(res(configMap('settings'), 'unknown'));
    expect(verdict(unknown, { sync: true })).toEqual({ outcome: 'waiting', unmet: [{ condition: 'sync', now: 'Unknown' }] });
  });

  it('--operation: no operation requested, Running or Terminating, or unfinished; a finished one (any phase) or none is met', () => {
    expect(verdict(progressing, { operation: true })).toEqual({ outcome: 'met' });
    expect(verdict(progressing, { operation: true }, succeeded)).toEqual({ outcome: 'met' });
    expect(verdict(progressing, { operation: true }, { requested: false, phase: 'Failed', message: 'x', finishedAt: '2026-01-01T00:00:00Z' })).toEqual({
      outcome: 'met',
    });
    expect(verdict(healthy, { operation: true }, running)).toMatchObject({ outcome: 'waiting', unmet: [{ condition: 'operation', now: 'Running' }] });
    expect(verdict(healthy, { operation: true }, { requested: false, phase: 'Terminating', finishedAt: '2026-01-01T00:00:00Z' })).toMatchObject({
      outcome: 'waiting',
      unmet: [{ condition: 'operation', now: 'Terminating' }],
    });
    // Argo CD counts an operationState without finishedAt as in progress, whatever its phase says.
    expect(verdict(healthy, { operation: true }, { requested: false, phase: 'Succeeded' })).toMatchObject({ outcome: 'waiting' });
    // A requested operation (the top-level `operation`) no controller has taken yet, over an older finished one.
    expect(verdict(healthy, { operation: true }, { ...succeeded, requested: true })).toEqual({
      outcome: 'waiting',
      unmet: [{ condition: 'operation', now: 'requested' }],
    });
  });

  it('--suspended: Suspended only; with --health, Healthy or Suspended', () => {
    expect(verdict(suspended, { suspended: true })).toEqual({ outcome: 'met' });
    expect(verdict(report(res(deployment('web', 'paused'))), { suspended: true })).toEqual({ outcome: 'met' });
    expect(verdict(healthy, { suspended: true })).toEqual({ outcome: 'waiting', unmet: [{ condition: 'health', now: 'Healthy' }] });
    expect(verdict(healthy, { suspended: true, health: true })).toEqual({ outcome: 'met' });
    expect(verdict(suspended, { suspended: true, health: true })).toEqual({ outcome: 'met' });
    expect(verdict(progressing, { suspended: true, health: true })).toMatchObject({ outcome: 'waiting' });
  });

  it('--degraded: a Degraded app ends the wait at once, before any other condition; otherwise the chosen conditions decide', () => {
    expect(verdict(degraded, { degraded: true })).toEqual({ outcome: 'degraded' });
    expect(verdict(degraded, { sync: true, degraded: true })).toEqual({ outcome: 'degraded' });
    expect(verdict(degraded, { degraded: true }, running)).toEqual({ outcome: 'degraded' });
    expect(verdict(healthy, { degraded: true })).toEqual({ outcome: 'met' });
    expect(verdict(progressing, { degraded: true })).toMatchObject({ outcome: 'waiting' });
  });
});

describe('waitVerdict with --resource: those resources only', () => {
  const mixed = report(
    res(deployment('web', 'healthy')),
    res(deployment('api', 'progressing')),
    res(deployment('worker', 'degraded')),
    res(configMap('settings'), 'drifted'),
    res(clusterRole('reader')),
    res(cronJob('nightly', true)),
  );

  it('looks at the named resources only: the rest of the app may be anything', () => {
    expect(verdict(mixed, { resource: ['apps:Deployment:web'] })).toEqual({ outcome: 'met' });
    expect(verdict(mixed, { resource: ['apps:Deployment:shop/web'] })).toEqual({ outcome: 'met' });
    expect(verdict(mixed, { resource: ['apps:Deployment:web', 'apps:Deployment:api'] })).toEqual({
      outcome: 'waiting',
      unmet: [
        {
          condition: 'health',
          resource: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'api' },
          now: 'Progressing',
          message: 'Waiting for rollout to finish: 0 of 1 updated replicas are available...',
        },
      ],
    });
  });

  it('the core group is empty; a kind without health counts as Healthy; its sync status counts', () => {
    expect(verdict(mixed, { resource: [':ConfigMap:settings'] })).toEqual({
      outcome: 'waiting',
      unmet: [{ condition: 'sync', resource: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'settings' }, now: 'OutOfSync' }],
    });
    expect(verdict(mixed, { resource: [':ConfigMap:settings'], health: true })).toEqual({ outcome: 'met' });
    // `apps` is not the core group: a ConfigMap is not named by it.
    expect(verdict(mixed, { resource: ['apps:ConfigMap:settings'] })).toEqual({ outcome: 'unmatched', filters: ['apps:ConfigMap:settings'] });
  });

  it('a cluster-scoped resource is named without a namespace (or with an empty one), never with one', () => {
    expect(verdict(mixed, { resource: ['rbac.authorization.k8s.io:ClusterRole:reader'] })).toEqual({ outcome: 'met' });
    expect(verdict(mixed, { resource: ['rbac.authorization.k8s.io:ClusterRole:/reader'] })).toEqual({ outcome: 'met' });
    expect(verdict(mixed, { resource: ['rbac.authorization.k8s.io:ClusterRole:shop/reader'] })).toMatchObject({ outcome: 'unmatched' });
    // A paused Deployment beside it: --suspended is met by it, not by the ClusterRole, which has no health, nor by a
    // suspended CronJob, which Argo CD v3.2.11's check calls Healthy ("CronJob is Suspended", argo-cd#24428).
    const withPaused = report(res(deployment('paused', 'paused')), res(cronJob('nightly', true)));
    expect(verdict(withPaused, { suspended: true, resource: ['apps:Deployment:paused'] })).toEqual({ outcome: 'met' });
    expect(verdict(withPaused, { suspended: true, resource: ['batch:CronJob:nightly'] })).toMatchObject({
      outcome: 'waiting',
      unmet: [{ condition: 'health', now: 'Healthy' }],
    });
    expect(verdict(mixed, { suspended: true, resource: ['rbac.authorization.k8s.io:ClusterRole:reader'] })).toMatchObject({
      outcome: 'waiting',
      unmet: [{ condition: 'health', now: 'Healthy' }],
    });
  });

  it('globs and exclusions as sync --resource: `*`, and `!` drops what it names', () => {
    expect(verdict(mixed, { health: true, resource: ['apps:Deployment:*'] })).toMatchObject({ outcome: 'waiting' });
    expect(verdict(mixed, { health: true, resource: ['apps:Deployment:*', '!apps:Deployment:api', '!apps:Deployment:worker'] })).toEqual({
      outcome: 'met',
    });
    // Only exclusions: every resource but those.
    expect(verdict(mixed, { sync: true, resource: ['!:ConfigMap:*'] })).toEqual({ outcome: 'met' });
    expect(verdict(mixed, { sync: true, resource: ['!apps:Deployment:*'] })).toMatchObject({ outcome: 'waiting', unmet: [{ condition: 'sync' }] });
  });

  it('--degraded fails fast on a named resource that is Degraded, with its message; a Degraded one not named does not count', () => {
    expect(verdict(mixed, { degraded: true, resource: ['apps:Deployment:worker'] })).toEqual({
      outcome: 'degraded',
      resource: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'worker' },
      message: 'Deployment "worker" exceeded its progress deadline',
    });
    expect(mixed.health.status).toBe('Degraded');
    expect(verdict(mixed, { degraded: true, resource: ['apps:Deployment:web'] })).toEqual({ outcome: 'met' });
  });

  it("the operation stays the app's", () => {
    expect(verdict(mixed, { resource: ['apps:Deployment:web'] }, running)).toMatchObject({ outcome: 'waiting', unmet: [{ condition: 'operation' }] });
    expect(verdict(mixed, { health: true, resource: ['apps:Deployment:web'] }, running)).toEqual({ outcome: 'met' });
  });

  it('an extra that does not count for sync (IgnoreExtraneous) counts as Synced; one that does is OutOfSync', () => {
    const extra = (annotations?: Record<string, string>): KubeObject => ({
      ...configMap('old'),
      metadata: { ...configMap('old').metadata, ...(annotations ? { annotations } : {}) },
    });
    const ignored = report(res(extra({ 'argocd.argoproj.io/compare-options': 'IgnoreExtraneous' }), 'extra'));
    expect(verdict(ignored, { sync: true, resource: [':ConfigMap:old'] })).toEqual({ outcome: 'met' });
    expect(verdict(report(res(extra(), 'extra')), { sync: true, resource: [':ConfigMap:old'] })).toMatchObject({ outcome: 'waiting' });
  });
});

describe('in words', () => {
  it('names the condition, the resource and the reason', () => {
    expect(describeUnmet({ condition: 'health', now: 'Progressing' }, 'Pod/web-1: Unschedulable')).toBe('health is Progressing: Pod/web-1: Unschedulable');
    expect(describeUnmet({ condition: 'sync', now: 'OutOfSync' })).toBe('sync is OutOfSync');
    expect(describeUnmet({ condition: 'sync', resource: { group: '', kind: 'ConfigMap', namespace: 's', name: 'a' }, now: 'OutOfSync' })).toBe(
      'ConfigMap/a sync is OutOfSync',
    );
    expect(
      describeUnmet({ condition: 'health', resource: { group: 'argoproj.io', kind: 'Rollout', namespace: 's', name: 'r' }, now: 'Degraded', message: 'm' }),
    ).toBe('Rollout.argoproj.io/r health is Degraded: m');
    expect(describeUnmet(operationInProgress(running)!)).toBe('the operation is Running: Waiting for pruning confirmation of v1/ConfigMap/old');
    expect(describeUnmet({ condition: 'operation', now: 'requested' })).toBe('an operation is requested and has not started');
  });
});
