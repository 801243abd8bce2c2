// What this tool cannot render exactly as Argo CD would, found from the spec and from the files: every case a reason.
import { fileBlockers, recurses, specBlockers } from '../../../src/source/renderability.js';

const plain = { sourcesCount: 0, sourceOptions: {} };

describe('specBlockers', () => {
  it('a plain directory source, one entry in sources, or directory.recurse alone render', () => {
    expect(specBlockers(plain)).toEqual([]);
    expect(specBlockers({ sourcesCount: 1, sourceOptions: {} })).toEqual([]);
    expect(specBlockers({ sourcesCount: 0, sourceOptions: { directory: { recurse: true } } })).toEqual([]);
    expect(specBlockers({ sourcesCount: 0, sourceOptions: { directory: { recurse: false, include: '', exclude: '', jsonnet: {} } } })).toEqual([]);
  });

  it.each([
    [{ sourcesCount: 2, sourceOptions: {} }, /spec\.sources has 2 sources/],
    [{ sourcesCount: 0, sourceOptions: { chart: 'redis' } }, /spec\.source\.chart/],
    [{ sourcesCount: 0, sourceOptions: { plugin: { name: 'x' } } }, /Config Management Plugins/],
    [{ sourcesCount: 0, sourceOptions: { helm: { releaseName: 'x' } } }, /spec\.source\.helm: Helm/],
    [{ sourcesCount: 0, sourceOptions: { kustomize: { namePrefix: 'x-' } } }, /spec\.source\.kustomize: Kustomize/],
    [{ sourcesCount: 0, sourceOptions: { directory: { include: '*.yaml' } } }, /spec\.source\.directory\.include is not rendered yet/],
    [{ sourcesCount: 0, sourceOptions: { directory: { jsonnet: { tlas: [{ name: 'a', value: 'b' }] } } } }, /directory\.jsonnet/],
    [{ sourcesCount: 0, sourceOptions: { directory: { recurse: 'yes' } } }, /recurse must be true or false/],
  ])('%j is refused', (app, reason) => {
    const out = specBlockers(app as never);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(reason);
  });

  it('recurses only with directory.recurse: true (Argo CD\'s default is false)', () => {
    expect(recurses(plain)).toBe(false);
    expect(recurses({ sourceOptions: { directory: { recurse: true } } })).toBe(true);
    expect(recurses({ sourceOptions: { directory: {} } })).toBe(false);
  });
});

describe('fileBlockers', () => {
  it('plain manifests and libsonnet files are fine', () => {
    expect(fileBlockers(['a.yaml', 'b/c.json', 'lib.libsonnet', 'README.md'], 'repo@abc:/x')).toEqual([]);
  });

  it('a kustomization or Chart.yaml at the root, Jsonnet anywhere read', () => {
    expect(fileBlockers(['kustomization.yaml', 'a.yaml'], 'w')).toEqual(['w holds kustomization.yaml: a Kustomize source, not rendered yet']);
    expect(fileBlockers(['Kustomization'], 'w')[0]).toMatch(/Kustomization: a Kustomize source/);
    expect(fileBlockers(['Chart.yaml', 'templates/a.yaml'], 'w')).toEqual(['w holds Chart.yaml: a Helm chart, not rendered yet']);
    expect(fileBlockers(['sub/kustomization.yaml', 'sub/Chart.yaml'], 'w')).toEqual([]);
    const j = fileBlockers(['a.jsonnet', 'b/c.jsonnet', 'd.jsonnet', 'e.jsonnet'], 'w');
    expect(j).toEqual(['w holds Jsonnet files (a.jsonnet, b/c.jsonnet, d.jsonnet, and 1 more): Jsonnet is not rendered yet, and the objects they make would look like prune candidates']);
  });
});
