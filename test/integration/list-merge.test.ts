// Lists that merge by key, on the real API server: a sidecar, an env var and a port added by hand to a synced
// Deployment are no drift (a sync leaves them, server-side or client-side), while the declared elements in another
// order and a declared container removed by hand are.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 180_000;
let ns: string;
let root: string;

function setup(name: string, annotations: string): string[] {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, `${name}.yaml`), applicationYaml({ name, spec: { destination: inCluster(ns) } }));
  writeFileSync(
    join(dir, 'web.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {${annotations}}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
        - name: web
          image: web:1
          env: [{name: A, value: "1"}, {name: B, value: "2"}]
          ports: [{containerPort: 8080}]
        - name: metrics
          image: exporter:1
`,
  );
  return ['-f', join(root, `${name}.yaml`), '--desired', dir];
}

interface Live {
  spec: { template: { spec: { containers: { name: string; env?: { name: string }[]; ports?: { containerPort: number }[] }[] } } };
}

const handAdditions = async (name: string) => {
  await kubectlOk([
    'patch',
    'deployment',
    name,
    '-n',
    ns,
    '--type=strategic',
    '-p',
    '{"spec":{"template":{"spec":{"containers":[{"name":"proxy","image":"envoy:1"}]}}}}',
  ]);
  await kubectlOk(['set', 'env', `deployment/${name}`, '-n', ns, '-c', 'web', 'DEBUG=1']);
  await kubectlOk([
    'patch',
    'deployment',
    name,
    '-n',
    ns,
    '--type=strategic',
    '-p',
    '{"spec":{"template":{"spec":{"containers":[{"name":"web","ports":[{"containerPort":9090}]}]}}}}',
  ]);
};

const shape = async (name: string) => {
  const live = JSON.parse(await kubectlOk(['get', 'deployment', name, '-n', ns, '-o', 'json'])) as Live;
  // Sorted: a strategic patch puts what it adds first (the proxy before web, 9090 before 8080).
  const sorted = <T>(xs: T[]) => [...xs].sort();
  return sorted(
    live.spec.template.spec.containers.map((c) =>
      JSON.stringify([c.name, sorted((c.env ?? []).map((e) => e.name)), sorted((c.ports ?? []).map((p) => p.containerPort))]),
    ),
  ).map((x) => JSON.parse(x) as unknown);
};

beforeAll(async () => {
  ns = await createTestNamespace('list-merge');
  root = tempDir('kgitops-list-merge');
}, TIMEOUT);
afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

for (const [mode, annotations] of [
  ['server-side', ''],
  ['client-side', 'argocd.argoproj.io/sync-options: ServerSideApply=false'],
] as const) {
  test(
    `${mode} apply: a sidecar, an env var and a port added by hand are no drift, and a sync keeps them`,
    async () => {
      const name = `lm-${mode.slice(0, 6)}`;
      const args = setup(name, annotations);
      expect((await runPlugin(['sync', ...args, '-o', 'kv'])).code).toBe(0);
      await handAdditions(name);
      const diff = await runPlugin(['diff', ...args, '-o', 'kv']);
      expect([diff.code, diff.stdout]).toEqual([0, 'SYNC=Synced\n']);
      const sync = await runPlugin(['sync', ...args, '-o', 'kv']);
      expect(sync.code).toBe(0);
      expect(await shape(name)).toEqual([
        ['metrics', [], []],
        ['proxy', [], []],
        ['web', ['A', 'B', 'DEBUG'], [8080, 9090]],
      ]);
      expect((await runPlugin(['diff', ...args, '-o', 'kv'])).code).toBe(0);
    },
    TIMEOUT,
  );
}

test(
  'the declared env vars in another order, and a declared container gone, are drift',
  async () => {
    const name = 'lm-order';
    const args = setup(name, '');
    expect((await runPlugin(['sync', ...args, '-o', 'kv'])).code).toBe(0);
    await kubectlOk([
      'patch',
      'deployment',
      name,
      '-n',
      ns,
      '--type=json',
      '-p',
      '[{"op":"move","from":"/spec/template/spec/containers/0/env/1","path":"/spec/template/spec/containers/0/env/0"},{"op":"remove","path":"/spec/template/spec/containers/1"}]',
    ]);
    const diff = await runPlugin(['diff', ...args, '-o', 'kv']);
    expect(diff.code).toBe(1);
    expect(diff.stdout.split('\n').filter((l) => l.startsWith('DRIFT='))).toEqual([
      `DRIFT=Deployment/${name} spec.template.spec.containers[name=web].env`,
      `DRIFT=Deployment/${name} spec.template.spec.containers[name=metrics]`,
    ]);
    expect((await runPlugin(['sync', ...args, '-o', 'kv'])).code).toBe(0);
    expect(await shape(name)).toEqual([
      ['metrics', [], []],
      ['web', ['A', 'B'], [8080]],
    ]);
    // The sync put the declared order back.
    expect(
      (await kubectlOk(['get', 'deployment', name, '-n', ns, '-o', 'jsonpath={.spec.template.spec.containers[?(@.name=="web")].env[*].name}'])).trim(),
    ).toBe('A B');
    expect((await runPlugin(['diff', ...args, '-o', 'kv'])).code).toBe(0);
  },
  TIMEOUT,
);
