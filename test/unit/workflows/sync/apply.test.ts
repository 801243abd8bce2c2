// applySteps against a fake gateway whose applies can be held open: what runs together, what waits, result order.
//
// The barriers are gitops-engine's (pkg/sync/sync_context.go, runTasks: "Only wait if the type of the
// next task is different than the previous type"): one (phase, wave) at a time, and inside a wave
// consecutive tasks of one kind in parallel, each change of kind waiting for the previous group.
import { FakeGateway, COMMON_TYPES } from '../../../support/fake-gateway.js';
import { apiError, type FieldConflict } from '../../../../src/kube/errors.js';
import type { ApplyOptions } from '../../../../src/kube/gateway.js';
import type { ResourceType } from '../../../../src/model/resource-type.js';
import type { KubeObject } from '../../../../src/model/object.js';
import { applySteps, type DryRunResult } from '../../../../src/workflows/sync/apply.js';
import type { ApplyStep } from '../../../../src/sync/plan.js';

const OPTS = { fieldManager: 'argocd-controller', force: false };

function typeOf(kind: string): ResourceType {
  const t = COMMON_TYPES.find((x) => x.kind === kind);
  if (!t) throw new Error(`no type ${kind}`);
  return t;
}

function step(kind: string, name: string, wave = 0, extra: Partial<ApplyStep> = {}): ApplyStep {
  const type = typeOf(kind);
  const apiVersion = type.group ? `${type.group}/${type.version}` : type.version;
  const namespace = type.namespaced ? 'shop' : '';
  const object: KubeObject = { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } };
  return { key: { group: type.group, kind, namespace, name }, type, object, wave, action: 'create', ...extra };
}

function dry(s: ApplyStep, conflicts: FieldConflict[] = []): DryRunResult {
  return { step: s, conflicts };
}

/** Records `start Kind/name` and `end Kind/name`; an apply whose name is held waits until released. */
class HoldingGateway extends FakeGateway {
  readonly events: string[] = [];
  private readonly held = new Map<string, { promise: Promise<void>; release: () => void }>();

  hold(...names: string[]): void {
    for (const n of names) {
      let release!: () => void;
      const promise = new Promise<void>((r) => (release = r));
      this.held.set(n, { promise, release });
    }
  }

  release(...names: string[]): void {
    for (const n of names) this.held.get(n)?.release();
  }

  override async apply(type: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    const id = `${obj.kind}/${obj.metadata.name}`;
    this.events.push(`start ${id}`);
    try {
      await this.held.get(obj.metadata.name ?? '')?.promise;
      return await super.apply(type, obj, opts);
    } finally {
      this.events.push(`end ${id}`);
    }
  }
}

/** Lets every pending promise chain run (the gateway's awaits are microtasks). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

test('steps of one kind in one wave are in flight together', async () => {
  const gw = new HoldingGateway();
  gw.hold('a', 'b', 'c');
  const run = applySteps(
    gw,
    ['a', 'b', 'c'].map((n) => dry(step('ConfigMap', n))),
    OPTS,
  );
  await settle();
  expect(gw.events).toEqual(['start ConfigMap/a', 'start ConfigMap/b', 'start ConfigMap/c']);
  gw.release('c', 'b', 'a');
  const results = await run;
  expect(results.map((r) => r.outcome)).toEqual(['applied', 'applied', 'applied']);
});

test('inside a wave a change of kind waits for every apply of the previous kind (gitops-engine runTasks)', async () => {
  const gw = new HoldingGateway();
  gw.hold('sa', 'sec-1');
  const steps = [step('ServiceAccount', 'sa'), step('Secret', 'sec-1'), step('Secret', 'sec-2'), step('ConfigMap', 'cm')];
  const run = applySteps(
    gw,
    steps.map((s) => dry(s)),
    OPTS,
  );
  await settle();
  expect(gw.events).toEqual(['start ServiceAccount/sa']);
  gw.release('sa');
  await settle();
  // Both Secrets start together; the ConfigMap waits for the held one.
  expect(gw.events).toEqual(['start ServiceAccount/sa', 'end ServiceAccount/sa', 'start Secret/sec-1', 'start Secret/sec-2', 'end Secret/sec-2']);
  gw.release('sec-1');
  await run;
  expect(gw.events.slice(-3)).toEqual(['end Secret/sec-1', 'start ConfigMap/cm', 'end ConfigMap/cm']);
});

test('a later wave does not start before the earlier wave finished, even for the same kind', async () => {
  const gw = new HoldingGateway();
  gw.hold('w0');
  const run = applySteps(gw, [dry(step('ConfigMap', 'w0', 0)), dry(step('ConfigMap', 'w1', 1))], OPTS);
  await settle();
  expect(gw.events).toEqual(['start ConfigMap/w0']);
  gw.release('w0');
  await run;
  expect(gw.events).toEqual(['start ConfigMap/w0', 'end ConfigMap/w0', 'start ConfigMap/w1', 'end ConfigMap/w1']);
});

test('a Namespace and a CRD of a wave are applied before the other objects of that wave start', async () => {
  const gw = new HoldingGateway();
  gw.hold('shop', 'widgets.example.com');
  const steps = [step('Namespace', 'shop'), step('CustomResourceDefinition', 'widgets.example.com'), step('ConfigMap', 'cm'), step('Deployment', 'web')];
  const run = applySteps(
    gw,
    steps.map((s) => dry(s)),
    OPTS,
  );
  await settle();
  expect(gw.events).toEqual(['start Namespace/shop']);
  gw.release('shop');
  await settle();
  expect(gw.events.slice(-1)).toEqual(['start CustomResourceDefinition/widgets.example.com']);
  gw.release('widgets.example.com');
  await run;
  expect(gw.events.slice(-4)).toEqual(['start ConfigMap/cm', 'end ConfigMap/cm', 'start Deployment/web', 'end Deployment/web']);
});

test('results come back in the order of the dry-runs, whatever order the applies finish in', async () => {
  const gw = new HoldingGateway();
  gw.hold('a', 'b');
  const steps = [step('ConfigMap', 'a'), step('ConfigMap', 'b'), step('ConfigMap', 'c'), step('Deployment', 'web', 1)];
  const run = applySteps(
    gw,
    steps.map((s) => dry(s)),
    OPTS,
  );
  await settle();
  gw.release('b');
  await settle();
  gw.release('a');
  const results = await run;
  expect(gw.events.indexOf('end ConfigMap/a')).toBeGreaterThan(gw.events.indexOf('end ConfigMap/b'));
  expect(results.map((r) => r.step.key.name)).toEqual(['a', 'b', 'c', 'web']);
});

test('a failure does not stop the rest of its group nor later groups and waves', async () => {
  const gw = new HoldingGateway({
    failApply: (obj) => (obj.metadata.name === 'bad' ? apiError('applying ConfigMap bad', 422, '{"message":"invalid"}') : undefined),
  });
  const steps = [step('ConfigMap', 'bad'), step('ConfigMap', 'ok'), step('Service', 'svc'), step('Deployment', 'web', 1)];
  const results = await applySteps(
    gw,
    steps.map((s) => dry(s)),
    OPTS,
  );
  expect(results.map((r) => [r.step.key.name, r.outcome])).toEqual([
    ['bad', 'failed'],
    ['ok', 'applied'],
    ['svc', 'applied'],
    ['web', 'applied'],
  ]);
  expect(results[0]?.message).toBeTruthy();
  expect(gw.find('Deployment', 'shop', 'web')).toBeDefined();
});

test('a step whose dry-run met conflicts is applied only with force; skips send nothing', async () => {
  const conflicts: FieldConflict[] = [{ field: '.data.a', manager: 'kubectl', message: 'conflict with "kubectl": .data.a' }];
  const steps = [step('ConfigMap', 'contested'), step('ConfigMap', 'gone', 0, { action: 'skip', reason: 'Prune=false' })];
  const gw = new HoldingGateway();
  const unforced = await applySteps(gw, [dry(steps[0] as ApplyStep, conflicts), dry(steps[1] as ApplyStep)], OPTS);
  expect(unforced.map((r) => r.outcome)).toEqual(['conflict', 'skipped']);
  expect(unforced[0]?.conflicts).toEqual(conflicts);
  expect(unforced[1]?.message).toBe('Prune=false');
  expect(gw.events).toEqual([]);

  const forced = await applySteps(gw, [dry(steps[0] as ApplyStep, conflicts), dry(steps[1] as ApplyStep)], { ...OPTS, force: true });
  expect(forced.map((r) => r.outcome)).toEqual(['applied', 'skipped']);
  expect(forced[0]?.conflicts).toEqual(conflicts);
  expect(gw.calls.filter((c) => c.startsWith('APPLY'))).toEqual(['APPLY force ConfigMap shop/contested']);
});

test('progress is told before each group, skips not counted, then done', async () => {
  const gw = new HoldingGateway();
  const seen: string[] = [];
  const steps = [step('Secret', 's'), step('ConfigMap', 'a'), step('ConfigMap', 'b', 0, { action: 'skip' }), step('ConfigMap', 'c', 1)];
  await applySteps(
    gw,
    steps.map((s) => dry(s)),
    { ...OPTS, progress: (done, total, what) => seen.push(`${done}/${total} ${what}`) },
  );
  expect(seen).toEqual(['0/3 Secret (1)', '1/3 ConfigMap (2)', '2/3 ConfigMap (1)', '3/3 done']);
});

describe('per-resource sync options: Replace, Force, Validate=false', () => {
  const live = (name: string, extra: Record<string, string> = {}): KubeObject =>
    ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'shop', labels: { by: 'hand' } },
      data: { old: '1', ...extra },
    }) as unknown as KubeObject;

  test('Replace=true writes the whole object (PUT), or creates it (POST) when missing; fields only live had are gone', async () => {
    const gw = new FakeGateway({ objects: [live('a')] });
    const a = step('ConfigMap', 'a', 0, { action: 'update', replace: true, live: live('a') });
    a.object = { ...a.object, data: { new: '2' } } as KubeObject;
    const b = step('ConfigMap', 'b', 0, { replace: true });
    const results = await applySteps(gw, [dry(a), dry(b)], OPTS);
    expect(results.map((r) => [r.step.key.name, r.outcome, r.message])).toEqual([
      ['a', 'applied', 'Replace=true: replaced'],
      ['b', 'applied', 'Replace=true: created'],
    ]);
    expect(gw.calls.filter((c) => /^(REPLACE|CREATE|APPLY|DELETE)/.test(c))).toEqual(['REPLACE ConfigMap shop/a', 'CREATE ConfigMap shop/b']);
    const stored = gw.find('ConfigMap', 'shop', 'a')!;
    expect(stored.data).toEqual({ new: '2' });
    expect(stored.metadata.labels).toBeUndefined();
    expect(stored.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['argocd-controller', 'Update']]);
  });

  test('Replace=true with Force=true deletes the live object (its uid as precondition) and creates it again', async () => {
    const gw = new FakeGateway({ objects: [live('a')] });
    const before = gw.find('ConfigMap', 'shop', 'a')!;
    const a = step('ConfigMap', 'a', 0, { action: 'update', replace: true, force: true, live: before });
    const [r] = await applySteps(gw, [dry(a)], OPTS);
    expect([r!.outcome, r!.message]).toEqual(['applied', 'Replace=true, Force=true: deleted and created again']);
    expect(gw.calls.filter((c) => /^(REPLACE|CREATE|APPLY|DELETE)/.test(c))).toEqual(['DELETE ConfigMap shop/a foreground', 'CREATE ConfigMap shop/a']);
    expect(gw.find('ConfigMap', 'shop', 'a')!.metadata.uid).not.toBe(before.metadata.uid);
  });

  test('Replace=true with Force=true on a Namespace or a CRD: updated in place under the live resourceVersion, never deleted (gitops-engine applyObject)', async () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { by: 'hand' } } } as KubeObject;
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com' },
    } as unknown as KubeObject;
    const gw = new FakeGateway({ objects: [ns, crd] });
    const liveNs = gw.find('Namespace', '', 'shop')!;
    const liveCrd = gw.find('CustomResourceDefinition', '', 'widgets.example.com')!;
    const a = step('Namespace', 'shop', 0, { action: 'update', replace: true, force: true, live: liveNs });
    const b = step('CustomResourceDefinition', 'widgets.example.com', 0, { action: 'update', replace: true, force: true, live: liveCrd });
    const results = await applySteps(gw, [dry(a), dry(b)], OPTS);
    expect(results.map((r) => [r.outcome, r.message])).toEqual([
      ['applied', 'Replace=true: Namespace/shop updated (a Namespace is updated in place, never replaced or re-created)'],
      [
        'applied',
        'Replace=true: CustomResourceDefinition/widgets.example.com updated (a CustomResourceDefinition is updated in place, never replaced or re-created)',
      ],
    ]);
    expect(gw.calls.filter((c) => /^(REPLACE|CREATE|APPLY|DELETE)/.test(c))).toEqual([
      'REPLACE Namespace /shop',
      'REPLACE CustomResourceDefinition /widgets.example.com',
    ]);
    expect(gw.find('Namespace', '', 'shop')!.metadata.uid).toBe(liveNs.metadata.uid);
    expect(gw.find('CustomResourceDefinition', '', 'widgets.example.com')!.metadata.uid).toBe(liveCrd.metadata.uid);
  });

  test('Force=true alone on a Namespace whose apply is refused: failed, never deleted to be created again', async () => {
    const invalid = () => apiError('applying Namespace shop', 422, '{"kind":"Status","reason":"Invalid","message":"field is immutable"}');
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } } as KubeObject;
    const gw = new FakeGateway({ objects: [ns], failApply: (o) => (o.kind === 'Namespace' ? invalid() : undefined) });
    const [r] = await applySteps(gw, [dry(step('Namespace', 'shop', 0, { action: 'update', force: true, live: gw.find('Namespace', '', 'shop') }))], OPTS);
    expect(r!.outcome).toBe('failed');
    expect(r!.message).toMatch(/field is immutable.*\(Force=true: a Namespace is never deleted to be created again; change it by hand\)$/);
    expect(gw.calls.some((c) => c.startsWith('DELETE'))).toBe(false);
  });

  test('Force=true alone: an apply refused as invalid (an immutable field) is followed by a delete and a create; without Force it fails', async () => {
    const invalid = () => apiError('applying ConfigMap a', 422, '{"kind":"Status","reason":"Invalid","message":"field is immutable"}');
    const gw = new FakeGateway({ objects: [live('a')], failApply: (o) => (o.metadata.name === 'a' ? invalid() : undefined) });
    const liveA = gw.find('ConfigMap', 'shop', 'a')!;
    const [forced] = await applySteps(gw, [dry(step('ConfigMap', 'a', 0, { action: 'update', force: true, live: liveA }))], OPTS);
    expect(forced!.outcome).toBe('applied');
    expect(forced!.message).toMatch(/^Force=true: deleted and created again \(the apply was refused: .*field is immutable/);
    const gw2 = new FakeGateway({ objects: [live('a')], failApply: (o) => (o.metadata.name === 'a' ? invalid() : undefined) });
    const [plain] = await applySteps(gw2, [dry(step('ConfigMap', 'a', 0, { action: 'update', live: gw2.find('ConfigMap', 'shop', 'a') }))], OPTS);
    expect(plain!.outcome).toBe('failed');
    expect(gw2.calls.some((c) => c.startsWith('DELETE'))).toBe(false);
  });

  test('Validate=false asks the API server to ignore unknown fields (fieldValidation=Ignore), for applies and whole writes', async () => {
    const gw = new FakeGateway();
    await applySteps(gw, [dry(step('ConfigMap', 'a', 0, { replace: true, noValidate: true }))], OPTS);
    expect(gw.calls).toContain('CREATE validate=Ignore ConfigMap shop/a');
  });
});
