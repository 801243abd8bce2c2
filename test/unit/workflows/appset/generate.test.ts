// runAppSetGenerate from a file: git directories and files read through the Git cache code from a local repository
// (a GitFixture), default templating (the Go engine's runs are in test/integration/appset.test.ts), errors named by file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryIo } from '../../../../src/cli/io.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import { InputError, RefusedError } from '../../../../src/model/errors.js';
import { runAppSetGenerate } from '../../../../src/workflows/appset/generate.js';
import { GitFixture } from '../../../support/git-source.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'yaml', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

describe('runAppSetGenerate', () => {
  let fx: GitFixture;
  beforeAll(() => {
    fx = new GitFixture();
    fx.write('apps/guestbook/deploy.yaml', 'kind: ConfigMap\n');
    fx.write('apps/web/deploy.yaml', 'kind: ConfigMap\n');
    fx.write('clusters/dev/config.yaml', 'cluster:\n  name: dev\n  server: https://1.2.3.4\n');
    fx.commit('apps');
  });
  afterAll(() => fx?.cleanup());

  const file = (body: object): string => {
    const path = join(fx.root, `appset-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify({ apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet', metadata: { name: 'set' }, spec: body }));
    return path;
  };
  const run = (path: string) => runAppSetGenerate({ io: memoryIo({ env: fx.env }).io, opts }, { file: path });

  it('a matrix of git directories and git files, flat parameters', async () => {
    const path = file({
      generators: [
        {
          matrix: {
            generators: [
              { git: { repoURL: fx.repo, revision: 'HEAD', directories: [{ path: 'apps/*' }] } },
              { git: { repoURL: fx.repo, revision: 'HEAD', files: [{ path: 'clusters/*/config.yaml' }] } },
            ],
          },
        },
      ],
      template: {
        metadata: { name: '{{path.basename}}-{{cluster.name}}' },
        spec: {
          project: 'default',
          source: { repoURL: fx.repo, path: '{{path}}' },
          destination: { server: '{{cluster.server}}', namespace: '{{path.basename}}' },
        },
      },
    });
    await expect(run(path)).rejects.toThrow(/found duplicate key path with different value/);
  });

  it('git directories: one Application per folder, in the ApplicationSet namespace, with the resources finalizer', async () => {
    const path = file({
      generators: [{ git: { repoURL: fx.repo, directories: [{ path: 'apps/*' }, { path: 'apps/web', exclude: true }] } }],
      template: { metadata: { name: '{{path.basename}}' }, spec: { project: 'default', source: { repoURL: fx.repo, path: '{{path}}' } } },
    });
    const r = await run(path);
    expect(r.applicationSet).toBe('argocd/set');
    expect(r.applications).toEqual([
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'guestbook', namespace: 'argocd', finalizers: ['resources-finalizer.argocd.argoproj.io'] },
        // destination has no omitempty in Argo CD's types: the controller writes {} when the template has none
        spec: { project: 'default', source: { repoURL: fx.repo, path: 'apps/guestbook' }, destination: {} },
      },
    ]);
  });

  it("git files: the file's keys flattened, with its folder's path params (Generators-Git.md files example)", async () => {
    const path = file({
      generators: [{ git: { repoURL: fx.repo, revision: 'main', files: [{ path: 'clusters/**/config.yaml' }, { path: 'clusters/*/config.yaml' }] } }],
      template: { metadata: { name: '{{cluster.name}}-{{path.basename}}' }, spec: { project: 'default', destination: { server: '{{cluster.server}}' } } },
      syncPolicy: { preserveResourcesOnDeletion: true },
    });
    const r = await run(path);
    expect(r.applications).toEqual([
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'dev-dev', namespace: 'argocd' },
        spec: { project: 'default', destination: { server: 'https://1.2.3.4' } },
      },
    ]);
  });

  it('a refused generator is a RefusedError naming it and the file', async () => {
    const path = file({ generators: [{ pullRequest: { github: { owner: 'o', repo: 'r' } } }], template: {} });
    const err = await run(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedError);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toContain('pullRequest');
  });

  it('not an ApplicationSet, a missing file, an unknown revision: InputErrors naming it', async () => {
    const notSet = join(fx.root, 'app.yaml');
    writeFileSync(notSet, 'apiVersion: argoproj.io/v1alpha1\nkind: Application\n');
    await expect(run(notSet)).rejects.toThrow(new RegExp(`${notSet}: expected kind ApplicationSet`));
    await expect(run(join(fx.root, 'nope.yaml'))).rejects.toThrow(InputError);
    const badRev = file({ generators: [{ git: { repoURL: fx.repo, revision: 'nope', directories: [{ path: '*' }] } }], template: {} });
    await expect(run(badRev)).rejects.toThrow(/git generator revision "nope" names no commit/);
  });
});
