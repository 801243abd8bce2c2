// `-f -`: the Application (or an ApplicationSet) read from standard input, as kubectl reads `-f -`, on the paths that
// read it without a cluster: file-mode diff (the session-free reader), windows (the workflows' reader), and an
// ApplicationSet whose generated Applications are each acted on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/temp-dir.js';
import { runCli } from '../../../src/cli/app.js';
import { memoryIo } from '../../../src/cli/io.js';
import { jqRunner } from '../../../src/jq/runner.js';

const DIFF = join(process.cwd(), 'test/fixtures/diff/replicas-json-pointer');

afterAll(async () => {
  await (await jqRunner()).close();
});

const APP = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  project: default
  source: {repoURL: 'https://example.com/r.git', path: x}
  destination: {namespace: shop, server: https://kubernetes.default.svc}
`;

describe('-f - (the Application on standard input)', () => {
  it('windows -f - --project-file: the app read from stdin, its project from the file', async () => {
    const project = join(tempDir('kgitops-stdin-app'), 'project.yaml');
    writeFileSync(
      project,
      `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: default, namespace: argocd}
spec:
  destinations: [{namespace: '*', server: '*'}]
  sourceRepos: ['*']
  syncWindows:
    - {kind: deny, schedule: '0 22 * * *', duration: 1h, applications: [shop]}
    - {kind: allow, schedule: '0 1 * * *', duration: 1h, applications: [other]}
`,
    );
    const piped = memoryIo({ stdin: APP });
    expect(await runCli(['windows', '-f', '-', '--project-file', project, '-o', 'json'], piped.io)).toBe(0);
    const report = JSON.parse(piped.stdout()) as { app: { name: string }; project: { origin: string; windows: { kind: string }[] } };
    expect(report.app.name).toBe('shop');
    // Only the window naming shop applies to it.
    expect(report.project.windows.map((w) => w.kind)).toEqual(['deny']);
    expect(report.project.origin).toBe(project);
  });

  it('an ApplicationSet on stdin: each Application it generates, as with -f FILE', async () => {
    const appSet = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: shops, namespace: argocd}
spec:
  generators:
    - list:
        elements: [{name: north}, {name: south}]
  template:
    metadata: {name: '{{name}}'}
    spec:
      project: default
      source: {repoURL: 'https://example.com/r.git', path: x}
      destination: {namespace: shop, server: https://kubernetes.default.svc}
      ignoreDifferences:
        - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}
`;
    const m = memoryIo({ stdin: appSet });
    const code = await runCli(['diff', '--desired', join(DIFF, 'desired.yaml'), '--live', join(DIFF, 'live.yaml'), '-f', '-', '-o', 'kv'], m.io);
    // Each generated app is compared as if given alone with -f: its ignoreDifferences (the replicas) hold, and the
    // live object carries shop's tracking id, not the generated app's.
    expect({ code, out: m.stdout(), err: m.stderr() }).toEqual({
      code: 1,
      err: '',
      out: [
        'APP=north',
        'SYNC=OutOfSync',
        'DRIFT=Deployment/orders metadata.annotations[argocd.argoproj.io/tracking-id]',
        'APP=south',
        'SYNC=OutOfSync',
        'DRIFT=Deployment/orders metadata.annotations[argocd.argoproj.io/tracking-id]',
        'SUMMARY=north 1',
        'SUMMARY=south 1',
        '',
      ].join('\n'),
    });
  });
});
