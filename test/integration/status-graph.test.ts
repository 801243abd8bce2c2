// `status --tree -o dot|svg` on the local control plane: the live map of a synced app, Deployment → ReplicaSet → Pod.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, runPlugin, waitFor } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 150_000;

describe('status --tree -o dot|svg', () => {
  let ns = '';
  let appFile = '';
  let desired = '';

  beforeAll(async () => {
    ns = await createTestNamespace('status-graph');
    const root = tempDir('status-graph');
    desired = join(root, 'desired');
    mkdirSync(desired);
    writeFileSync(
      join(desired, 'all.yaml'),
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: registry.local/web:1.0.0}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
`,
    );
    appFile = join(root, 'app.yaml');
    writeFileSync(
      appFile,
      applicationYaml({
        name: `${ns}-app`,
        spec: { source: { repoURL: 'https://git.example.com/shop.git', path: 'deploy', targetRevision: 'main' }, destination: inCluster(ns) },
      }),
    );
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired]);
    if (res.code !== 0) throw new Error(`sync exited ${res.code}: ${res.stderr}`);
  }, TIMEOUT);

  afterAll(async () => {
    if (ns) await deleteNamespace(ns);
  }, 60_000);

  it(
    'draws Application → Deployment → ReplicaSet → Pod as dot, with health as words',
    async () => {
      const res = await waitFor(
        async () => {
          const r = await runPlugin(['status', '-f', appFile, '--desired', desired, '--tree', '-o', 'dot']);
          return /Pod\\nweb-[a-z0-9]+-[a-z0-9]+\\n♥ Healthy/.test(r.stdout) ? r : undefined;
        },
        { what: 'a Healthy pod in the dot output', timeoutMs: 90_000 },
      );
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^digraph "live map" \{\n  rankdir=LR;/);
      expect(res.stdout).toContain(`label="Application\\n${ns}-app\\n♥ Healthy · Synced"`);
      expect(res.stdout).toContain('label="Deployment\\nweb\\n♥ Healthy · Synced"');
      expect(res.stdout).toMatch(/label="ReplicaSet\\nweb-[a-z0-9]+\\n♥ Healthy"/);
      expect(res.stdout).toContain('label="ConfigMap\\nsettings\\nSynced"');
      // Deployment → ReplicaSet → Pod edges: three levels below the Application.
      const ids = Object.fromEntries([...res.stdout.matchAll(/^  "(\w+)" \[label="(\w+)\\n/gm)].map((m) => [m[2], m[1]]));
      expect(res.stdout).toContain(`"${ids.Deployment}" -> "${ids.ReplicaSet}"`);
      expect(res.stdout).toContain(`"${ids.ReplicaSet}" -> "${ids.Pod}"`);
    },
    TIMEOUT,
  );

  it(
    'writes a self-contained SVG: no scripts, no external references, the same nodes',
    async () => {
      const res = await runPlugin(['status', '-f', appFile, '--desired', desired, '--tree', '-o', 'svg']);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(res.stdout.trimEnd().endsWith('</svg>')).toBe(true);
      expect(res.stdout).not.toMatch(/<script|href=|url\(/);
      expect(res.stdout).toContain(`Application argocd/${ns}-app: Synced, Healthy`);
      expect(res.stdout.match(/<g class="node /g)?.length).toBe(5);
    },
    TIMEOUT,
  );

  it(
    '-o svg does not go with -A',
    async () => {
      const res = await runPlugin(['status', '-A', '-o', 'svg']);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/-o svg draws one app's live map/);
    },
    TIMEOUT,
  );
});
