// AppProject signatureKeys on the local control plane, as Argo CD verifies commits: keys made by the test with gpg,
// argocd-gpg-keys-cm holding two public keys, the project allowing one. An unsigned target commit, one signed by the
// other key and one signed by a key no keyring holds are refused (exit 4, Argo CD's words, nothing applied); a commit
// signed by the allowed key syncs.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kvValues, runPlugin } from './support/index.js';

const T = 180_000;

describe('signatureKeys: only a commit signed by an allowed key syncs', () => {
  let fx: GitFixture;
  let ns: string;
  let cp: string;
  let app: string;
  const keys: Record<string, string> = {};

  const gpg = (args: string[], input?: string) =>
    execFileSync('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], {
      env: fx.env,
      encoding: 'utf8',
      ...(input ? { input } : {}),
    });
  const makeKey = (name: string): string => {
    gpg(['--quick-gen-key', `${name} <${name}@example.invalid>`, 'ed25519', 'sign', 'never']);
    const fpr = gpg(['--list-keys', '--with-colons', `${name}@example.invalid`])
      .split('\n')
      .find((l) => l.startsWith('fpr:'))!
      .split(':')[9]!;
    return fpr;
  };
  const commit = (message: string, signer?: string): string => {
    fx.write('app/cm.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: signed}\ndata: {message: "${message}"}\n`);
    fx.git(['add', '-A']);
    fx.git([...(signer ? ['-c', `user.signingkey=${signer}`, '-c', 'gpg.program=gpg'] : []), 'commit', '-q', ...(signer ? ['-S'] : []), '-m', message]);
    return fx.git(['rev-parse', 'HEAD']);
  };
  const sync = () => runPlugin(['sync', '-f', app, '--argocd-namespace', cp, '-o', 'kv']);
  const live = async () => (await kubectl(['get', 'configmap', 'signed', '-n', ns, '-o', 'jsonpath={.data.message}'])).stdout;

  beforeAll(async () => {
    fx = new GitFixture();
    for (const name of ['allowed', 'other', 'stranger']) keys[name] = makeKey(name);
    ns = await createTestNamespace('signed');
    cp = await createTestNamespace('signed-cp');
    const publicKey = (fpr: string) => gpg(['--armor', '--export', fpr]);
    await applyYaml(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-gpg-keys-cm, namespace: ${cp}}\ndata: ${JSON.stringify({
        [keys.allowed!.slice(-16)]: publicKey(keys.allowed!),
        [keys.other!.slice(-16)]: publicKey(keys.other!),
      })}\n`,
    );
    await applyYaml(
      `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: gpg, namespace: ${cp}}\nspec:\n  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  signatureKeys: [{keyID: ${keys.allowed!.slice(-16)}}]\n`,
    );
    app = join(fx.root, 'app.yaml');
    writeFileSync(
      app,
      applicationYaml({
        name: 'signed',
        namespace: cp,
        spec: { project: 'gpg', source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) },
      }),
    );
  }, T);

  afterAll(async () => {
    try {
      execFileSync('gpgconf', ['--kill', 'all'], { env: fx.env });
    } catch {
      // no agent was started
    }
    fx?.cleanup();
    await Promise.all([ns, cp].filter(Boolean).map((n) => deleteNamespace(n)));
  }, T);

  test(
    'unsigned, signed by a key the project does not allow, by a key no keyring holds: exit 4 in Argo CD words; the allowed key syncs',
    async () => {
      const unsigned = commit('unsigned');
      let res = await sync();
      expect(res.code).toBe(4);
      expect(kvValues(res.stdout).REFUSED?.[0]).toBe(
        `project gpg: Target revision ${unsigned} in Git is not signed, but a signature is required (AppProject ${cp}/gpg)`,
      );
      expect(await live()).toBe('');

      commit('signed by the allowed key', keys.allowed);
      res = await sync();
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(await live()).toBe('signed by the allowed key');

      commit('signed by another key', keys.other);
      res = await sync();
      expect(res.code).toBe(4);
      expect(kvValues(res.stdout).REFUSED?.[0]).toMatch(
        /^project gpg: Found good signature made with EDDSA key [0-9A-F]+, but this key is not allowed in AppProject/,
      );
      expect(await live()).toBe('signed by the allowed key');

      const strange = commit('signed by a stranger', keys.stranger);
      res = await sync();
      expect(res.code).toBe(4);
      expect(kvValues(res.stdout).REFUSED?.[0]).toContain(`Could not verify commit signature on revision '${strange}'`);
      expect(await live()).toBe('signed by the allowed key');
    },
    T,
  );
});
