// Argo CD's own Lua health checks (resource_customizations, built into the executable from the same Argo CD module
// version as the controller here) through Argo CD and through kubectl-gitops, with no argocd-cm check and no
// --lua-dir: custom resources of five bundled kinds (cert-manager, external-secrets, KEDA, Flux), their CRDs made by
// the test, each with a status that gives a different health. Both must give the same health and message for
// every resource, and the same app health.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, bothVerdicts, differences, pollFor } from './support/argocd.js';

const T = 240_000;

/** A namespaced CRD that keeps any field, so the status written in Git stays on the object (no status subresource). */
const crd = (group: string, kind: string, plural: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}, listKind: ${kind}List}
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

const KINDS = [
  ['cert-manager.io', 'Certificate', 'certificates'],
  ['cert-manager.io', 'Issuer', 'issuers'],
  ['external-secrets.io', 'ExternalSecret', 'externalsecrets'],
  ['keda.sh', 'ScaledObject', 'scaledobjects'],
  ['kustomize.toolkit.fluxcd.io', 'Kustomization', 'kustomizations'],
] as const;

const object = (group: string, kind: string, name: string, body: string) => `apiVersion: ${group}/v1\nkind: ${kind}\nmetadata: {name: ${name}}\n${body}\n`;

const OBJECTS: Record<string, string> = {
  'cert.yaml': object(
    'cert-manager.io',
    'Certificate',
    'web-tls',
    'spec: {secretName: web-tls}\nstatus: {conditions: [{type: Ready, status: "False", message: "Issuer letsencrypt not ready"}]}',
  ),
  'issuer.yaml': object(
    'cert-manager.io',
    'Issuer',
    'letsencrypt',
    'spec: {acme: {}}\nstatus: {conditions: [{type: Ready, status: "True", message: "registered"}]}',
  ),
  'secret.yaml': object(
    'external-secrets.io',
    'ExternalSecret',
    'db-creds',
    'spec: {refreshInterval: 1h}\nstatus: {conditions: [{type: Ready, status: "True", message: "Secret was synced"}]}',
  ),
  'scaler.yaml': object(
    'keda.sh',
    'ScaledObject',
    'worker',
    'spec: {scaleTargetRef: {name: worker}}\nstatus: {conditions: [{type: Ready, status: "True", message: "ready"}, {type: Paused, status: "True", message: "paused by annotation"}]}',
  ),
  'flux.yaml': object('kustomize.toolkit.fluxcd.io', 'Kustomization', 'infra', 'spec: {path: ./infra, suspend: false}'),
};

describe("Argo CD's bundled health checks through Argo CD and through kubectl-gitops", () => {
  const app = `bundled-${randomBytes(3).toString('hex')}`;
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    await kubectlOk(['apply', '-f', '-'], { stdin: KINDS.map(([g, k, p]) => crd(g, k, p)).join('---\n') });
    await kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', ...KINDS.map(([g, , p]) => `crd/${p}.${g}`)]);
    fx = new GitFixture();
    for (const [file, text] of Object.entries(OBJECTS)) fx.write(`app/${file}`, text);
    fx.commit('custom resources');
    ns = await createTestNamespace('conf-bundled-health');
    await applyApplication(application({ name: app, repoURL: pathToFileURL(fx.repo).href, path: 'app', namespace: ns }));
    const synced = await runPlugin(['sync', app, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
    expect(synced.code).toBe(0);
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  it(
    'Degraded, Healthy, Suspended and Progressing from the same scripts, with the same messages, and the same app health',
    async () => {
      // Argo CD starts watching kinds whose CRDs were just made a little later: until then it reads them Missing.
      const { argo, ours } = await pollFor("Argo CD's cache to watch the new kinds", async () => {
        const both = await bothVerdicts(app);
        return Object.values(both.argo.resources).some((r) => r.health === 'Missing') ? undefined : both;
      });
      expect(differences(argo, ours, ns)).toEqual([]);
      const health = (id: string) => [argo.resources[id]?.health, argo.resources[id]?.message];
      expect(health(`cert-manager.io/Certificate/${ns}/web-tls`)).toEqual(['Degraded', 'Issuer letsencrypt not ready']);
      expect(health(`cert-manager.io/Issuer/${ns}/letsencrypt`)).toEqual(['Healthy', 'registered']);
      expect(health(`external-secrets.io/ExternalSecret/${ns}/db-creds`)).toEqual(['Healthy', 'Secret was synced']);
      expect(health(`keda.sh/ScaledObject/${ns}/worker`)).toEqual(['Suspended', 'paused by annotation']);
      expect(health(`kustomize.toolkit.fluxcd.io/Kustomization/${ns}/infra`)).toEqual(['Progressing', 'Status unknown']);
      expect(argo.health).toBe('Degraded');
    },
    T,
  );
});
