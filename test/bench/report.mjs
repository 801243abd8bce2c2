// Renders the benchmark results as markdown: the machine, one table of medians (min–max), peak RSS
// and ratios, the goals checked against the figures, memory growth by size, failures and notes, and
// the hand-written profile analysis kept in test/bench/analysis.md.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './measure.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const fmtMs = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;

/** "median (min–max)" of a tool's runs, or why there is none. */
function cell(s) {
  if (!s) return '—';
  if (!s.ms.length) return s.errors.length ? `failed (${s.errors.length}×)` : '—';
  const m = median(s.ms);
  if (s.ms.length === 1) return `${fmtMs(m)} (1 run)`;
  return `${fmtMs(m)} (${fmtMs(Math.min(...s.ms))}–${fmtMs(Math.max(...s.ms))})`;
}
const rss = (s) => (s?.rssKb?.length ? mb(Math.max(...s.rssKb)) : '—');
const med = (s) => (s?.ms?.length ? median(s.ms) : undefined);

function ratioText(x, better) {
  if (x === undefined || !Number.isFinite(x)) return '—';
  return `${x.toFixed(2)}×${better === undefined ? '' : better ? '' : ' ⚠'}`;
}

/** The tools' results of a row, with kubectl taken from the scenario it is shared with. */
function rowTools(row, results) {
  const from = row.kubectlFrom ? results.find((r) => r.id === row.kubectlFrom && r.size === row.size) : undefined;
  return { ours: row.res.ours, kubectl: row.res.kubectl ?? from?.res.kubectl, kapp: row.res.kapp ?? from?.res.kapp, limit: row.res.limit ?? row.res.floor };
}

export function renderResults({ info, results, runs, startupRuns, sizes }) {
  const L = [];
  L.push("# Benchmarks: kubectl-gitops against kubectl, kapp and the API server's limit", '');
  L.push('Written by `npm run bench` (test/bench/run.mjs). **All ratios come from one run of the script** on a shared machine;');
  L.push('other work was running on the same cores (load below), so treat differences under ~20% as noise.', '');
  L.push('## Machine', '');
  L.push(`- date: ${info.date}; ${info.nproc} CPUs (${info.cpu}); ${info.memGiB} GiB memory (${info.freeGiB} GiB free at start)`);
  L.push(`- load average at start: ${info.load}; at end: ${info.loadEnd ?? '?'}`);
  L.push(`- ${info.ours}; kubectl ${info.kubectl}; ${info.kapp ?? 'kapp not measured'}; runner on Node ${info.node}; working tree at commit ${info.commit}`);
  L.push(`- control plane: the local one from test/cluster (kube-apiserver 1.35.4, etcd, kwok), started for the bench alone`);
  L.push(`- sizes: ${sizes.join(', ')} objects; ${runs} runs per tool and scenario (start-up: ${startupRuns}), tools alternated run by run`, '');
  L.push('## Peers and the limit', '');
  L.push('- **kubectl** 1.35.4 (built with the control plane): `kubectl diff --server-side --force-conflicts --field-manager argocd-controller -n NS -f DIR`');
  L.push('  (its diff is always a server-side dry-run, one object at a time with the default `--concurrency 1`; `--force-conflicts` so that fields');
  L.push(
    '  drifted by another manager show as a diff instead of failing with 409 after 4 retries); `kubectl apply --server-side --field-manager argocd-controller`;',
  );
  L.push(
    '  `KUBECTL_APPLYSET=true kubectl apply --prune --applyset=NAME --server-side --dry-run=server` for the prune scan; `kubectl version --client` for start-up.',
  );
  if (info.kapp && !info.kapp.startsWith('not measured')) {
    L.push(
      `- **kapp** (${info.kapp.replace(/^kapp version /, '')}, built from its Go module carvel.dev/kapp by test/bench/build-kapp): it deploys its own copy of each app,`,
    );
    L.push('  the same generated objects in namespace NS-kapp (kapp labels what it owns and refuses objects another tool applied).');
    L.push('  diff = `kapp deploy -a APP -n NS --into-ns NS -f DIR --diff-run --diff-exit-status --diff-changes`; sync = `kapp deploy ... -y`;');
    L.push('  both with `--wait=false` (kapp waits for readiness by default; our sync and kubectl apply do not). Its prune scan is');
    L.push('  `--diff-run` of the app with ten objects gone, among its own 10,000 unrelated ConfigMaps. kapp updates with its own');
    L.push('  three-way merge (PUT/PATCH with its `kapp.k14s.io/original` annotation), not server-side apply, and lists by its app label.');
  } else {
    L.push(`- **kapp: not measured** (${(info.kapp ?? 'this run predates kapp in the bench').replace(/^not measured: /, '')}).`);
  }
  L.push(
    "- **limit**: the least work the API server must do, issued by a minimal client (Node HTTP/2 over one TLS connection as kubectl's Go client does, with its flow-control windows (4 MiB a stream, 1 GiB the connection), 48 streams in flight, no client library;",
  );
  L.push('  test/bench/limit.mjs), timed from the first request to the last response with the objects preloaded as JSON:');
  L.push('  diff = one LIST per kind in the namespace; diff --server-side = one SSA dry-run per object; sync = one SSA per object;');
  L.push('  status = one LIST per kind plus ReplicaSets and Pods; prune scan = aggregated discovery plus one metadata-only LIST per listable kind');
  L.push('  (namespaced kinds in the namespace, cluster-scoped kinds once). For start-up the floor is the same Node 24 running `node -e 0`.');
  L.push("  Every tool but the limit is timed as a whole process (start-up included); peak RSS is GNU time's `%M` of that process.", '');
  L.push('## Results', '');
  L.push('Times are the median of the runs (min–max). "vs kubectl" = kubectl time / our time and "vs kapp" = kapp time / our time');
  L.push('(above 1: we are faster). "vs limit" = our time / the limit (1 is the floor).', '');
  L.push('| scenario | objects | kubectl-gitops | peak RSS | kubectl | peak RSS | kapp | peak RSS | limit | vs kubectl | vs kapp | vs limit |');
  L.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of results) {
    const t = rowTools(row, results);
    const o = med(t.ours);
    const k = med(t.kubectl);
    const a = med(t.kapp);
    const l = med(t.limit);
    const shared = row.kubectlFrom && t.kubectl ? ' ¹' : '';
    const sharedKapp = row.kubectlFrom && t.kapp ? ' ¹' : '';
    L.push(
      `| ${row.title} | ${row.size || '—'} | ${cell(t.ours)} | ${rss(t.ours)} | ${cell(t.kubectl)}${shared} | ${rss(t.kubectl)} | ${cell(t.kapp)}${sharedKapp} | ${rss(t.kapp)} | ${cell(t.limit)} | ${o && k ? ratioText(k / o) : '—'} | ${o && a ? ratioText(a / o) : '—'} | ${o && l ? ratioText(o / l) : '—'} |`,
    );
  }
  L.push(
    '',
    "¹ the same measurement as the row it is shared with: kubectl and kapp each have one diff (kubectl's always server-side); a no-op sync with",
    'ApplyOutOfSyncOnly=true is compared with the same kubectl apply and kapp deploy as the default no-op sync.',
    '',
  );
  const scanRows = results.filter((r) => r.res.limitScan?.ms.length);
  if (scanRows.length) {
    L.push('### The same rows against the limit that includes the extras scan', '');
    L.push('Our diff (and a no-op sync with ApplyOutOfSyncOnly=true, which is a diff plus a plan, and status) also reports objects that carry');
    L.push('the app\'s mark but are no longer declared, as Argo CD does. The plain limit above lists only the declared kinds; "limit + scan" is');
    L.push('the least such a command must read: discovery, one LIST per declared kind (for status, ReplicaSets and Pods too: the live');
    L.push("tree), and a metadata-only LIST of every other listable kind (namespaced ones in the app's namespace, cluster-scoped ones");
    L.push('once). Both limits are timed inside a process already started; ours is the whole process. The goals are judged against the');
    L.push('plain limit.', '');
    L.push('| scenario | objects | kubectl-gitops | limit | limit + scan | vs limit | vs limit + scan |');
    L.push('|---|---:|---:|---:|---:|---:|---:|');
    for (const row of scanRows) {
      const o = med(row.res.ours);
      const l = med(row.res.limit);
      const sc = med(row.res.limitScan);
      L.push(
        `| ${row.title} | ${row.size} | ${cell(row.res.ours)} | ${cell(row.res.limit)} | ${cell(row.res.limitScan)} | ${o && l ? ratioText(o / l) : '—'} | ${o && sc ? ratioText(o / sc) : '—'} |`,
      );
    }
    L.push('');
  }

  L.push('## Goals', '');
  const goal = (text, ok, figures) =>
    L.push(`- ${ok === undefined ? '❔ not measured' : ok ? '✅ met' : '❌ not met'}: ${text}${figures ? ` — ${figures}` : ''}`);
  const at = (id, size) => results.find((r) => r.id === id && r.size === size);
  const goalName = { diff: 'diff', 'sync-noop': 'no-op sync', 'sync-noop-oos': 'no-op sync with ApplyOutOfSyncOnly=true' };
  for (const id of ['diff', 'sync-noop', 'sync-noop-oos']) {
    const row = at(id, 1000);
    if (id === 'sync-noop-oos' && !row) continue;
    const t = row ? rowTools(row, results) : {};
    const o = med(t.ours);
    const k = med(t.kubectl);
    const l = med(t.limit);
    const a = med(t.kapp);
    goal(`${goalName[id]} of 1,000 objects ≥5× faster than kubectl`, o && k ? k / o >= 5 : undefined, o && k ? `${(k / o).toFixed(2)}×` : undefined);
    goal(`${goalName[id]} of 1,000 objects faster than kapp`, o && a ? o < a : undefined, o && a ? `${(a / o).toFixed(2)}×` : undefined);
    goal(`${goalName[id]} of 1,000 objects within 2× of the limit`, o && l ? o / l <= 2 : undefined, o && l ? `${(o / l).toFixed(2)}× the limit` : undefined);
  }
  {
    const row = results.find((r) => r.id === 'prune');
    const t = row ? rowTools(row, results) : {};
    const o = med(t.ours);
    const k = med(t.kubectl);
    const l = med(t.limit);
    goal(
      `prune scan of a ${row?.size ?? 10000}-object namespace faster than kubectl's ApplySet prune`,
      o && k ? o < k : undefined,
      o && k ? `${(k / o).toFixed(2)}×` : undefined,
    );
    goal('prune scan within 2× of the limit', o && l ? o / l <= 2 : undefined, o && l ? `${(o / l).toFixed(2)}× the limit` : undefined);
  }
  {
    const big = results.filter((r) => r.size === 5000 && r.res.ours?.rssKb?.length);
    const peak = big.length ? Math.max(...big.flatMap((r) => r.res.ours.rssKb)) : undefined;
    goal(
      'peak memory under 300 MB at 5,000 objects',
      peak === undefined ? undefined : peak < 300 * 1024,
      peak === undefined ? undefined : `highest ${mb(peak)}`,
    );
  }
  {
    const row = at('startup', 0);
    const o = med(row?.res.ours);
    const k = med(row?.res.kubectl);
    goal('start-up (`--help`) no slower than `kubectl version --client`', o && k ? o <= k : undefined, o && k ? `${fmtMs(o)} vs ${fmtMs(k)}` : undefined);
  }
  L.push('');

  L.push('## Growth with size (kubectl-gitops)', '');
  L.push('Median time and peak RSS per size; "per object" is the time above the 100-object run divided by the extra objects.', '');
  L.push(`| scenario | ${sizes.map((s) => `${s}: time / RSS`).join(' | ')} | ms per extra object |`);
  L.push(`|---|${sizes.map(() => '---:').join('|')}|---:|`);
  for (const id of ['sync-first', 'diff', 'diff-ss', 'sync-noop', 'sync-noop-oos', 'status', 'diff-drift', 'diff-ss-drift']) {
    const rows = sizes.map((s) => at(id, s));
    if (!rows.some((r) => r?.res.ours?.ms.length)) continue;
    const cells = rows.map((r) => (r?.res.ours?.ms.length ? `${fmtMs(median(r.res.ours.ms))} / ${rss(r.res.ours)}` : '—'));
    const first = rows[0]?.res.ours?.ms.length ? median(rows[0].res.ours.ms) : undefined;
    const lastRow = [...rows].reverse().find((r) => r?.res.ours?.ms.length);
    const per =
      first !== undefined && lastRow && lastRow.size !== sizes[0] ? ((median(lastRow.res.ours.ms) - first) / (lastRow.size - sizes[0])).toFixed(2) : '—';
    L.push(`| ${id} | ${cells.join(' | ')} | ${per} |`);
  }
  L.push('');

  const notes = [];
  for (const row of results) {
    for (const [tool, s] of Object.entries(row.res)) {
      for (const n of s.notes ?? []) notes.push(`- ${row.id} ${row.size || ''} ${tool}: ${n}`);
      const distinct = [...new Set(s.errors ?? [])];
      for (const e of distinct) notes.push(`- ${row.id} ${row.size || ''} ${tool} failed: ${e}`);
    }
  }
  L.push('## Failures and checks', '');
  L.push("Each run's output is checked (no drift where none was made, drift where it was, APPLIED and PRUNE counts); anything off is listed here.", '');
  L.push(...(notes.length ? notes : ['- none']), '');

  // The hand-written analysis is dated and kept apart: its figures are from the run it names, not from this one.
  const analysis = join(HERE, 'analysis.md');
  if (existsSync(analysis)) {
    L.push(
      '---',
      '',
      `*What follows is test/bench/analysis.md, written by hand about the run it names. This run's own figures are the tables above (run of ${info.date}).*`,
      '',
    );
    L.push(readFileSync(analysis, 'utf8').trim(), '');
  }
  return L.join('\n');
}
