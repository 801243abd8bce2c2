// renderPlan: kv lines, the JSON document (paths as text, base before head), the table and the Markdown of a pull-request
// comment (a summary table, one <details> per app, pipes escaped, Secret values as the report masked them).
import { renderPlan } from '../../../src/render/plan.js';
import { paint } from '../../../src/render/colour.js';
import { parsePath } from '../../../src/model/field-path.js';
import type { PlanReport } from '../../../src/workflows/plan/plan.js';

const FM = 'argocd-controller';
const BASE = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);

const report: PlanReport = {
  schemaVersion: 1,
  at: '2026-12-04T12:00:00.000Z',
  apps: [
    {
      app: 'shop',
      base: BASE,
      head: HEAD,
      sync: 'manual',
      prune: { enabled: true, why: 'a manual sync with --prune' },
      objects: [
        {
          key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' },
          apiVersion: 'apps/v1',
          action: 'update',
          origin: 'this-change',
          wave: 0,
          fields: [
            {
              path: parsePath('spec.replicas'),
              pointer: '/spec/replicas',
              base: 1,
              desired: 1,
              live: 3,
              owners: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', subresource: 'scale' }],
              verdict: 'conflict',
              origin: 'already-there',
            },
            {
              path: parsePath('spec.template.spec.containers[name=web].image'),
              pointer: '/spec/template/spec/containers/0/image',
              base: 'nginx:1.26',
              desired: 'nginx:1.27',
              live: 'nginx:1.26',
              owners: [{ manager: FM, operation: 'Apply', apiVersion: 'apps/v1' }],
              verdict: 'drift',
              origin: 'this-change',
            },
          ],
        },
        {
          key: { group: '', kind: 'Secret', namespace: 'shop', name: 'creds' },
          apiVersion: 'v1',
          action: 'update',
          origin: 'this-change',
          fields: [
            {
              path: parsePath('data.password'),
              pointer: '/data/password',
              base: '++++++++++++',
              desired: '++++++++',
              live: '++++++++++++',
              owners: [],
              verdict: 'drift',
              origin: 'this-change',
            },
          ],
        },
        { key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'settings' }, apiVersion: 'v1', action: 'prune', origin: 'this-change', fields: [] },
        {
          key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'left|over' },
          apiVersion: 'v1',
          action: 'keep',
          origin: 'already-there',
          reason: 'Prune=false',
          fields: [],
        },
      ],
      hooks: [],
      summary: { thisChange: 3, alreadyThere: 1, inSync: 2 },
      warnings: [],
    },
    {
      app: 'cart',
      base: 'main',
      head: 'pr-42',
      sync: 'automated',
      refused: 'project frozen: blocked by the active deny window',
      prune: { enabled: false, why: 'automated.prune is off: the candidates stay live, OutOfSync' },
      objects: [],
      hooks: [{ group: 'batch', kind: 'Job', namespace: 'cart', name: 'migrate', phases: ['PreSync'] }],
      summary: { thisChange: 0, alreadyThere: 0, inSync: 1 },
      warnings: [],
    },
  ],
};

test('kv: one block per app, CHANGE / DRIFT per field with the other owners, CREATE/PRUNE/KEEP per object, the counts', () => {
  expect(renderPlan(report, 'kv', paint(false), FM)).toBe(
    [
      'APP=shop',
      `BASE=${BASE}`,
      `HEAD=${HEAD}`,
      'DRIFT=Deployment/web spec.replicas',
      'OWNER=Deployment/web spec.replicas kubectl',
      'CHANGE=Deployment/web spec.template.spec.containers[name=web].image',
      'CHANGE=Secret/creds data.password',
      'PRUNE=ConfigMap/settings this-change',
      'KEEP=ConfigMap/left|over already-there Prune=false',
      'THIS_CHANGE=3',
      'ALREADY_THERE=1',
      'IN_SYNC=2',
      'APP=cart',
      'BASE=main',
      'HEAD=pr-42',
      'REFUSED=project frozen: blocked by the active deny window',
      'THIS_CHANGE=0',
      'ALREADY_THERE=0',
      'IN_SYNC=1',
      '',
    ].join('\n'),
  );
});

test('JSON: each object its key flattened, each field its path as text, origin and verdict, base before head', () => {
  const doc = JSON.parse(renderPlan(report, 'json', paint(false), FM));
  expect(doc.apps[0].objects[0]).toEqual({
    group: 'apps',
    kind: 'Deployment',
    namespace: 'shop',
    name: 'web',
    apiVersion: 'apps/v1',
    action: 'update',
    origin: 'this-change',
    wave: 0,
    fields: [
      {
        path: 'spec.replicas',
        pointer: '/spec/replicas',
        origin: 'already-there',
        verdict: 'conflict',
        base: 1,
        desired: 1,
        live: 3,
        owners: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', subresource: 'scale' }],
      },
      {
        path: 'spec.template.spec.containers[name=web].image',
        pointer: '/spec/template/spec/containers/0/image',
        origin: 'this-change',
        verdict: 'drift',
        base: 'nginx:1.26',
        desired: 'nginx:1.27',
        live: 'nginx:1.26',
        owners: [{ manager: FM, operation: 'Apply', apiVersion: 'apps/v1' }],
      },
    ],
  });
  expect(Object.keys(doc.apps[0].objects[0].fields[0])).toEqual(['path', 'pointer', 'origin', 'verdict', 'base', 'desired', 'live', 'owners']);
  expect(doc.apps[1].refused).toBe('project frozen: blocked by the active deny window');
});

test('Markdown: the summary table, a collapsible section per app, pipes escaped, masked Secret values only', () => {
  const md = renderPlan(report, 'markdown', paint(false), FM);
  expect(md).toBe(
    [
      '### kubectl gitops plan',
      '',
      '| Application | Base | Head | This change | Already there | In sync | Sync at head |',
      '|---|---|---|---|---|---|---|',
      '| shop | `aaaaaaa` | `bbbbbbb` | 3 | 1 | 2 | changes live objects |',
      '| cart | `main` | `pr-42` | 0 | 0 | 1 | refused: project frozen: blocked by the active deny window |',
      '',
      '<details><summary><b>shop</b>: 3 change(s) from this change, 1 already there, 2 object(s) in sync</summary>',
      '',
      '| Object | Action | Field | Base | Head | Live | Owner | From |',
      '|---|---|---|---|---|---|---|---|',
      '| Deployment/web (shop) | update | `spec.replicas` | `1` | `1` | `3` | kubectl (Update/scale) | already there |',
      '| Deployment/web (shop) | update | `spec.template.spec.containers[name=web].image` | `"nginx:1.26"` | `"nginx:1.27"` | `"nginx:1.26"` | argocd-controller (Apply) | this change |',
      '| Secret/creds (shop) | update | `data.password` | `"++++++++++++"` | `"++++++++"` | `"++++++++++++"` | - | this change |',
      '| ConfigMap/settings (shop) | prune |  |  |  |  |  | this change |',
      '| ConfigMap/left\\|over (shop) | keep: Prune=false |  |  |  |  |  | already there |',
      '',
      '</details>',
      '',
      '<details><summary><b>cart</b>: 0 change(s) from this change, 0 already there, 1 object(s) in sync</summary>',
      '',
      '**Refused** (the automated sync at 2026-12-04T12:00:00.000Z): project frozen: blocked by the active deny window',
      '',
      '- hook Job/migrate runs in PreSync',
      '</details>',
      '',
    ].join('\n'),
  );
});

test('table: per app a title, each object with its action and origin, the field rows, the refusal and the summary', () => {
  const text = renderPlan(report, 'table', paint(false), FM);
  expect(text.split('\n').slice(0, 6)).toEqual([
    'Application shop: base aaaaaaa, head bbbbbbb',
    'Deployment/web (apps/v1, namespace shop)  UPDATE  this change',
    '  PATH                                           BASE          HEAD          LIVE          OWNER                      VERDICT   FROM',
    '  spec.replicas                                  1             1             3             kubectl (Update/scale)     conflict  already there',
    '  spec.template.spec.containers[name=web].image  "nginx:1.26"  "nginx:1.27"  "nginx:1.26"  argocd-controller (Apply)  drift     this change',
    'Secret/creds (v1, namespace shop)  UPDATE  this change',
  ]);
  expect(text).toContain('ConfigMap/left|over (v1, namespace shop)  KEEP: PRUNE=FALSE  already there');
  expect(text).toContain('REFUSED the automated sync at head at 2026-12-04T12:00:00.000Z: project frozen: blocked by the active deny window');
  expect(text.trimEnd().split('\n').at(-1)).toBe('0 change(s) from this change, 0 already there, 1 object(s) in sync');
});

test('--offline: said first in every mode (kv OFFLINE=true, the table and the comment a note)', () => {
  const offline: PlanReport = { ...report, offline: true, apps: [report.apps[1]!] };
  expect(renderPlan(offline, 'kv', paint(false), FM).split('\n').slice(0, 2)).toEqual(['OFFLINE=true', 'APP=cart']);
  expect(renderPlan(offline, 'table', paint(false), FM).split('\n')[0]).toBe('offline: the head render compared with the base render, not with the cluster');
  expect(renderPlan(offline, 'markdown', paint(false), FM).split('\n').slice(0, 3)).toEqual([
    '### kubectl gitops plan',
    '',
    '_offline: the head render compared with the base render, not with the cluster_',
  ]);
  expect(JSON.parse(renderPlan(offline, 'json', paint(false), FM)).offline).toBe(true);
});

test('--all: the apps named namespace/name, and the ones left out listed with the reason in every mode', () => {
  const all: PlanReport = {
    ...report,
    apps: [{ ...report.apps[1]!, namespace: 'team' }],
    skipped: [{ namespace: 'argocd', name: 'pinned', reason: 'it follows v1.2.0, not main' }],
  };
  expect(
    renderPlan(all, 'kv', paint(false), FM)
      .split('\n')
      .filter((l) => /^(APP|SKIPPED)=/.test(l)),
  ).toEqual(['APP=team/cart', 'SKIPPED=argocd/pinned it follows v1.2.0, not main']);
  const table = renderPlan(all, 'table', paint(false), FM).trimEnd().split('\n');
  expect(table[0]).toBe('Application team/cart: base main, head pr-42');
  expect(table.slice(-2)).toEqual(['Left out (1): the change is not about them', '  argocd/pinned: it follows v1.2.0, not main']);
  const md = renderPlan(all, 'markdown', paint(false), FM).trimEnd().split('\n');
  expect(md[4]).toBe('| team/cart | `main` | `pr-42` | 0 | 0 | 1 | refused: project frozen: blocked by the active deny window |');
  expect(md.at(-1)).toBe('Left out (1): argocd/pinned (it follows v1.2.0, not main)');
  expect(JSON.parse(renderPlan(all, 'json', paint(false), FM)).skipped).toEqual(all.skipped);
  // Nothing follows the base: said, not an empty page.
  expect(renderPlan({ ...all, apps: [] }, 'table', paint(false), FM)).toContain('No Application follows the base revision: nothing to plan.');
});

test("an ApplicationSet's apps: APPLICATION_SET= first, PRESENCE= for one that appears or disappears, the reason of a disappearance", () => {
  const gone = {
    ...report.apps[1]!,
    app: 'b-set',
    namespace: 'apps',
    presence: 'disappears' as const,
    refused: undefined,
    objects: [],
    hooks: [],
    prune: { enabled: true, why: 'no longer generated at head: the ApplicationSet controller deletes the Application' },
    summary: { thisChange: 1, alreadyThere: 0, inSync: 0 },
  };
  const set: PlanReport = { ...report, applicationSet: 'apps/sets', apps: [{ ...report.apps[0]!, namespace: 'apps', presence: 'appears' }, gone] };
  const kvText = renderPlan(set, 'kv', paint(false), FM).split('\n');
  expect(kvText.slice(0, 5)).toEqual(['APPLICATION_SET=apps/sets', 'APP=apps/shop', `BASE=${BASE}`, `HEAD=${HEAD}`, 'PRESENCE=appears']);
  expect(kvText.slice(-9)).toEqual([
    'APP=apps/b-set',
    'BASE=main',
    'HEAD=pr-42',
    'PRESENCE=disappears',
    'PRESENCE_NOTE=no longer generated at head: the ApplicationSet controller deletes the Application',
    'THIS_CHANGE=1',
    'ALREADY_THERE=0',
    'IN_SYNC=0',
    '',
  ]);
  const table = renderPlan(set, 'table', paint(false), FM);
  expect(table).toContain('Application apps/shop: base aaaaaaa, head bbbbbbb (generated at head only: it appears)');
  expect(table).toContain('Application apps/b-set: base main, head pr-42 (generated at base only: it disappears)\nno longer generated at head');
  const md = renderPlan(set, 'markdown', paint(false), FM);
  expect(md).toContain('ApplicationSet `apps/sets`: its Applications as generated at base and at head');
  expect(md).toContain(
    '| apps/b-set | `main` | `pr-42` | 1 | 0 | 0 | disappears: no longer generated at head: the ApplicationSet controller deletes the Application |',
  );
});

test('a multi-source app: each source the change moves, with its commits, in every mode', () => {
  const multi: PlanReport = {
    ...report,
    apps: [
      {
        ...report.apps[1]!,
        sources: [
          { position: 2, repoURL: 'https://git.example.com/org/values', base: BASE, head: HEAD },
          { position: 3, repoURL: 'https://git.example.com/org/shop', path: 'deploy', base: 'main', head: 'pr-42' },
        ],
      },
    ],
  };
  expect(
    renderPlan(multi, 'kv', paint(false), FM)
      .split('\n')
      .filter((l) => l.startsWith('SOURCE=')),
  ).toEqual([`SOURCE=2 https://git.example.com/org/values ${BASE} ${HEAD}`, 'SOURCE=3 https://git.example.com/org/shop main pr-42']);
  expect(renderPlan(multi, 'table', paint(false), FM).split('\n').slice(0, 3)).toEqual([
    'Application cart: base main, head pr-42',
    'source 2 https://git.example.com/org/values: base aaaaaaa, head bbbbbbb',
    'source 3 https://git.example.com/org/shop deploy: base main, head pr-42',
  ]);
  expect(renderPlan(multi, 'markdown', paint(false), FM)).toContain(
    'Sources this change moves: 2 (`https://git.example.com/org/values`: `aaaaaaa` → `bbbbbbb`), 3 (`https://git.example.com/org/shop deploy`: `main` → `pr-42`)',
  );
  expect(JSON.parse(renderPlan(multi, 'json', paint(false), FM)).apps[0].sources).toEqual(multi.apps[0]!.sources);
  // A single-source app says nothing of sources.
  expect(renderPlan(report, 'kv', paint(false), FM)).not.toContain('SOURCE=');
});

test('plan --recursive: each child names the app that renders it (PARENT= in kv, the title, the comment, parent in JSON)', () => {
  const tree: PlanReport = { ...report, apps: [report.apps[0]!, { ...report.apps[1]!, namespace: 'argocd', parent: 'argocd/shop' }] };
  expect(
    renderPlan(tree, 'kv', paint(false), FM)
      .split('\n')
      .filter((l) => /^(APP|PARENT)=/.test(l)),
  ).toEqual(['APP=shop', 'APP=argocd/cart', 'PARENT=argocd/shop']);
  expect(renderPlan(tree, 'table', paint(false), FM)).toContain('Application argocd/cart (rendered by argocd/shop): base main, head pr-42');
  expect(renderPlan(tree, 'markdown', paint(false), FM)).toContain('| argocd/cart (rendered by argocd/shop) | `main` | `pr-42` |');
  expect(JSON.parse(renderPlan(tree, 'json', paint(false), FM)).apps[1].parent).toBe('argocd/shop');
});

test('what the sync at head does beyond the comparison: an ignored field written back, a take-over, a failing object, a kept candidate, a new hook, an unknown deletion', () => {
  const r: PlanReport = {
    schemaVersion: 1,
    at: '2026-12-04T12:00:00.000Z',
    apps: [
      {
        app: 'shop',
        base: BASE,
        head: HEAD,
        sync: 'automated',
        prune: { enabled: false, why: 'automated.prune is off: the candidates stay live, OutOfSync' },
        objects: [
          {
            key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' },
            apiVersion: 'apps/v1',
            action: 'update',
            origin: 'already-there',
            sharedWith: 'billing',
            fields: [
              {
                path: parsePath('spec.replicas'),
                pointer: '/spec/replicas',
                base: 2,
                desired: 2,
                live: 5,
                owners: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', subresource: 'scale' }],
                verdict: 'conflict',
                rule: { index: 0, type: 'jsonPointers', value: '/spec/replicas' },
                origin: 'already-there',
              },
            ],
          },
          {
            key: { group: 'example.com', kind: 'Gadget', namespace: 'shop', name: 'g1' },
            apiVersion: 'example.com/v1',
            action: 'fail',
            origin: 'this-change',
            fields: [],
            reason: 'the cluster does not serve Gadget in example.com/v1',
          },
          {
            key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'old' },
            apiVersion: 'v1',
            action: 'keep',
            origin: 'this-change',
            fields: [],
            reason: 'not pruned: automated.prune is off',
          },
        ],
        hooks: [
          { group: 'batch', kind: 'Job', namespace: 'shop', name: 'migrate', phases: ['PreSync'], origin: 'this-change' },
          { group: 'batch', kind: 'Job', namespace: 'shop', name: '', generateName: 'smoke-', phases: ['PostSync'] },
        ],
        summary: { thisChange: 1, alreadyThere: 1, inSync: 0 },
        warnings: [],
      },
      {
        app: 'gone',
        presence: 'disappears',
        base: BASE,
        head: HEAD,
        sync: 'manual',
        unknown: 'its objects could not be listed (the live scan: forbidden)',
        prune: { enabled: true, why: 'no longer generated at head' },
        objects: [],
        hooks: [],
        summary: { thisChange: 1, alreadyThere: 0, inSync: 0 },
        warnings: [],
      },
    ],
  };
  expect(renderPlan(r, 'kv', paint(false), FM)).toBe(
    [
      'APP=shop',
      `BASE=${BASE}`,
      `HEAD=${HEAD}`,
      'DRIFT=Deployment/web spec.replicas',
      'OWNER=Deployment/web spec.replicas kubectl',
      'SHARED=Deployment/web billing',
      'FAIL=Gadget/g1 this-change the cluster does not serve Gadget in example.com/v1',
      'KEEP=ConfigMap/old this-change not pruned: automated.prune is off',
      'HOOK=PreSync Job/migrate this-change',
      'THIS_CHANGE=1',
      'ALREADY_THERE=1',
      'IN_SYNC=0',
      'APP=gone',
      `BASE=${BASE}`,
      `HEAD=${HEAD}`,
      'PRESENCE=disappears',
      'PRESENCE_NOTE=no longer generated at head',
      'UNKNOWN=its objects could not be listed (the live scan: forbidden)',
      'THIS_CHANGE=1',
      'ALREADY_THERE=0',
      'IN_SYNC=0',
      '',
    ].join('\n'),
  );
  const table = renderPlan(r, 'table', paint(false), FM);
  expect(table).toContain('Gadget/g1 (example.com/v1, namespace shop)  FAIL: THE CLUSTER DOES NOT SERVE GADGET IN EXAMPLE.COM/V1  this change');
  expect(table).toContain('  taken over from application billing (its tracking mark; SharedResourceWarning)');
  expect(table).toContain('conflict (ignored, but written)');
  expect(table).toContain('hook Job/migrate runs in PreSync  this change (added or changed)');
  expect(table).toContain('hook Job/smoke- runs in PostSync\n');
  expect(table).toContain('UNKNOWN its objects could not be listed');
  expect(table).not.toContain('not pruned: automated.prune is off: the candidates');
  const md = renderPlan(r, 'markdown', paint(false), FM);
  expect(md).toContain('| shop | `aaaaaaa` | `bbbbbbb` | 1 | 1 | 0 | fails 1 object(s) |');
  expect(md).toContain(
    '| gone | `aaaaaaa` | `bbbbbbb` | 1 | 0 | 0 | disappears: no longer generated at head; unknown: its objects could not be listed (the live scan: forbidden) |',
  );
  expect(md).toContain('- hook Job/migrate runs in PreSync (this change: added or changed)');
  expect(md).toContain('update, taken over from application billing (its tracking mark; SharedResourceWarning)');
  expect(md).toContain('already there (ignored, but written) |');
});
