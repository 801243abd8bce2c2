import { createRequire } from 'node:module';
import { planIgnores, ruleMatches } from '../../../src/diff/ignore.js';
import { globMatch } from '../../../src/model/glob.js';
import { diffObject } from '../../../src/diff/index.js';
import { JqRunner } from '../../../src/jq/runner.js';
import { locate, parsePath, stepsOf, renderPath } from '../../../src/model/field-path.js';
import type { IgnoreDifference } from '../../../src/app/types.js';
import type { JsonValue, KubeObject } from '../../../src/model/object.js';

const require = createRequire(import.meta.url);
const factorySource = (require('jq-wasm/dist/build/jq.js') as { toString(): string }).toString();
const rule = (r: Partial<IgnoreDifference>): IgnoreDifference => ({
  group: '',
  kind: '',
  jsonPointers: [],
  jqPathExpressions: [],
  managedFieldsManagers: [],
  ...r,
});
const key = { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'orders' };

describe('rule matching (Argo CD: globs on group/kind, exact-or-empty name/namespace)', () => {
  it.each([
    [rule({ group: 'apps', kind: 'Deployment' }), true],
    [rule({ group: '*', kind: '*' }), true],
    [rule({ group: 'apps', kind: 'Deploy*' }), true],
    [rule({ group: 'apps', kind: '{Deployment,StatefulSet}' }), true],
    [rule({ group: '', kind: 'Deployment' }), false],
    [rule({ group: 'apps', kind: 'Deployment', name: 'orders', namespace: 'shop' }), true],
    [rule({ group: 'apps', kind: 'Deployment', name: 'other' }), false],
    [rule({ group: 'apps', kind: 'Deployment', namespace: 'prod' }), false],
  ])('%j matches: %s', (r, want) => {
    expect(ruleMatches(r, key)).toBe(want);
  });

  it('empty group is the core group only', () => {
    expect(ruleMatches(rule({ kind: 'ConfigMap' }), { group: '', kind: 'ConfigMap', namespace: '', name: 'x' })).toBe(true);
    expect(globMatch('', 'apps')).toBe(false);
    expect(globMatch('networking.k8s.io', 'networking.k8s.io')).toBe(true);
    expect(globMatch('networking.k8s.io', 'networkingXk8sXio')).toBe(false);
  });
});

describe('locate (a managedFields path in an object)', () => {
  const obj: JsonValue = { spec: { containers: [{ name: 'a' }, { name: 'b', ports: [{ containerPort: 80 }] }], finalizers: ['x', 'y'] } };
  it('finds list elements by key (missing defaulted key fields allowed), by value and by index', () => {
    expect(locate(obj, parsePath('spec.containers[name=b].ports[containerPort=80,protocol=TCP]'))).toEqual(stepsOf(['spec', 'containers', 1, 'ports', 0]));
    expect(locate(obj, parsePath('spec.finalizers[=y]'))).toEqual(stepsOf(['spec', 'finalizers', 1]));
    expect(locate(obj, parsePath('spec.containers[0].name'))).toEqual(stepsOf(['spec', 'containers', 0, 'name']));
    expect(locate(obj, parsePath('spec.containers[name=c]'))).toBeUndefined();
  });
});

describe('jsonPointers', () => {
  const desired: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { 'a/b': '1', 'x~y': '1' } }, data: { k: '1' } };
  const live: KubeObject = { ...desired, metadata: { name: 'c', annotations: { 'a/b': '2', 'x~y': '2' } }, data: { k: '2' } };
  it('unescapes ~1 and ~0, and a pointer that does not exist ignores nothing', async () => {
    const d = await diffObject({
      desired,
      live,
      fieldManager: 'm',
      rules: [rule({ kind: 'ConfigMap', jsonPointers: ['/metadata/annotations/a~1b', '/metadata/annotations/x~0y', '/spec/nothing'] })],
    });
    expect(d.fields.map((f) => `${f.pointer} ${f.verdict}`)).toEqual([
      '/metadata/annotations/a~1b ignored',
      '/metadata/annotations/x~0y ignored',
      '/data/k drift',
    ]);
    expect(d.status).toBe('drifted');
  });
});

describe('jqPathExpressions without a jq (the core runs none: the workflows hand it src/jq/)', () => {
  it('is a warning and ignores nothing; the other rule kinds still apply', async () => {
    const obj = { spec: { replicas: 1 } };
    const plan = await planIgnores(
      [rule({ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'], jqPathExpressions: ['.spec.replicas'] })],
      key,
      obj,
      obj,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'orders' } },
      undefined,
    );
    expect(plan.desired).toEqual([{ at: stepsOf(['spec', 'replicas']), rule: { index: 0, type: 'jsonPointers', value: '/spec/replicas' } }]);
    expect(plan.warnings).toEqual(['ignoreDifferences[0] jq ".spec.replicas": no jq was given to this comparison, the expression ignores nothing']);
  });
});

describe('jqPathExpressions with a time limit', () => {
  const jq = new JqRunner(factorySource, 500);
  afterAll(() => jq.close());

  it('a runaway expression becomes a warning and ignores nothing', async () => {
    const obj = { spec: { replicas: 1 } };
    const plan = await planIgnores(
      [rule({ group: 'apps', kind: 'Deployment', jqPathExpressions: ['def f: f; .spec | f'] })],
      key,
      obj,
      obj,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'orders' } },
      async () => jq,
    );
    expect(plan.desired).toEqual([]);
    expect(plan.live).toEqual([]);
    expect(plan.warnings).toEqual([
      'ignoreDifferences[0] jq "def f: f; .spec | f" on desired: JQ patch execution timed out (500ms)',
      'ignoreDifferences[0] jq "def f: f; .spec | f" on live: JQ patch execution timed out (500ms)',
    ]);
  }, 20000);

  it('is not loaded when no rule matches or nothing differs', async () => {
    let loaded = 0;
    const load = async () => (loaded++, jq);
    const d: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'orders' }, spec: { replicas: 1 } };
    const rules = [rule({ group: 'apps', kind: 'Deployment', jqPathExpressions: ['.spec.replicas'] })];
    await diffObject({ desired: d, live: d, rules, fieldManager: 'm', jq: load });
    await diffObject({
      desired: { ...d, kind: 'StatefulSet' },
      live: { ...d, kind: 'StatefulSet', spec: { replicas: 2 } },
      rules,
      fieldManager: 'm',
      jq: load,
    });
    expect(loaded).toBe(0);
    const r = await diffObject({ desired: d, live: { ...d, spec: { replicas: 3 } }, rules, fieldManager: 'm', jq: load });
    expect(loaded).toBe(1);
    expect(r.fields.map((f) => f.verdict)).toEqual(['ignored']);
  });
});

describe('jq errors on Secrets', () => {
  const jq = new JqRunner(factorySource, 2000);
  afterAll(() => jq.close());
  it('never quote the Secret value jq complains about', async () => {
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { token: 'c3VwZXItc2VjcmV0' } };
    const live: KubeObject = { ...secret, data: { token: 'b3RoZXItc2VjcmV0' } };
    const rules = [rule({ kind: 'Secret', jqPathExpressions: ['.data.token | keys'] })];
    const d = await diffObject({ desired: secret, live, rules, fieldManager: 'm', jq: async () => jq });
    expect(d.warnings).toHaveLength(2);
    for (const w of d.warnings!) {
      expect(w).toMatch(/details hidden: the object is a Secret/);
      expect(w).not.toMatch(/c3VwZXItc2VjcmV0|b3RoZXItc2VjcmV0/);
    }
    expect(d.fields.map((f) => [renderPath(f.path), f.desired, f.live])).toEqual([['data.token', '++++++++', '++++++++++++']]);
  });
});

describe('jqPathExpressions run as Argo CD runs them', () => {
  const jq = new JqRunner(factorySource, 2000);
  afterAll(() => jq.close());
  const deployment = (replicas: number): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { replicas },
  });

  it('on the whole object: a select on the name or the kind selects (ignoreNormalizer marshals the object as it is)', async () => {
    for (const expr of ['select(.metadata.name == "web") | .spec.replicas', 'select(.kind == "Deployment") | .spec.replicas']) {
      const rules = [rule({ group: '*', kind: '*', jqPathExpressions: [expr] })];
      const d = await diffObject({ desired: deployment(2), live: deployment(5), rules, fieldManager: 'm', jq: async () => jq });
      expect([expr, d.status]).toEqual([expr, 'in-sync']);
    }
    const other = [rule({ group: '*', kind: '*', jqPathExpressions: ['select(.metadata.name == "api") | .spec.replicas'] })];
    expect((await diffObject({ desired: deployment(2), live: deployment(5), rules: other, fieldManager: 'm', jq: async () => jq })).status).toBe('drifted');
  });

  it('a path jq makes up from a value (not in the object) is no ignored field: a Secret value never becomes a field name', async () => {
    const secret = (token: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { token } });
    const rules = [rule({ kind: 'Secret', jqPathExpressions: ['.data[.data.token]', '.metadata.annotations[(.data.token|@base64d)]'] })];
    const plan = await planIgnores(
      rules,
      { group: '', kind: 'Secret', namespace: '', name: 's' },
      { data: { token: 'UExBTlRFRA==' } },
      { data: { token: 'UExBTlRFRDI=' } },
      secret('UExBTlRFRDI='),
      async () => jq,
      { hideValues: true },
    );
    expect([plan.desired, plan.live]).toEqual([[], []]);
    const d = await diffObject({ desired: secret('UExBTlRFRA=='), live: secret('UExBTlRFRDI='), rules, fieldManager: 'm', jq: async () => jq });
    expect(JSON.stringify(d)).not.toMatch(/PLANTED|UExBTlRFRA/);
  });
});
