// `node test/bench/render.mjs`: what rendering a Kustomize source costs a command, cold and from the render cache,
// side by side with what a user would run instead (`kustomize build`, `kubectl kustomize`) and with the same diff
// reading the already-rendered YAML. The app is a shop of our own in the shape of the sock-shop example (a base of
// 14 services, each a Deployment and a Service, and a ConfigMap; an overlay with labels, an image and replicas:
// 29 objects), in a git repository of its own, synced once to the bench's control plane. Runs are alternated.
// Writes test/bench/RENDER.md and RENDER.json.
//
// Environment (all optional): BENCH_RUNS=5, BENCH_KUBECONFIG, BENCH_KEEP_CLUSTER, BENCH_PLUGIN (default
// plugin/kubectl-gitops), BENCH_OUT (default test/bench/RENDER.md).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterBin, kubectlPath, startCluster, stopCluster } from './cluster.mjs';
import { cleanupMeasure, measure, median } from './measure.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const env = process.env;
const RUNS = Number(env.BENCH_RUNS ?? 5);
const OUT = resolve(env.BENCH_OUT ?? join(HERE, 'RENDER.md'));
const PLUGIN = resolve(env.BENCH_PLUGIN ?? join(ROOT, 'plugin', 'kubectl-gitops'));
const log = (msg) => process.stderr.write(`[render bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const SERVICES = [
  'front-end',
  'catalogue',
  'catalogue-db',
  'carts',
  'carts-db',
  'orders',
  'orders-db',
  'payment',
  'queue-master',
  'rabbitmq',
  'shipping',
  'user',
  'user-db',
  'session-db',
];

/** The shop's files: a base and a prod overlay. */
export function shopFiles() {
  const files = {};
  const resources = [];
  for (const name of SERVICES) {
    files[`base/${name}.yaml`] = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: {name: ${name}}
  template:
    metadata:
      labels: {name: ${name}}
    spec:
      containers:
      - name: ${name}
        image: registry.example/shop/${name}:0.4.8
        ports: [{containerPort: 80}]
        resources:
          limits: {cpu: 300m, memory: 500Mi}
          requests: {cpu: 100m, memory: 200Mi}
        securityContext: {runAsNonRoot: true, runAsUser: 10001, readOnlyRootFilesystem: true}
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  ports: [{port: 80, targetPort: 80}]
  selector: {name: ${name}}
`;
    resources.push(`${name}.yaml`);
  }
  files['base/settings.yaml'] = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-settings}\ndata: {currency: EUR}\n';
  resources.push('settings.yaml');
  files['base/kustomization.yaml'] =
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `- ${r}`).join('\n')}\n`;
  files['overlays/prod/kustomization.yaml'] = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../../base
labels:
- pairs: {team: shop, env: prod}
commonAnnotations: {shop.example/owner: platform}
images:
- name: registry.example/shop/front-end
  newTag: 0.5.0
replicas:
- name: front-end
  count: 2
`;
  return files;
}

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts }).toString();
}

async function main() {
  if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: npm run build first`);
  const work = mkdtempSync(join(tmpdir(), 'kgitops-render-bench-'));
  const cluster = startCluster(env, log);
  try {
    const kc = cluster.kubeconfig;
    const kubectl = kubectlPath(kc, env);
    const bin = clusterBin(kc);
    const kustomize = bin && existsSync(join(bin, 'kustomize')) ? join(bin, 'kustomize') : undefined;
    if (!kustomize) throw new Error('no kustomize beside the control plane binaries: run test/cluster/build');
    const repo = join(work, 'repo');
    for (const [rel, text] of Object.entries(shopFiles())) {
      mkdirSync(dirname(join(repo, rel)), { recursive: true });
      writeFileSync(join(repo, rel), text);
    }
    const git = (...a) =>
      run('git', ['-C', repo, ...a], {
        env: { ...env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@example.com' },
      });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'shop');
    const ns = `render-bench-${process.pid}`;
    run(kubectl, ['--kubeconfig', kc, 'create', 'namespace', ns]);
    const appFile = join(work, 'app.yaml');
    writeFileSync(
      appFile,
      `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\nspec:\n  source: {repoURL: ${repo}, targetRevision: main, path: overlays/prod}\n  destination: {server: https://kubernetes.default.svc, namespace: ${ns}}\n`,
    );
    const rendered = join(work, 'rendered.yaml');
    writeFileSync(rendered, run(kustomize, ['build', join(repo, 'overlays', 'prod')]));
    const xdg = join(work, 'xdg');
    const toolEnv = { ...env, KUBECONFIG: kc, XDG_CACHE_HOME: xdg, PATH: `${bin}${delimiter}${env.PATH}` };
    const renders = join(xdg, 'kubectl-gitops', 'renders');
    log(`syncing the shop (29 objects) into ${ns}`);
    const synced = await measure(PLUGIN, ['sync', '-f', appFile], { env: toolEnv });
    if (synced.code !== 0) throw new Error(`sync exited ${synced.code}: ${synced.stderr}`);
    const scenarios = [
      { id: 'kustomize', label: '`kustomize build overlays/prod` (the tool alone)', cmd: kustomize, args: ['build', join(repo, 'overlays', 'prod')] },
      { id: 'kubectl-kustomize', label: '`kubectl kustomize overlays/prod`', cmd: kubectl, args: ['kustomize', join(repo, 'overlays', 'prod')] },
      {
        id: 'diff-cold',
        label: '`kubectl gitops diff -f app.yaml`, render cache empty',
        cmd: PLUGIN,
        args: ['diff', '-f', appFile],
        before: () => rmSync(renders, { recursive: true, force: true }),
      },
      { id: 'diff-cached', label: '`kubectl gitops diff -f app.yaml`, render cached', cmd: PLUGIN, args: ['diff', '-f', appFile] },
      { id: 'diff-hard-refresh', label: '`kubectl gitops diff -f app.yaml --hard-refresh`', cmd: PLUGIN, args: ['diff', '-f', appFile, '--hard-refresh'] },
      {
        id: 'diff-plain',
        label: '`kubectl gitops diff -f app.yaml --desired rendered.yaml` (no render)',
        cmd: PLUGIN,
        args: ['diff', '-f', appFile, '--desired', rendered],
      },
    ];
    // One warm-up of each (the executable's code cache, the page cache), not counted.
    for (const s of scenarios) {
      s.before?.();
      const r = await measure(s.cmd, s.args, { env: toolEnv });
      if (r.code !== 0) throw new Error(`${s.id} exited ${r.code}: ${r.stderr.slice(0, 400)}`);
      s.ms = [];
    }
    for (let i = 0; i < RUNS; i++) {
      for (const s of scenarios) {
        s.before?.();
        const r = await measure(s.cmd, s.args, { env: toolEnv });
        if (r.code !== 0) throw new Error(`${s.id} exited ${r.code}: ${r.stderr.slice(0, 400)}`);
        s.ms.push(r.ms);
      }
      log(`round ${i + 1}/${RUNS}`);
    }
    run(kubectl, ['--kubeconfig', kc, 'delete', 'namespace', ns, '--wait=false']);
    const med = Object.fromEntries(scenarios.map((s) => [s.id, median(s.ms)]));
    const info = {
      date: new Date().toISOString(),
      cores: cpus().length,
      load: loadavg()
        .map((x) => x.toFixed(2))
        .join(' '),
      runs: RUNS,
      objects: 29,
    };
    const ratio = (a, b) => `${(med[a] / med[b]).toFixed(2)}×`;
    const md = [
      '# Render cost: a Kustomize source of 29 objects (test/bench/render.mjs)',
      '',
      `${info.date}, ${info.cores} cores, load average ${info.load} at the end; median of ${RUNS} alternated runs (min–max), after one warm-up each.`,
      '',
      '| command | median ms | min–max ms |',
      '|---|---:|---:|',
      ...scenarios.map((s) => `| ${s.label} | ${Math.round(med[s.id])} | ${Math.round(Math.min(...s.ms))}–${Math.round(Math.max(...s.ms))} |`),
      '',
      'Ratios (medians):',
      '',
      `- diff, render cache empty / diff of the rendered YAML: ${ratio('diff-cold', 'diff-plain')} (what rendering adds to a diff)`,
      `- diff, render cached / diff of the rendered YAML: ${ratio('diff-cached', 'diff-plain')} (what a cached render adds)`,
      `- diff, render cache empty / diff, render cached: ${ratio('diff-cold', 'diff-cached')}`,
      `- diff, render cache empty / \`kustomize build\` alone: ${ratio('diff-cold', 'kustomize')}; cached: ${ratio('diff-cached', 'kustomize')}`,
      `- \`kubectl kustomize\` / \`kustomize build\`: ${ratio('kubectl-kustomize', 'kustomize')}`,
      '',
    ].join('\n');
    writeFileSync(OUT, md);
    writeFileSync(OUT.replace(/\.md$/, '.json'), JSON.stringify({ info, scenarios: scenarios.map(({ id, label, ms }) => ({ id, label, ms })) }, null, 1));
    log(`wrote ${OUT}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
    cleanupMeasure();
    stopCluster(cluster, env, log);
  }
}

main().catch((err) => {
  process.stderr.write(`render bench: ${err.stack ?? err}\n`);
  process.exit(1);
});
