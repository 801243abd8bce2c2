// What this tool still cannot render exactly as Argo CD would (plugins), found from the spec, and what makes a --desired folder another type of source: every case a reason.
import { fileBlockers, sourcesBlockers, specBlockers } from '../../../src/source/renderability.js';

const plain = { sourcesCount: 0, sourceOptions: {} };

describe('specBlockers', () => {
  it('directory, Kustomize and Helm sources with their options, and several sources, render', () => {
    expect(specBlockers(plain)).toEqual([]);
    expect(specBlockers({ sourcesCount: 1, sourceOptions: {} })).toEqual([]);
    expect(specBlockers({ sourcesCount: 2, sourceOptions: {} })).toEqual([]);
    expect(specBlockers({ sourcesCount: 0, sourceOptions: { chart: 'redis' } })).toEqual([]);
    expect(
      specBlockers({ sourcesCount: 0, sourceOptions: { directory: { recurse: true, include: '*.yaml', jsonnet: { tlas: [{ name: 'a', value: 'b' }] } } } }),
    ).toEqual([]);
    expect(specBlockers({ sourcesCount: 0, sourceOptions: { kustomize: { namePrefix: 'x-', images: ['a:1'] } } })).toEqual([]);
    expect(specBlockers({ sourcesCount: 0, sourceOptions: { helm: { releaseName: 'x', valueFiles: ['a.yaml'] } } })).toEqual([]);
    // A named kustomize version is argocd-cm's kustomize.path.<version> (render/kustomize.ts namedKustomize).
    expect(specBlockers({ sourcesCount: 0, sourceOptions: { kustomize: { version: 'v4.5.7' } } })).toEqual([]);
  });

  it.each([[{ sourcesCount: 0, sourceOptions: { plugin: { name: 'x' } } }, /Config Management Plugins/]])('%j is refused', (app, reason) => {
    const out = specBlockers(app as never);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(reason);
  });
});

describe('sourcesBlockers (each entry of spec.sources)', () => {
  it('several sources render (charts too, a named kustomize version too); a plugin in any of them is refused, naming the entry', () => {
    expect(
      sourcesBlockers([
        { repoURL: 'a', path: 'x' },
        { repoURL: 'b', ref: 'values' },
        { repoURL: 'https://c', options: { chart: 'redis' } },
      ]),
    ).toEqual([]);
    const out = sourcesBlockers([
      { repoURL: 'a', path: 'x' },
      { repoURL: 'b', path: 'y', options: { plugin: {} } },
      { repoURL: 'c', path: 'z', options: { kustomize: { version: 'v4' } as never } },
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^spec\.sources\[1\]\.plugin: Config Management Plugins/);
  });
});

describe('fileBlockers (a --desired folder read as plain manifests)', () => {
  it('plain manifests and libsonnet files are fine', () => {
    expect(fileBlockers(['a.yaml', 'b/c.json', 'lib.libsonnet', 'README.md'], 'repo@abc:/x')).toEqual([]);
  });

  it('a kustomization or Chart.yaml at the root, Jsonnet anywhere read; --render named where it helps', () => {
    expect(fileBlockers(['kustomization.yaml', 'a.yaml'], 'w')).toEqual(['w holds kustomization.yaml: a Kustomize source, which --render renders']);
    expect(fileBlockers(['Kustomization'], 'w')[0]).toMatch(/Kustomization: a Kustomize source/);
    expect(fileBlockers(['Chart.yaml', 'templates/a.yaml'], 'w')).toEqual(['w holds Chart.yaml: a Helm chart, which --render renders']);
    expect(fileBlockers(['sub/kustomization.yaml', 'sub/Chart.yaml'], 'w')).toEqual([]);
    const j = fileBlockers(['a.jsonnet', 'b/c.jsonnet', 'd.jsonnet', 'e.jsonnet'], 'w');
    expect(j[0]).toMatch(/^w holds Jsonnet files \(a\.jsonnet, b\/c\.jsonnet, d\.jsonnet, and 1 more\), which --render evaluates/);
  });
});
