// One fixture per kind and state (test/fixtures/health/), each checked against expected.yaml.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { resourceHealth, hasHealthCheck, hasBuiltInHealthCheck } from '../../../src/health/resource.js';
import type { KubeObject } from '../../../src/model/object.js';
import type { HealthStatus } from '../../../src/health/types.js';

const DIR = join(process.cwd(), 'test/fixtures/health');
const expected = parse(readFileSync(join(DIR, 'expected.yaml'), 'utf8')) as Record<string, HealthStatus | null>;
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml') && f !== 'expected.yaml')
  .sort();

function load(file: string): KubeObject {
  return parse(readFileSync(join(DIR, file), 'utf8')) as KubeObject;
}

describe('resourceHealth', () => {
  it('has an expectation for every fixture and a fixture for every expectation', () => {
    expect(Object.keys(expected).sort()).toEqual(fixtures);
  });

  it.each(fixtures)('%s', (file) => {
    const want = expected[file];
    const got = resourceHealth(load(file));
    if (want === null || want === undefined) {
      expect(got).toBeUndefined();
    } else {
      expect(got).toEqual(want);
    }
  });

  it('covers every kind the issue lists with at least one fixture', () => {
    const kinds = new Set(fixtures.map((f) => load(f).kind));
    for (const kind of [
      'Deployment',
      'StatefulSet',
      'DaemonSet',
      'ReplicaSet',
      'Pod',
      'Service',
      'Ingress',
      'PersistentVolumeClaim',
      'Job',
      'CronJob',
      'HorizontalPodAutoscaler',
      'APIService',
      'PodDisruptionBudget',
      'ConfigMap',
      'Workflow',
    ]) {
      expect(kinds).toContain(kind);
    }
  });

  it('does not mutate the object it reads', () => {
    const obj = load('deployment-progressing.yaml');
    const before = JSON.stringify(obj);
    resourceHealth(obj);
    expect(JSON.stringify(obj)).toBe(before);
  });

  it('knows which kinds have a check', () => {
    expect(hasHealthCheck('apps', 'Deployment')).toBe(true);
    expect(hasHealthCheck('', 'ConfigMap')).toBe(false);
    expect(hasHealthCheck('rbac.authorization.k8s.io', 'Role')).toBe(false);
    expect(hasHealthCheck('cert-manager.io', 'Certificate')).toBe(true);
  });

  it("knows which kinds gitops-engine checks itself (GetHealthCheckFunc), not the bundled scripts' kinds", () => {
    for (const [group, kind] of [
      ['apps', 'Deployment'],
      ['', 'Pod'],
      ['argoproj.io', 'Workflow'],
      ['batch', 'Job'],
      ['networking.k8s.io', 'Ingress'],
    ]) {
      expect(hasBuiltInHealthCheck(group!, kind!)).toBe(true);
    }
    for (const [group, kind] of [
      ['', 'ConfigMap'],
      ['batch', 'CronJob'],
      ['policy', 'PodDisruptionBudget'],
      ['argoproj.io', 'Rollout'],
      ['cert-manager.io', 'Certificate'],
    ]) {
      expect(hasBuiltInHealthCheck(group!, kind!)).toBe(false);
    }
  });

  it('reports a malformed v1 HPA conditions annotation as Unknown with the parse error', () => {
    const hpa = load('hpa-v1-healthy.yaml');
    hpa.metadata.annotations = { 'autoscaling.alpha.kubernetes.io/conditions': '[{' };
    const got = resourceHealth(hpa);
    expect(got?.status).toBe('Unknown');
    expect(got?.message).toMatch(/^failed to convert conditions annotation to typed: /);
  });
});
