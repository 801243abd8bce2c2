// deleteApp on the fake gateway: the order of the writes, and every refusal leaving everything as it was.
import { FakeGateway } from '../../../support/fake-gateway.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { apiError } from '../../../../src/kube/errors.js';
import { deleteApp, deleteExitCode, type DeleteRequest } from '../../../../src/workflows/delete/delete.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import type { KubeObject } from '../../../../src/model/object.js';
import { appWorkspace } from '../../../support/app-workspace.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

const marked = (name: string, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, annotations: { 'argocd.argoproj.io/tracking-id': `shop:/ConfigMap:shop/${name}`, ...annotations } },
});

const postDeleteHook = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: farewell, annotations: {argocd.argoproj.io/hook: PostDelete}}\ndata: {a: "1"}\n';

function setup(objects: KubeObject[], forbidden: string[] = []) {
  const ws = appWorkspace({ prefix: 'delete', manifests: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n', 'hook.yaml': postDeleteHook } });
  const gw = new FakeGateway({ objects, forbidden });
  const req = (r: Partial<DeleteRequest> = {}): DeleteRequest => ({
    appFile: ws.appFile,
    desired: ws.dir,
    dryRun: false,
    confirmDelete: false,
    timeoutMs: 10_000,
    ...r,
  });
  const deps = { io: memoryIo().io, opts, gateway: gw, sleep: async () => undefined, pollMs: 1 };
  const writes = () => gw.calls.filter((c) => /^(DELETE|CREATE|PATCH|APPLY|UPDATE)/.test(c));
  return { gw, req, deps, writes };
}

test('deletes highest wave first, then runs the PostDelete hook and removes it (no delete policy)', async () => {
  const { gw, req, deps, writes } = setup([
    marked('a'),
    marked('late', { 'argocd.argoproj.io/sync-wave': '5' }),
    marked('kept', { 'helm.sh/resource-policy': 'keep' }),
  ]);
  const r = await deleteApp(req(), deps);
  expect(writes()).toEqual([
    'DELETE ConfigMap shop/late foreground',
    'DELETE ConfigMap shop/a foreground',
    'CREATE ConfigMap shop/farewell',
    'DELETE ConfigMap shop/farewell background',
  ]);
  expect(r.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['late deleted', 'a deleted', 'kept kept']);
  expect(r.hooks).toEqual([expect.objectContaining({ name: 'farewell', phase: 'PostDelete', outcome: 'Succeeded', cleanup: 'removed' })]);
  expect([r.phase, r.application, deleteExitCode(r)]).toEqual(['Succeeded', 'absent', 0]);
  expect(gw.find('ConfigMap', 'shop', 'kept')).toBeDefined();
});

test('--dry-run and --cascade orphan delete nothing', async () => {
  const { req, deps, writes } = setup([marked('a')]);
  const dry = await deleteApp(req({ dryRun: true }), deps);
  expect(dry.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['a would-delete']);
  expect(dry.hooks.map((h) => `${h.name} ${h.outcome}`)).toEqual(['farewell would-run']);
  expect(dry.phase).toBe('DryRun');
  expect(writes()).toEqual([]);
  const orphan = await deleteApp(req({ cascade: 'orphan', dryRun: true }), deps);
  expect(orphan.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['a kept']);
});

test('Delete=confirm unapproved: nothing is done at all, exit 3, and the command that approves it is named', async () => {
  const { req, deps, writes, gw } = setup([marked('a'), marked('careful', { 'argocd.argoproj.io/sync-options': 'Delete=confirm' })]);
  const r = await deleteApp(req(), deps);
  expect([r.phase, deleteExitCode(r)]).toEqual(['Waiting', 3]);
  expect(r.entries.find((e) => e.name === 'careful')?.outcome).toBe('waiting');
  expect(r.nextCommand).toMatch(/--confirm-delete$/);
  expect(writes()).toEqual([]);
  const approved = await deleteApp(req({ confirmDelete: true }), deps);
  expect(approved.phase).toBe('Succeeded');
  expect(gw.find('ConfigMap', 'shop', 'careful')).toBeUndefined();
});

test('a partial scan deletes nothing (exit 3); an answer of no changes nothing (exit 4)', async () => {
  const partial = setup([marked('a')], ['list secrets']);
  const err = (await deleteApp(partial.req(), partial.deps).catch((e: unknown) => e)) as Error & { code?: number };
  expect(err.code).toBe(3);
  expect(err.message).toMatch(/^deleting shop: nothing was deleted: the prune scan is partial: cannot list secrets in namespace shop/);
  expect(partial.writes()).toEqual([]);
  const declined = setup([marked('a')]);
  const r = await deleteApp(declined.req(), { ...declined.deps, approve: async () => false });
  expect([r.phase, deleteExitCode(r)]).toEqual(['Declined', 4]);
  expect(r.entries.map((e) => e.outcome)).toEqual(['not-run']);
  expect(declined.writes()).toEqual([]);
});

test('an object recreated since it was listed stops the deletion before the next wave', async () => {
  const { req, deps, gw } = setup([marked('late', { 'argocd.argoproj.io/sync-wave': '1' }), marked('a')]);
  const orig = gw.delete.bind(gw);
  gw.delete = async (type, ns, name, o) => {
    if (name === 'late') {
      throw apiError(`deleting ConfigMap ${name}`, 409, '{"kind":"Status","reason":"Conflict","message":"Precondition failed"}');
    }
    return orig(type, ns, name, o);
  };
  const r = await deleteApp(req(), deps);
  expect(r.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['late changed', 'a not-run']);
  expect([r.phase, deleteExitCode(r)]).toEqual(['Failed', 3]);
  expect(r.message).toBe('wave 1: 1 object(s) not deleted; later waves were not started');
  expect(gw.find('ConfigMap', 'shop', 'a')).toBeDefined();
});

test('a stop asked for: after the delete in flight nothing new starts (no delete, wave or hook), the report says where; before the first write nothing changes', async () => {
  const stopAfterFirstDelete = (gw: FakeGateway) => {
    const stop = new AbortController();
    const remove = gw.delete.bind(gw);
    gw.delete = async (...args: Parameters<FakeGateway['delete']>) => {
      const out = await remove(...args);
      stop.abort();
      return out;
    };
    return stop.signal;
  };
  const outcomes = (r: { entries: { name: string; outcome: string }[] }) => r.entries.map((e) => `${e.name} ${e.outcome}`).sort();

  // One wave of two: the first deleted, the second not reached; the PostDelete hook never created.
  const one = setup([marked('a'), marked('b')]);
  const inWave = await deleteApp(one.req(), { ...one.deps, signal: stopAfterFirstDelete(one.gw) });
  expect(one.writes()).toHaveLength(1);
  expect(outcomes(inWave)).toEqual(expect.arrayContaining([expect.stringMatching(/ deleted$/), expect.stringMatching(/ not-run$/)]));
  expect(inWave.hooks.map((h) => `${h.name} ${h.outcome}`)).toEqual(['farewell not-run']);
  expect(inWave.interrupted).toBe('during wave 0 (the delete in flight was finished, no other was started; what was deleted stays deleted)');
  expect([inWave.phase, deleteExitCode(inWave)]).toEqual(['Failed', 3]);

  // Wave 5 first: its one object deleted; wave 0 never started.
  const two = setup([marked('a'), marked('b'), marked('late', { 'argocd.argoproj.io/sync-wave': '5' })]);
  const beforeWave = await deleteApp(two.req(), { ...two.deps, signal: stopAfterFirstDelete(two.gw) });
  expect(two.writes()).toEqual(['DELETE ConfigMap shop/late foreground']);
  expect(outcomes(beforeWave)).toEqual(['a not-run', 'b not-run', 'late deleted']);
  expect([beforeWave.interrupted, beforeWave.message]).toEqual(['before wave 0', 'interrupted: stopped before wave 0']);

  const three = setup([marked('a')]);
  const early = new AbortController();
  early.abort();
  const none = await deleteApp(three.req(), { ...three.deps, signal: early.signal });
  expect(three.writes()).toEqual([]);
  expect([none.interrupted, none.phase, none.entries.map((e) => e.outcome)]).toEqual(['before the first write: nothing was changed', 'Failed', ['not-run']]);
});

test("the Application's finalizers: a conflict with a status write (Argo CD's controller after its sync) is read again and tried again; a changed spec is not", async () => {
  const live = (generation: number, resourceVersion: string): KubeObject => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'shop', namespace: 'argocd', uid: 'app-uid', generation, resourceVersion },
    spec: {},
  });
  for (const [after, outcome] of [
    [live(1, '2'), 'deleted'],
    [live(2, '2'), 'refused'],
  ] as const) {
    const { gw, req, deps } = setup([marked('a'), live(1, '1')]);
    const patch = gw.patch.bind(gw);
    let conflicts = 0;
    gw.patch = async (type, ns, name, body, kind, o) => {
      if (type.kind === 'Application' && conflicts === 0) {
        conflicts++;
        // someone wrote the Application between our read and our patch
        gw.put(after);
        throw apiError('patching Application argocd/shop', 409, '{"kind":"Status","reason":"Conflict","message":"the object has been modified"}');
      }
      return patch(type, ns, name, body, kind, o);
    };
    const run = deleteApp(req(), { ...deps, appRef: { namespace: 'argocd', name: 'shop' } });
    if (outcome === 'deleted') {
      const r = await run;
      expect([r.phase, r.application, deleteExitCode(r)]).toEqual(['Succeeded', 'deleted', 0]);
      expect(gw.find('ConfigMap', 'shop', 'a')).toBeUndefined();
      expect(gw.find('Application', 'argocd', 'shop')).toBeUndefined();
    } else {
      await expect(run).rejects.toMatchObject({ status: 409 });
      expect(gw.find('ConfigMap', 'shop', 'a')).toBeDefined();
    }
  }
});
