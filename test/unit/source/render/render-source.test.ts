// renderSource of a Kustomize source, through a stand-in kustomize that reports the variable it was run with: the build
// environment's ARGOCD_APP_SOURCE_PATH is spec.source.path as written, as Argo CD's repo-server passes it
// (reposerver/repository newEnv: q.ApplicationSource.Path), while the files are found under the normalised path; and a
// spec.source.kustomize.version argocd-cm does not register fails the render as in Argo CD, --kustomize or not.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseApplication } from '../../../../src/app/application.js';
import { renderSource } from '../../../../src/source/render/index.js';
import { listLocal, localFiles } from '../../../../src/source/render/local.js';

let root: string;
let kustomize: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'kgitops-build-env-'));
  mkdirSync(join(root, 'repo', 'sub', 'dir'), { recursive: true });
  writeFileSync(join(root, 'repo', 'kustomization.yaml'), 'resources: []\n');
  writeFileSync(join(root, 'repo', 'sub', 'dir', 'kustomization.yaml'), 'resources: []\n');
  kustomize = join(root, 'kustomize');
  writeFileSync(
    kustomize,
    [
      '#!/bin/sh',
      'if [ "$1" = version ]; then echo v0.0.0; exit 0; fi',
      'printf \'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: env\\ndata:\\n  path: "%s"\\n\' "$ARGOCD_APP_SOURCE_PATH"',
      '',
    ].join('\n'),
  );
  chmodSync(kustomize, 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function render(written: string, normalised: string, kustomizeSource: Record<string, unknown> = {}, versions = new Map<string, string>()) {
  const app = parseApplication(
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'shop', namespace: 'argocd' },
      spec: {
        project: 'default',
        source: { repoURL: 'https://git.example/shop.git', path: written, kustomize: kustomizeSource },
        destination: { namespace: 'shop' },
      },
    },
    'app.yaml',
  );
  const repo = join(root, 'repo');
  const rendered = await renderSource({
    files: localFiles(repo),
    label: 'repo',
    sha: 'a'.repeat(40),
    path: normalised,
    entries: listLocal(repo, normalised === '' ? repo : join(repo, normalised)),
    app,
    tools: { kustomize, env: { PATH: '/usr/bin:/bin' }, noCache: true, kustomizeSettings: () => Promise.resolve({ versions }) },
  });
  return rendered.objects.map((o) => o.object);
}

async function sourcePathSeen(written: string, normalised: string): Promise<unknown> {
  return ((await render(written, normalised))[0]?.data as Record<string, string>).path;
}

describe('ARGOCD_APP_SOURCE_PATH in the build environment', () => {
  it('is spec.source.path as written: `.` stays `.`, a trailing slash stays', async () => {
    expect(await sourcePathSeen('.', '')).toBe('.');
    expect(await sourcePathSeen('sub/dir/', 'sub/dir')).toBe('sub/dir/');
    expect(await sourcePathSeen('sub/dir', 'sub/dir')).toBe('sub/dir');
    expect(await sourcePathSeen('', '')).toBe('');
  });
});

describe('spec.source.kustomize.version', () => {
  it("an unregistered version fails the render with Argo CD's words and the argocd-cm key, even with --kustomize", async () => {
    await expect(render('.', '', { version: 'v9.9.9' })).rejects.toThrow(
      /^kustomize version v9\.9\.9 is not registered \(argocd-cm kustomize\.path\.v9\.9\.9\), so Argo CD's repo-server fails this render/,
    );
  });
  it("a registered version is built with --kustomize, standing in for the path in Argo CD's image", async () => {
    expect(await render('.', '', { version: 'v5' }, new Map([['v5', '/custom-tools/kustomize_v5']]))).toHaveLength(1);
  });
});
