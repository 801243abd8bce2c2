// appset generate's output: a YAML stream and a JSON List of the Applications (as manifests prints objects), or kv lines.
import { appsetWarnings, renderAppSetGenerate } from '../../../src/render/appset.js';
import type { AppSetGenerateReport } from '../../../src/workflows/appset/generate.js';

const report: AppSetGenerateReport = {
  applicationSet: 'argocd/set',
  origin: 'set.yaml',
  applications: [
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'a', namespace: 'argocd' }, spec: { project: 'default' } },
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'b', namespace: 'argocd' }, spec: { project: 'default' } },
  ],
  invalid: [],
};

test('kv: the ApplicationSet, one APPLICATION line each, the count', () => {
  expect(renderAppSetGenerate(report, 'kv')).toBe('APPLICATIONSET=argocd/set\nAPPLICATION=argocd/a\nAPPLICATION=argocd/b\nCOUNT=2\n');
});

test('json: a v1 List of the Applications', () => {
  expect(JSON.parse(renderAppSetGenerate(report, 'json'))).toEqual({ apiVersion: 'v1', kind: 'List', items: report.applications });
});

test('yaml: one document per Application', () => {
  const text = renderAppSetGenerate(report, 'yaml');
  expect(text.split('---\n')).toHaveLength(2);
  expect(text).toContain('name: a\n');
});

test('Applications the controller leaves out: INVALID= lines and warnings', () => {
  const r = { ...report, invalid: [{ name: 'argocd/same', error: 'ApplicationSet set contains applications with duplicate name: same' }] };
  expect(renderAppSetGenerate(r, 'kv')).toContain('INVALID=argocd/same ApplicationSet set contains applications with duplicate name: same\nCOUNT=2\n');
  expect(appsetWarnings(r)).toEqual([
    "argocd/same left out, as Argo CD's controller leaves it out: ApplicationSet set contains applications with duplicate name: same",
  ]);
});
