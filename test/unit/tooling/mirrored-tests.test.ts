// A source file's unit test is found by its path: src/a/b.ts is tested by test/unit/a/b.test.ts. A file without one is
// listed below with the reason (the test that covers it instead, or what makes a test of its own pointless); the list
// may only shrink: a listed file that now has its test, or no longer exists, fails here too.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = process.cwd();

const WITHOUT_OWN_TEST: Record<string, string> = {
  'app/source-options.ts': 'the source options as data: test/unit/source/index.test.ts and source/render/detect.test.ts read them',
  'app/types.ts': 'types only',
  'cli/command.ts': 'the typed command wrapper: test/unit/cli/app.test.ts, argv.test.ts and inputs.test.ts run commands through it',
  'cli/commands/appset.ts': 'yargs definition only: test/unit/workflows/appset/generate.test.ts (the workflow) and test/integration/appset.test.ts',
  'cli/commands/completion.ts': 'yargs definition only: test/unit/cli/completion.test.ts and test/integration/completion.test.ts',
  'cli/commands/dashboard.ts': 'yargs definition only: test/unit/cli/dashboard.test.ts and test/integration/dashboard.test.ts',
  'cli/commands/diff.ts': 'yargs definition only: its flags in test/unit/cli/inputs.test.ts, its runs in test/integration/',
  'cli/commands/history.ts': 'yargs definition only: test/integration/app-record.test.ts',
  'cli/commands/list.ts': 'yargs definition only: test/unit/workflows/list.test.ts (the workflow) and test/integration/',
  'cli/commands/manifests.ts': 'yargs definition only: test/unit/workflows/manifests/manifests.test.ts and test/integration/manifests.test.ts',
  'cli/commands/normalize.ts': 'yargs definition only: test/unit/diff/cli-file-diff.test.ts runs it',
  'cli/commands/prune.ts': 'yargs definition only: its flags in test/unit/cli/inputs.test.ts, its runs in test/integration/',
  'cli/commands/rollback.ts': 'yargs definition only: its flags in test/unit/cli/inputs.test.ts, test/integration/app-rollback.test.ts',
  'cli/commands/status.ts': 'yargs definition only: its flags in test/unit/cli/inputs.test.ts, test/integration/status.test.ts',
  'cli/commands/sync.ts': 'yargs definition only: its flags in test/unit/cli/inputs.test.ts, test/unit/sync/progress.test.ts, test/integration/',
  'cli/commands/version.ts': 'yargs definition only: test/integration/smoke.test.ts',
  'cli/commands/windows.ts': 'yargs definition only: its flags in test/unit/cli/inputs.test.ts',
  'cli/completion-sources.ts': 'the completion candidates: test/unit/cli/completion.test.ts and test/integration/completion.test.ts',
  'cli/io.ts': 'an in-memory Io: used by every test of cli/',
  'cli/options.ts': 'flag definitions: test/unit/cli/app.test.ts, argv.test.ts and flag-rules.test.ts',
  'dashboard/live-object.ts': 'test/unit/dashboard/view.test.ts',
  'render/children.ts': "status and diff --recursive's child rows: test/unit/workflows/status/children.test.ts renders them through both",
  'dashboard/page.ts': "the page's script and style as strings: test/unit/dashboard/server.test.ts, test/integration/dashboard.test.ts (a browser)",
  'kube/builtin-types.ts':
    "a table: held against the API server's own types by test/integration/manifests.test.ts, read through test/unit/kube/offline.test.ts",
  'workflows/appset/sync.ts':
    'reads the cluster and carries the plan out: test/integration/appset.test.ts (appset sync); its plan is test/unit/appset/sync-plan.test.ts',
  'workflows/appset/engine.ts': 'needs the built Go template engine (plugin/.sea/gotemplate.wasm): test/integration/appset.test.ts',
  'source/render/wasi.ts': 'the WASI runner: test/integration/jsonnet-render.test.ts and test/integration/appset.test.ts run both engines through it',
  'diff/compare.ts': 'test/unit/diff/properties.test.ts and list-rule.test.ts',
  'diff/ignored-fields.ts': 'through the comparison: test/unit/diff/comparison.test.ts and test/unit/sync/ignored.test.ts',
  'diff/index.ts': 'the field-level diff: test/unit/diff/ignore.test.ts, properties.test.ts, removed.test.ts, status-field.test.ts',
  'diff/remove-paths.ts': 'through test/unit/sync/ignored.test.ts and the diff tests',
  'diff/types.ts': 'types only',
  'health/checks/apiservice.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/cronjob.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/daemonset.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/deployment.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/hpa.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/ingress.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/job.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/pdb.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/pod.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/pvc.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/replicaset.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/service.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/checks/statefulset.ts': 'one check per kind: test/unit/health/resource.test.ts',
  'health/fields.ts': "the checks' field readers: test/unit/health/resource.test.ts",
  'health/lua-check.ts': 'test/unit/health/custom.test.ts and test/unit/lua/engine.test.ts',
  'health/reason.ts': 'test/unit/health/tree.test.ts',
  'health/types.ts': 'types and the worst-of order: test/unit/health/aggregate.test.ts',
  'jq/load.ts': 'a lazy import of jq/runner.ts (tested in test/unit/jq/)',
  'kube/connect.ts': 'test/unit/kube/auth.test.ts and overrides.test.ts, test/integration/',
  'kube/gateway.ts': 'the gateway interface (types): test/support/fake-gateway.ts implements it',
  'kube/h2-session.ts': 'through test/unit/kube/client-gateway.test.ts (a real HTTP/2 server)',
  'kube/watch.ts': 'test/unit/watch/follow.test.ts',
  'lua/assets.ts': 'test/unit/lua/engine.test.ts',
  'main.ts': 'the process edge: every test/integration/ file runs the built binary',
  'manifest/index.ts': 'test/unit/manifest/manifest.test.ts',
  'manifest/parse.ts': 'test/unit/manifest/manifest.test.ts and test/unit/fuzz/manifest.fuzz.test.ts',
  'model/context.ts': 'types only',
  'model/keys.ts': 'constants only',
  'model/object.ts': 'the object model: used by nearly every test',
  'model/resource-type.ts': 'the resource type and two one-line helpers: test/unit/kube/discovery.test.ts, test/support/fake-gateway.ts',
  'normalize/index.ts': 'test/unit/normalize/normalize.test.ts and test/unit/fuzz/normalize.fuzz.test.ts',
  'ownership/fieldset.ts': 'test/unit/ownership/fieldsv1.test.ts and test/unit/fuzz/fieldsv1.fuzz.test.ts',
  'ownership/index.ts': 'test/unit/ownership/owners.test.ts and captured.test.ts',
  'render/document.ts': 'the -o json/yaml/kv document of list, history, sync --all: test/unit/workflows/list.test.ts',
  'render/graph-dot.ts': 'test/unit/render/graph.test.ts',
  'render/graph-svg.ts': 'test/unit/render/graph.test.ts',
  'render/history.ts': 'test/unit/workflows/list.test.ts',
  'render/kv.ts': 'test/unit/render/kv-env.test.ts',
  'render/list.ts': 'test/unit/workflows/list.test.ts',
  'render/live-diff.ts': 'test/unit/render/golden.test.ts',
  'render/prune.ts': 'test/unit/render/golden.test.ts and kv-env.test.ts',
  'render/status-graph.ts': 'test/unit/render/graph.test.ts and golden.test.ts',
  'render/sync-all.ts': 'test/unit/workflows/list.test.ts',
  'render/sync.ts': 'test/unit/render/golden.test.ts and test/unit/workflows/sync/sync.test.ts',
  'render/tree.ts': 'test/unit/render/status.test.ts',
  'render/version.ts': 'test/unit/cli/app.test.ts and test/integration/smoke.test.ts (the version command)',
  'render/windows.ts': 'test/unit/settings/sync-windows.test.ts (the report), test/integration/ (the command)',
  'render/yaml-out.ts': "normalize's YAML: test/unit/diff/cli-file-diff.test.ts",
  'settings/cron.ts': 'test/unit/settings/sync-windows.test.ts',
  'settings/go-duration.ts': 'test/unit/settings/sync-windows.test.ts',
  'settings/time-zone.ts': 'test/unit/settings/sync-windows.test.ts',
  'settings/window-report.ts': 'test/unit/settings/sync-windows.test.ts',
  'source/render/index.ts': 'test/unit/source/index.test.ts, test/integration/render-sources.test.ts',
  'source/render/jsonnet.ts': 'test/integration/jsonnet-render.test.ts (the real jsonnet)',
  'source/render/kustomize.ts': 'test/unit/source/render/kustomize-edit.test.ts, test/integration/kustomize-options.test.ts (the real kustomize)',
  'source/render/local.ts': 'test/unit/source/index.test.ts',
  'source/render/overrides.ts': 'test/unit/source/index.test.ts',
  'source/render/tree.ts': 'test/unit/source/index.test.ts',
  'source/repo-url.ts': 'test/unit/source/index.test.ts and cache.test.ts',
  'sync/phases.ts': 'test/unit/sync/hooks.test.ts',
  'sync/plan.ts': 'test/unit/workflows/sync/sync.test.ts and test/unit/workflows/sync/apply.test.ts',
  'tracking/method.ts': 'test/unit/tracking/tracking-id.test.ts and test/unit/settings/argocd-cm.test.ts',
  'tracking/select.ts': 'test/unit/tracking/tracking-id.test.ts',
  'version.ts': 'test/integration/smoke.test.ts (the version line)',
  'watch/backoff.ts': 'test/unit/watch/decide.test.ts',
  'workflows/session/application-source.ts': 'test/unit/workflows/session/session.test.ts and app-state.test.ts',
  'workflows/status/custom-health.ts': 'test/unit/health/status-workflow.test.ts, test/integration/health-kinds.test.ts',
  'workflows/dashboard.ts': 'test/unit/dashboard/view.test.ts, test/integration/dashboard.test.ts',
  'workflows/diff/file-diff.ts': 'test/unit/diff/pair.test.ts and file-cluster-parity.test.ts',
  'workflows/history/history.ts': 'test/unit/workflows/list.test.ts',
  'workflows/normalize.ts': 'test/unit/diff/cli-file-diff.test.ts',
  'workflows/sync/operation.ts': 'test/integration/interrupt.test.ts (SIGTERM mid-sync), app-record and app-rollback (the record around a sync and a rollback)',
  'workflows/session/rules.ts': 'test/unit/workflows/session/app-state.test.ts, test/integration/project-rules.test.ts',
  'workflows/status/status.ts': 'test/unit/health/status-workflow.test.ts and workflows/app-state.test.ts',
  'workflows/sync/requested.ts':
    'runs operation.ts for a requested sync: test/integration/watch-all.test.ts (a manual app synced by its operation field, recorded, the field removed)',
  'workflows/sync/sync-all.ts': 'test/unit/workflows/list.test.ts',
  'workflows/sync/sync-phases.ts': 'test/unit/workflows/sync/sync.test.ts',
  'workflows/sync/watch.ts': 'test/unit/watch/run-watch.test.ts',
  'workflows/windows.ts': 'test/unit/settings/sync-windows.test.ts, test/integration/ (the command)',
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const sources = files(join(ROOT, 'src')).map((f) => relative(join(ROOT, 'src'), f));
const mirrored = (source: string): string => join('test/unit', source.replace(/\.ts$/, '.test.ts'));
const hasOwnTest = (source: string): boolean => existsSync(join(ROOT, mirrored(source)));

test('every source file has its test at the mirrored path (src/a/b.ts: test/unit/a/b.test.ts), or is listed with a reason', () => {
  expect(sources.length).toBeGreaterThan(150);
  expect(sources.filter((s) => !hasOwnTest(s) && !(s in WITHOUT_OWN_TEST)).map(mirrored)).toEqual([]);
});

test('the list only shrinks: a listed file that has its test now, or is gone, is taken off', () => {
  expect(Object.keys(WITHOUT_OWN_TEST).filter((s) => hasOwnTest(s))).toEqual([]);
  expect(Object.keys(WITHOUT_OWN_TEST).filter((s) => !sources.includes(s))).toEqual([]);
  // Every entry says why, in one line.
  expect(Object.entries(WITHOUT_OWN_TEST).filter(([, why]) => why.trim() === '' || why.includes('\n'))).toEqual([]);
});
