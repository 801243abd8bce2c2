#!/usr/bin/env node
// Benchmark (not a test): file-mode `kubectl gitops diff` of N generated object pairs (default 10,000):
// wall time and peak RSS of the whole process, measured with /usr/bin/time -v around the built plugin.
//
// Usage: node test/bench/file-diff.mjs [--count 10000] [--runs 3] [--bin plugin/kubectl-gitops] [--keep]
// Without --bin it bundles src/main.ts with esbuild into a temporary CommonJS file and runs it with Node 24.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dump } from 'js-yaml';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const COUNT = Number(opt('count', '10000'));
const RUNS = Number(opt('runs', '3'));
const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const work = mkdtempSync(join(tmpdir(), 'gitops-bench-'));

/** A deterministic pseudo-random generator so every run diffs the same data. */
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;

function deployment(i) {
  const name = `app-${i}`;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: `ns-${i % 50}`, labels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'bench' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { 'app.kubernetes.io/name': name } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': name } },
        spec: {
          containers: [
            {
              name: 'main',
              image: `registry.local/${name}:1.${i % 17}.0`,
              ports: [{ containerPort: 8080, name: 'http' }],
              env: [
                { name: 'MODE', value: 'prod' },
                { name: 'INDEX', value: String(i) },
              ],
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: 1, memory: '1Gi' } },
            },
          ],
        },
      },
    },
  };
}

function configMap(i) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cfg-${i}`, namespace: `ns-${i % 50}` }, data: { LOG_LEVEL: 'info', INDEX: String(i) } };
}

function service(i) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `svc-${i}`, namespace: `ns-${i % 50}` },
    spec: { selector: { app: `app-${i}` }, ports: [{ port: 80, targetPort: 8080 }] },
  };
}

/** What the API server would return for a desired object: server metadata, defaults, managedFields, status; ~5% drifted. */
function liveOf(d, i) {
  const l = structuredClone(d);
  l.metadata = {
    ...l.metadata,
    uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    resourceVersion: String(100000 + i),
    generation: 1,
    creationTimestamp: '2026-11-29T10:00:00Z',
    annotations: {
      'argocd.argoproj.io/tracking-id': `bench:${d.apiVersion.includes('/') ? d.apiVersion.split('/')[0] : ''}/${d.kind}:${d.metadata.namespace}/${d.metadata.name}`,
    },
    managedFields: [
      {
        manager: 'argocd-controller',
        operation: 'Apply',
        apiVersion: d.apiVersion,
        time: '2026-11-29T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:spec': {} },
      },
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        apiVersion: d.apiVersion,
        subresource: 'status',
        time: '2026-11-29T10:01:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': {} },
      },
    ],
  };
  if (d.kind === 'Deployment') {
    Object.assign(l.spec, {
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    });
    const c = l.spec.template.spec.containers[0];
    Object.assign(c, { imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
    c.ports[0].protocol = 'TCP';
    c.resources.limits.cpu = '1000m';
    Object.assign(l.spec.template.spec, {
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
    });
    l.status = { replicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1, conditions: [{ type: 'Available', status: 'True' }] };
    if (rand() < 0.05) l.spec.replicas = 3;
    if (rand() < 0.05) c.image = `${c.image}-hotfix`;
  } else if (d.kind === 'Service') {
    Object.assign(l.spec, { clusterIP: `10.96.${i % 250}.${i % 200}`, type: 'ClusterIP', sessionAffinity: 'None' });
    l.spec.ports[0].protocol = 'TCP';
  } else if (rand() < 0.05) {
    l.data.LOG_LEVEL = 'debug';
  }
  return l;
}

function generate() {
  const desiredDir = join(work, 'desired');
  mkdirSync(desiredDir);
  const live = [];
  const perFile = 500;
  let docs = [];
  for (let i = 0; i < COUNT; i++) {
    const make = i % 3 === 0 ? deployment : i % 3 === 1 ? configMap : service;
    const d = make(i);
    docs.push(d);
    live.push(liveOf(d, i));
    if (docs.length === perFile || i === COUNT - 1) {
      // Desired as people write it: block-style multi-document YAML files in a directory.
      const file = join(desiredDir, `part-${String(Math.floor(i / perFile)).padStart(3, '0')}.yaml`);
      writeFileSync(file, docs.map((x) => dump(x)).join('---\n'));
      docs = [];
    }
  }
  // Live as `kubectl get -o json` prints it: one List.
  const liveFile = join(work, 'live.json');
  writeFileSync(liveFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: live }));
  return { desiredDir, liveFile };
}

function command() {
  const bin = opt('bin', undefined);
  if (bin) return [resolve(bin)];
  const out = join(work, 'kubectl-gitops.cjs');
  const esbuild = join(ROOT, 'node_modules/.bin/esbuild');
  const r = spawnSync(
    esbuild,
    [
      join(ROOT, 'src/main.ts'),
      '--bundle',
      '--platform=node',
      '--format=cjs',
      `--outfile=${out}`,
      '--define:import.meta.url=__u',
      '--banner:js=var __u=require("url").pathToFileURL(__filename).href;',
      '--log-level=warning',
    ],
    { stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('bundling failed');
  return [join(ROOT, 'node_modules/.bin/node'), out];
}

const { desiredDir, liveFile } = generate();
const cmd = command();
console.log(`pairs: ${COUNT} (desired: YAML directory, live: one JSON List with managedFields and status)`);
console.log(`command: ${[...cmd, 'diff', '--desired', '<dir>', '--live', '<file>', '-o', 'kv'].join(' ')}`);
const results = [];
for (let r = 0; r < RUNS; r++) {
  const t = spawnSync('/usr/bin/time', ['-v', ...cmd, 'diff', '--desired', desiredDir, '--live', liveFile, '-o', 'kv'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (t.status !== 0 && t.status !== 1) throw new Error(`diff failed (${t.status}): ${t.stderr}`);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(t.stderr);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(t.stderr);
  const seconds = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
  const user = Number(/User time \(seconds\): ([\d.]+)/.exec(t.stderr)?.[1]);
  const sys = Number(/System time \(seconds\): ([\d.]+)/.exec(t.stderr)?.[1]);
  const drift = t.stdout.split('\n').filter((l) => l.startsWith('DRIFT=')).length;
  results.push({ seconds, cpu: user + sys, rssMB: rss ? Number(rss[1]) / 1024 : NaN, exit: t.status, drift });
  console.log(
    `run ${r + 1}: ${seconds.toFixed(2)} s wall, ${(user + sys).toFixed(2)} s CPU (user+sys), ${(Number(rss?.[1]) / 1024).toFixed(0)} MB peak RSS, exit ${t.status}, ${drift} drifted fields`,
  );
}
// Wall time depends on what else runs on the machine: print the load so figures can be judged.
console.log(
  `load average at the end: ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
const best = Math.min(...results.map((x) => x.seconds));
const worstRss = Math.max(...results.map((x) => x.rssMB));
const bestCpu = Math.min(...results.map((x) => x.cpu));
console.log(`best wall ${best.toFixed(2)} s (goal < 2 s), best CPU ${bestCpu.toFixed(2)} s, max peak RSS ${worstRss.toFixed(0)} MB (goal < 300 MB)`);
if (!args.includes('--keep')) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
