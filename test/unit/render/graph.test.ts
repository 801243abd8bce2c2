// The live map (status --tree -o dot|svg); its golden files for the broken app (status-broken.dot, .svg) are checked in golden.test.ts.
import { buildStatusReport } from '../../../src/health/report.js';
import { appGraph, NODE_HEIGHT, statusLine } from '../../../src/render/graph.js';
import { renderDot } from '../../../src/render/graph-dot.js';
import { escapeXml, renderSvg } from '../../../src/render/graph-svg.js';
import { renderStatusGraph } from '../../../src/render/status-graph.js';
import { brokenInput, cm, res, app } from '../health/status-fixtures.js';
import type { KubeObject } from '../../../src/model/object.js';

describe('the live map', () => {
  const report = () => buildStatusReport(brokenInput());

  it('draws dot and svg, and nothing for a table', () => {
    expect(renderStatusGraph(report(), 'dot')).toMatch(/^digraph /);
    expect(renderStatusGraph(report(), 'svg')).toMatch(/^<svg /);
    expect(renderStatusGraph(report(), 'table')).toBeUndefined();
  });

  it('has the Application, its resources and Deployment → ReplicaSet → Pod, with health in words', () => {
    const g = appGraph(report());
    const by = (kind: string) => g.nodes.find((n) => n.kind === kind)!;
    expect(g.nodes.map((n) => `${n.depth} ${n.kind}/${n.name}`)).toEqual([
      '0 Application/shop',
      '1 ConfigMap/metrics',
      '1 ConfigMap/old-config',
      '1 ConfigMap/web-config',
      '1 Service/web',
      '1 Deployment/broken',
      '2 ReplicaSet/broken-6f9c',
      '3 Pod/broken-6f9c-abcde',
    ]);
    expect(g.edges.filter((e) => e.worst).map((e) => `${e.from}->${e.to}`)).toEqual(['app->n5', 'n5->n6', 'n6->n7']);
    expect(by('Pod').cause).toMatch(/^Pod\/broken-6f9c-abcde: Unschedulable: 0\/2 nodes are available/);
    expect(statusLine(by('Pod'))).toBe('◌ Progressing');
    expect(statusLine(g.nodes.find((n) => n.name === 'web' && n.kind === 'Service')!)).toBe('♥ Healthy · OutOfSync (2 fields)');
    expect(statusLine(g.nodes.find((n) => n.name === 'metrics')!)).toBe('∅ Missing · OutOfSync (missing)');
    expect(statusLine(g.nodes.find((n) => n.name === 'old-config')!)).toBe('extra: prune candidate');
    // Children sit one column to the right; a parent is centred on its children.
    expect(by('ReplicaSet').x).toBeGreaterThan(by('Deployment').x);
    expect(by('ReplicaSet').y).toBe(by('Pod').y);
    const rows = g.nodes.filter((n) => n.depth === 1).map((n) => n.y);
    expect(new Set(rows).size).toBe(rows.length);
    expect(by('Application').y).toBe(Math.round((rows[0]! + rows[rows.length - 1]!) / 2));
    expect(g.height).toBeGreaterThanOrEqual(rows.length * NODE_HEIGHT);
  });

  it('escapes names in dot and svg, and marks nothing as worst when Healthy', () => {
    const weird = cm('a"b<c>&d');
    const r = buildStatusReport({ app: app(), resources: [res(weird, 'in-sync')], children: [] });
    const g = appGraph(r);
    expect(g.nodes.some((n) => n.worst)).toBe(false);
    expect(renderDot(g)).toContain('label="ConfigMap\\na\\"b<c>&d\\nSynced"');
    const svg = renderSvg(g);
    expect(svg).toContain('a&quot;b&lt;c&gt;&amp;d');
    expect(svg).not.toContain('a"b<c>');
    expect(escapeXml(`<'&">`)).toBe('&lt;&#39;&amp;&quot;&gt;');
  });

  it('cuts a long name in its middle, so that two runs of a generateName hook stay apart; the whole name in the title', () => {
    const runs = ['upgrade-sql-schema0d521c6-presync-1796681205', 'upgrade-sql-schema0d521c6-presync-1796681222'].map((name) => cm(name));
    const svg = renderSvg(appGraph(buildStatusReport({ app: app(), resources: runs.map((o) => res(o, 'in-sync')), children: [] })));
    expect(svg).toContain('>upgrade-sql-sch…ync-1796681205</text>');
    expect(svg).toContain('>upgrade-sql-sch…ync-1796681222</text>');
    expect(svg).toMatch(/<title>[^<]*upgrade-sql-schema0d521c6-presync-1796681205/);
  });

  it('shows the hooks still in the cluster beside the resources, with their phases and result', () => {
    const job: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: 'shop', uid: 'j1' },
      status: { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] },
    };
    const r = buildStatusReport({
      ...brokenInput(),
      hooks: [{ key: { group: 'batch', kind: 'Job', namespace: 'shop', name: 'migrate' }, phases: ['PreSync'], live: job }],
    });
    const hook = appGraph(r).nodes.find((n) => n.kind === 'Job')!;
    expect(hook).toMatchObject({ depth: 1, parent: 'app', hook: 'PreSync: Failed', healthMessage: 'Job has reached the specified backoff limit' });
    expect(statusLine(hook)).toBe('hook PreSync: Failed');
    expect(hook.worst).toBeUndefined();
    expect(renderDot(appGraph(r))).toContain('label="Job\\nmigrate\\nhook PreSync: Failed"');
  });

  it('with status --recursive a child Application node carries its own live health and sync, not a stored one', () => {
    const front: KubeObject = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'front', namespace: 'shop', uid: 'a1' }, spec: {} };
    const r = buildStatusReport({ app: app(), resources: [res(front, 'in-sync'), res(cm('settings'), 'in-sync')], children: [] });
    expect(appGraph(r).nodes.find((n) => n.kind === 'Application' && n.id !== 'app')!.health).toBeUndefined();
    r.children = [{ namespace: 'shop', name: 'front', sync: 'OutOfSync', health: 'Degraded', reason: 'Deployment/web: boom' }];
    const node = appGraph(r).nodes.find((n) => n.kind === 'Application' && n.id !== 'app')!;
    expect(node).toMatchObject({ health: 'Degraded', sync: 'Synced', healthMessage: 'application OutOfSync: Deployment/web: boom' });
    expect(statusLine(node)).toBe('✖ Degraded · Synced');
    expect(renderSvg(appGraph(r), { title: 't' })).toContain('application OutOfSync: Deployment/web: boom');
  });

  it('lays out a thousand pods without recursion trouble, one row each', () => {
    const deploy: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'big', namespace: 'shop', uid: 'd1' },
      spec: { replicas: 1000 },
      status: {},
    };
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'big-1', namespace: 'shop', uid: 'rs1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'big', uid: 'd1' }] },
    };
    const pods: KubeObject[] = Array.from({ length: 1000 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `big-1-${String(i).padStart(4, '0')}`,
        namespace: 'shop',
        uid: `p${i}`,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'big-1', uid: 'rs1' }],
      },
      status: { phase: 'Running' },
    }));
    const g = appGraph(buildStatusReport({ app: app(), resources: [res(deploy, 'in-sync')], children: [rs, ...pods] }));
    expect(g.nodes).toHaveLength(1003);
    expect(new Set(g.nodes.filter((n) => n.kind === 'Pod').map((n) => n.y)).size).toBe(1000);
    expect(renderSvg(g, { interactive: true }).match(/data-node="/g)).toHaveLength(1003);
  });
});
