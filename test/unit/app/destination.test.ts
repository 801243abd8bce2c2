// The destination → kubeconfig context resolution, as data: in-cluster, URL and name matches, cluster Secrets,
// the explicit --context rule, and every refusal naming the destination and the candidates.
import { normalizeServer, resolveDestination, type ContextInfo, type DestinationInput } from '../../../src/app/destination.js';

const A: ContextInfo = { name: 'staging', cluster: 'staging-cluster', server: 'https://127.0.0.1:6443' };
const B: ContextInfo = { name: 'prod', cluster: 'prod-cluster', server: 'https://localhost:6443/' };
const B2: ContextInfo = { name: 'prod-readonly', cluster: 'prod-cluster', server: 'https://LOCALHOST:6443' };

function input(destination: DestinationInput['destination'], more: Partial<DestinationInput> = {}): DestinationInput {
  return { destination, contexts: [A, B], appContext: 'staging', appFromCluster: false, explicitContext: false, clusterSecrets: [], ...more };
}

describe('normalizeServer', () => {
  it.each([
    ['https://Example.COM:443/', 'https://example.com'],
    ['https://example.com', 'https://example.com'],
    ['http://example.com:80', 'http://example.com'],
    ['https://example.com:6443//', 'https://example.com:6443'],
    ['https://example.com/k8s/clusters/c-1/', 'https://example.com/k8s/clusters/c-1'],
    ['not a url/', 'not a url'],
  ])('%s → %s', (raw, want) => expect(normalizeServer(raw)).toBe(want));

  it('keeps localhost and 127.0.0.1 apart (no name resolution)', () => {
    expect(normalizeServer('https://localhost:6443')).not.toBe(normalizeServer('https://127.0.0.1:6443'));
  });
});

describe('resolveDestination', () => {
  it('in-cluster by server or by name is the context the Application was read from', () => {
    for (const d of [{ server: 'https://kubernetes.default.svc' }, { server: 'https://kubernetes.default.svc:443/' }, { name: 'in-cluster' }]) {
      const r = resolveDestination(input(d, { appContext: 'prod', appFromCluster: true }));
      expect(r).toEqual({ ok: true, context: 'prod', server: B.server, why: 'in-cluster: the cluster the Application was read from' });
    }
  });

  it('in-cluster for an Application read from a file is the current context, or --context', () => {
    expect(resolveDestination(input({ server: 'https://kubernetes.default.svc' }))).toMatchObject({
      ok: true,
      context: 'staging',
      why: 'in-cluster: the current context',
    });
    expect(resolveDestination(input({ name: 'in-cluster' }, { appContext: 'prod', explicitContext: true }))).toMatchObject({
      ok: true,
      context: 'prod',
      why: 'in-cluster: the --context',
    });
  });

  it('in-cluster with no context selected is refused', () => {
    const { appContext: _drop, ...rest } = input({ server: 'https://kubernetes.default.svc' });
    void _drop;
    expect(resolveDestination(rest)).toMatchObject({ ok: false, refused: expect.stringMatching(/no context is selected/) });
  });

  it('a server URL is matched against the clusters, normalized: acts on that context even from another current context', () => {
    const r = resolveDestination(input({ server: 'https://LOCALHOST:6443' }));
    expect(r).toEqual({ ok: true, context: 'prod', server: B.server, why: `the context's cluster server is ${B.server}` });
  });

  it('a name is matched against context names and cluster names', () => {
    expect(resolveDestination(input({ name: 'prod' }))).toMatchObject({ ok: true, context: 'prod', why: 'the context is named prod' });
    expect(resolveDestination(input({ name: 'staging-cluster' }, { appContext: undefined }))).toMatchObject({
      ok: true,
      context: 'staging',
      why: "the context's cluster is named staging-cluster",
    });
  });

  it('Argo CD cluster Secrets pair a name with a server, both ways', () => {
    const clusterSecrets = [{ secret: 'argocd/c1', name: 'production', server: 'https://localhost:6443' }];
    expect(resolveDestination(input({ name: 'production' }, { appFromCluster: true, clusterSecrets }))).toMatchObject({ ok: true, context: 'prod' });
    // A context named as the Secret's cluster but reaching another server is not taken on its name alone: it may be another
    // cluster of that name. --context prod takes it (a tunnel or proxy to the same cluster); a context on the URL wins.
    const named = [{ secret: 'argocd/c2', name: 'prod', server: 'https://prod.example.com' }];
    const byName = resolveDestination(input({ server: 'https://prod.example.com' }, { appFromCluster: true, clusterSecrets: named }));
    expect(byName).toEqual({
      ok: false,
      refused: `spec.destination (server https://prod.example.com): the context prod is named as its cluster but reaches ${B.server}, not https://prod.example.com: it may be another cluster; name it with --context prod to act there (a tunnel or proxy to the same cluster)`,
      candidates: ['prod'],
    });
    expect(
      resolveDestination(input({ server: 'https://prod.example.com' }, { appFromCluster: true, clusterSecrets: named, appContext: 'prod' })),
    ).toMatchObject({
      ok: false,
    });
    expect(
      resolveDestination(
        input({ server: 'https://prod.example.com' }, { appFromCluster: true, clusterSecrets: named, appContext: 'prod', explicitContext: true }),
      ),
    ).toEqual({
      ok: true,
      context: 'prod',
      server: B.server,
      why: `--context prod, named as the destination's cluster (its server ${B.server} is not the destination's URL)`,
    });
    const onUrl: typeof A = { name: 'prod-direct', cluster: 'x', server: 'https://prod.example.com' };
    expect(
      resolveDestination(input({ server: 'https://prod.example.com' }, { contexts: [A, B, onUrl], appFromCluster: true, clusterSecrets: named })),
    ).toMatchObject({
      ok: true,
      context: 'prod-direct',
    });
    // A name with no URL known for it (no cluster Secret) is matched by name, as before.
    expect(resolveDestination(input({ name: 'prod' }))).toMatchObject({ ok: true, context: 'prod' });
    const inCluster = [{ secret: 'argocd/c3', name: 'home', server: 'https://kubernetes.default.svc' }];
    expect(resolveDestination(input({ name: 'home' }, { appFromCluster: true, clusterSecrets: inCluster }))).toMatchObject({ ok: true, context: 'staging' });
  });

  it('no context reaches the destination: refused, naming the destination and the contexts there are', () => {
    const r = resolveDestination(input({ server: 'https://prod.example.com' }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refused).toBe(
      `spec.destination (server https://prod.example.com): no kubeconfig context reaches it (the kubeconfig's contexts: staging (${A.server}), prod (${B.server}))`,
    );
    expect(r.candidates).toEqual([]);
  });

  it('several contexts reach it: the current one wins when it is one of them, else refused with the candidates', () => {
    const contexts = [A, B, B2];
    expect(resolveDestination(input({ server: B.server }, { contexts, appContext: 'prod-readonly' }))).toMatchObject({ ok: true, context: 'prod-readonly' });
    const r = resolveDestination(input({ server: B.server }, { contexts }));
    expect(r).toMatchObject({ ok: false, candidates: ['prod', 'prod-readonly'] });
    if (!r.ok) expect(r.refused).toMatch(/several kubeconfig contexts reach it: prod \(.*\), prod-readonly \(.*\); name one with --context/);
  });

  it('an explicit --context on another cluster refuses an Application read from a file', () => {
    const r = resolveDestination(input({ server: B.server }, { explicitContext: true }));
    expect(r).toMatchObject({ ok: false, candidates: ['prod'] });
    if (!r.ok) expect(r.refused).toMatch(/--context staging \(https:\/\/127\.0\.0\.1:6443\) is another cluster; the destination is reached by prod/);
  });

  it('an Application read from the cluster in --context A deploys to B: the Application is read from A, B is acted on', () => {
    expect(resolveDestination(input({ server: B.server }, { explicitContext: true, appFromCluster: true }))).toMatchObject({ ok: true, context: 'prod' });
  });

  it('both server and name, or neither, are refused as Argo CD refuses them', () => {
    expect(resolveDestination(input({ server: B.server, name: 'prod' }))).toMatchObject({
      ok: false,
      refused: expect.stringMatching(/sets both server and name/),
    });
    expect(resolveDestination(input({}))).toMatchObject({ ok: false, refused: expect.stringMatching(/names no cluster/) });
  });

  describe('with --server (the context kubectl builds from the flags)', () => {
    const flagContext = { name: '(command-line flags)', cluster: '(--server)', server: 'https://10.0.0.9:6443', via: '--server https://10.0.0.9:6443' };
    const none = { contexts: [], appContext: '(command-line flags)', flagContext };

    it("no kubeconfig at all: in-cluster is the flags' server", () => {
      for (const d of [{ server: 'https://kubernetes.default.svc' }, { name: 'in-cluster' }]) {
        expect(resolveDestination(input(d, none))).toEqual({
          ok: true,
          context: flagContext.name,
          server: flagContext.server,
          why: 'in-cluster: the cluster --server https://10.0.0.9:6443 names',
        });
      }
    });

    it("no kubeconfig at all: the same server URL (normalized) is the flags' server, another is refused naming --server", () => {
      expect(resolveDestination(input({ server: 'https://10.0.0.9:6443/' }, none))).toMatchObject({
        ok: true,
        context: flagContext.name,
        server: flagContext.server,
        why: "--server https://10.0.0.9:6443 names the destination's server",
      });
      const r = resolveDestination(input({ server: 'https://prod.example.com' }, none));
      expect(r).toMatchObject({ ok: false, candidates: [] });
      if (!r.ok)
        expect(r.refused).toBe(
          'spec.destination (server https://prod.example.com): no kubeconfig context reaches it (the kubeconfig has no contexts), and --server https://10.0.0.9:6443 names another cluster',
        );
    });

    it("a name Argo CD's cluster Secrets pair with the flags' server reaches it", () => {
      const clusterSecrets = [{ secret: 'argocd/c', name: 'edge', server: 'https://10.0.0.9:6443' }];
      expect(resolveDestination(input({ name: 'edge' }, { ...none, appFromCluster: true, clusterSecrets }))).toMatchObject({
        ok: true,
        context: flagContext.name,
      });
      expect(resolveDestination(input({ name: 'elsewhere' }, { ...none, appFromCluster: true, clusterSecrets }))).toMatchObject({ ok: false });
    });

    it("a kubeconfig context that reaches the destination still wins (its credentials), the flags' context only when none does", () => {
      const onA = { ...flagContext, name: 'staging', server: A.server, via: `--server ${A.server}` };
      expect(resolveDestination(input({ server: B.server }, { flagContext: onA }))).toMatchObject({ ok: true, context: 'prod', server: B.server });
      const elsewhere = { ...flagContext, name: 'staging' };
      expect(resolveDestination(input({ server: flagContext.server }, { flagContext: elsewhere }))).toMatchObject({
        ok: true,
        context: 'staging',
        server: flagContext.server,
      });
      expect(resolveDestination(input({ server: 'https://kubernetes.default.svc' }, { flagContext: elsewhere }))).toMatchObject({
        ok: true,
        context: 'staging',
        server: flagContext.server,
      });
    });
  });
});
