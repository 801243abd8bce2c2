import { DEFAULT_DIRECTORY } from '../../../../src/app/source-options.js';
import { detectSourceType } from '../../../../src/source/render/detect.js';

describe("source type detection in Argo CD's order", () => {
  it('takes the one explicit key first, whatever the files say', () => {
    expect(detectSourceType({ directory: DEFAULT_DIRECTORY }, ['kustomization.yaml'])).toEqual({ type: 'Directory', explicit: true });
    expect(detectSourceType({ plugin: {} }, [])).toEqual({ type: 'Plugin', explicit: true });
    expect(detectSourceType({ helm: {} as never }, ['kustomization.yaml'])).toEqual({ type: 'Helm', explicit: true });
    expect(detectSourceType({ chart: 'redis' }, [])).toEqual({ type: 'Helm', explicit: true });
  });

  it('refuses two explicit keys as Argo CD does', () => {
    expect(detectSourceType({ directory: DEFAULT_DIRECTORY, plugin: {} }, [])).toEqual({ error: 'multiple application sources defined: Directory,Plugin' });
  });

  it('discovers Kustomize from any of its three file names, Helm from *Chart.yaml, else a directory', () => {
    for (const n of ['kustomization.yaml', 'kustomization.yml', 'Kustomization'])
      expect(detectSourceType(undefined, ['a.yaml', n])).toMatchObject({ type: 'Kustomize', explicit: false });
    expect(detectSourceType(undefined, ['Chart.yaml', 'values.yaml'])).toMatchObject({ type: 'Helm' });
    expect(detectSourceType(undefined, ['MyChart.yaml'])).toMatchObject({ type: 'Helm' });
    expect(detectSourceType(undefined, ['kustomization.json', 'chart.yaml', 'a.yaml'])).toMatchObject({ type: 'Directory' });
    expect(detectSourceType({}, [])).toMatchObject({ type: 'Directory' });
  });

  it('lets the last match in byte order win, as the walk does', () => {
    expect(detectSourceType(undefined, ['kustomization.yaml', 'Chart.yaml'])).toMatchObject({ type: 'Kustomize' });
    expect(detectSourceType(undefined, ['Kustomization', 'MyChart.yaml'])).toMatchObject({ type: 'Helm' });
  });
});
