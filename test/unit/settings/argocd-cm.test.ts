import { defaultSettings, isExcludedResource, parseArgoSettings } from '../../../src/settings/argocd-cm.js';
import { stampTrackingId } from '../../../src/tracking/tracking-id.js';
import { ownershipVerdict } from '../../../src/tracking/select.js';
import type { KubeObject } from '../../../src/model/object.js';

describe('argocd-cm', () => {
  it('reads the tracking method, the instance label and the installation id (defaults: annotation, app.kubernetes.io/instance)', () => {
    expect(parseArgoSettings({}, 'cm')).toMatchObject({ trackingMethod: 'annotation', instanceLabelKey: 'app.kubernetes.io/instance', installationID: '' });
    expect(
      parseArgoSettings({ 'application.resourceTrackingMethod': 'label', 'application.instanceLabelKey': 'team/app', installationID: 'i1' }, 'cm'),
    ).toMatchObject({ trackingMethod: 'label', instanceLabelKey: 'team/app', installationID: 'i1' });
    expect(parseArgoSettings({ 'application.resourceTrackingMethod': 'bogus' }, 'cm').warnings[0]).toContain('tracks by annotation');
  });

  it("turns ignoreDifferences keys (split, .all and the older block) into rules after the Application's, naming their key", () => {
    const s = parseArgoSettings(
      {
        'resource.customizations.ignoreDifferences.apps_Deployment': 'jsonPointers:\n- /spec/replicas\n',
        'resource.customizations.ignoreDifferences.all': 'managedFieldsManagers:\n- kube-controller-manager\n',
        'resource.customizations.ignoreDifferences.Service': 'jqPathExpressions:\n- .spec.clusterIP\n',
        'resource.customizations':
          'admissionregistration.k8s.io/MutatingWebhookConfiguration:\n  ignoreDifferences: |\n    jsonPointers:\n    - /webhooks/0/clientConfig/caBundle\n',
      },
      'cm',
    );
    expect(s.ignoreDifferences.map((r) => [r.group, r.kind, r.source])).toEqual([
      ['*', '*', 'cm resource.customizations.ignoreDifferences.all'],
      ['', 'Service', 'cm resource.customizations.ignoreDifferences.Service'],
      [
        'admissionregistration.k8s.io',
        'MutatingWebhookConfiguration',
        'cm resource.customizations["admissionregistration.k8s.io/MutatingWebhookConfiguration"].ignoreDifferences',
      ],
      ['apps', 'Deployment', 'cm resource.customizations.ignoreDifferences.apps_Deployment'],
    ]);
  });

  it('reads ignoreResourceStatusField as Argo CD does: all by default, off/false as none, an unknown value (All, sometimes) as all with a warning', () => {
    const opt = (v?: string) => parseArgoSettings(v === undefined ? {} : { 'resource.compareoptions': `ignoreResourceStatusField: ${v}\n` }, 'cm');
    expect(opt().compareOptions.ignoreResourceStatusField).toBe('all');
    expect(opt('crd').compareOptions.ignoreResourceStatusField).toBe('crd');
    expect(opt('none').compareOptions.ignoreResourceStatusField).toBe('none');
    expect(opt('off').compareOptions.ignoreResourceStatusField).toBe('none');
    expect(opt('false').compareOptions.ignoreResourceStatusField).toBe('none');
    expect(opt('none').warnings).toEqual([]);
    for (const v of ['sometimes', 'All']) {
      const odd = opt(v);
      expect(odd.compareOptions.ignoreResourceStatusField).toBe('all');
      expect(odd.warnings[0]).toContain(`"${v}" is not all, crd or none: as in Argo CD, the status of every resource is ignored`);
    }
  });

  it('keeps every group/Kind resource.customizations names, whatever it sets, and the CRD under ignoreResourceStatusField: crd (hasOverride of setApplicationHealth)', () => {
    const s = parseArgoSettings(
      {
        'resource.customizations.health.cert-manager.io_Certificate': 'hs = {}\nreturn hs',
        'resource.customizations.ignoreDifferences.Service': 'jsonPointers: [/spec/clusterIP]',
        'resource.compareoptions': 'ignoreResourceStatusField: crd',
      },
      'cm',
    );
    expect([...s.overrideKeys].sort()).toEqual(['Service', 'apiextensions.k8s.io/CustomResourceDefinition', 'cert-manager.io/Certificate']);
    expect([...parseArgoSettings({}, 'cm').overrideKeys]).toEqual([]);
  });

  it('reads kustomize.buildOptions and the named binaries (kustomize.path.<v>, and the older kustomize.version.<v>); a version named twice is an error', () => {
    const s = parseArgoSettings(
      {
        'kustomize.buildOptions': '--enable-helm --load-restrictor LoadRestrictionsNone',
        'kustomize.path.v5.4.3': '/tools/k543',
        'kustomize.version.v4': '/tools/k4',
      },
      'cm',
    );
    expect(s.kustomize).toEqual({
      buildOptions: '--enable-helm --load-restrictor LoadRestrictionsNone',
      versions: new Map([
        ['v5.4.3', '/tools/k543'],
        ['v4', '/tools/k4'],
      ]),
    });
    expect(parseArgoSettings({}, 'cm').kustomize).toEqual({ versions: new Map() });
    expect(() => parseArgoSettings({ 'kustomize.path.v5': '/a', 'kustomize.version.v5': '/b' }, 'cm')).toThrow(
      'cm: kustomize.version.v5: found duplicate kustomize version: v5',
    );
  });

  it('reads helm.valuesFileSchemes as Argo CD does: split on commas, trimmed, empty items dropped; unset https, http; set empty, none', () => {
    expect(parseArgoSettings({}, 'cm').helmValuesFileSchemes).toEqual(['https', 'http']);
    expect(parseArgoSettings({ 'helm.valuesFileSchemes': ' https ,, s3 ' }, 'cm').helmValuesFileSchemes).toEqual(['https', 's3']);
    expect(parseArgoSettings({ 'helm.valuesFileSchemes': '' }, 'cm').helmValuesFileSchemes).toEqual([]);
  });

  it('reads knownTypeFields (split keys and the older block) by group/Kind; a type Argo CD does not know is left out with a warning', () => {
    const s = parseArgoSettings(
      {
        'resource.customizations.knownTypeFields.argoproj.io_Rollout': '- field: spec.template.spec\n  type: core/v1/PodSpec\n',
        'resource.customizations.knownTypeFields.batch.example.com_Job':
          '- field: spec.timeout\n  type: meta/v1/Duration\n- field: spec.x\n  type: apps/v1/Nope\n',
        'resource.customizations': 'example.com/Cache:\n  knownTypeFields:\n  - field: spec.size\n    type: core/Quantity\n',
      },
      'cm',
    );
    expect(Object.fromEntries(s.knownTypeFields)).toEqual({
      'argoproj.io/Rollout': [{ path: ['spec', 'template', 'spec'], type: 'core/v1/PodSpec' }],
      'batch.example.com/Job': [{ path: ['spec', 'timeout'], type: 'meta/v1/Duration' }],
      'example.com/Cache': [{ path: ['spec', 'size'], type: 'core/Quantity' }],
    });
    expect(s.warnings).toEqual([
      "cm: resource.customizations.knownTypeFields.batch.example.com_Job[1]: type 'apps/v1/Nope' is not supported, so spec.x is compared as plain data (as Argo CD, which leaves it out too)",
    ]);
    expect(() => parseArgoSettings({ 'resource.customizations.knownTypeFields.a_B': 'field: x' }, 'cm')).toThrow(/must be a YAML list of \{field, type\}/);
  });

  it('reads application.sync.impersonation.enabled (off by default)', () => {
    expect(parseArgoSettings({}, 'cm').impersonation).toBe(false);
    expect(parseArgoSettings({ 'application.sync.impersonation.enabled': 'true' }, 'cm').impersonation).toBe(true);
  });

  it("reads timeout.reconciliation and its jitter as Argo CD's controller does: 120s and 60s unset, 0 kept, a bad one the default with a warning of its own", () => {
    expect(parseArgoSettings({}, 'cm').reconciliation).toEqual({ timeoutMs: 120_000, jitterMs: 60_000, warnings: [] });
    expect(defaultSettings().reconciliation).toEqual({ timeoutMs: 120_000, jitterMs: 60_000, warnings: [] });
    expect(parseArgoSettings({ 'timeout.reconciliation': '3m', 'timeout.reconciliation.jitter': '0' }, 'cm').reconciliation).toEqual({
      timeoutMs: 180_000,
      jitterMs: 0,
      warnings: [],
    });
    expect(parseArgoSettings({ 'timeout.reconciliation': '0', 'timeout.reconciliation.jitter': '' }, 'cm').reconciliation).toEqual({
      timeoutMs: 0,
      jitterMs: 60_000,
      warnings: [],
    });
    const bad = parseArgoSettings({ 'timeout.reconciliation': '300' }, 'cm');
    expect(bad.reconciliation.timeoutMs).toBe(120_000);
    // Said by sync --watch only (no other command polls): not among the settings' warnings every command prints.
    expect(bad.reconciliation.warnings).toEqual([
      'cm: timeout.reconciliation: "300" is not a duration (e.g. 180s, 3m), so 120s is used, as Argo CD\'s controller would',
    ]);
    expect(bad.warnings).toEqual([]);
  });

  it("reads those two as env.ParseDurationFromEnv and the controller's int64(Seconds()) do: a sign, days, whole seconds; a negative one the default", () => {
    const read = (text: string) => parseArgoSettings({ 'timeout.reconciliation': text }, 'cm').reconciliation;
    expect(read('+5s').timeoutMs).toBe(5_000);
    expect(read('1d').timeoutMs).toBe(86_400_000);
    expect(read('1500ms').timeoutMs).toBe(1_000);
    expect(read('900ms').timeoutMs).toBe(0);
    expect(read('1h1.9s').timeoutMs).toBe(3_601_000);
    expect(read('-0s')).toEqual({ timeoutMs: 0, jitterMs: 60_000, warnings: [] });
    expect(read('-5s')).toEqual({
      timeoutMs: 120_000,
      jitterMs: 60_000,
      warnings: ['cm: timeout.reconciliation: "-5s" is negative, so 120s is used, as Argo CD\'s controller would'],
    });
    expect(read('1.5d').warnings).toEqual([
      'cm: timeout.reconciliation: "1.5d" is not a duration (e.g. 180s, 3m), so 120s is used, as Argo CD\'s controller would',
    ]);
  });

  it('reads resource.sensitive.mask.annotations as Argo CD does: comma-separated, spaces dropped (none by default)', () => {
    expect(parseArgoSettings({}, 'cm').sensitiveAnnotations).toEqual(new Set());
    expect(parseArgoSettings({ 'resource.sensitive.mask.annotations': ' openshift.io/token-secret.value, api-key ,,' }, 'cm').sensitiveAnnotations).toEqual(
      new Set(['openshift.io/token-secret.value', 'api-key']),
    );
  });

  it('refuses what Argo CD refuses to read', () => {
    expect(() => parseArgoSettings({ 'resource.customizations.bogus.apps_Deployment': 'x' }, 'cm')).toThrow('resource customization type bogus not supported');
    expect(() => parseArgoSettings({ 'resource.customizations.health.a_b_c': 'x' }, 'cm')).toThrow('group kind should be in format');
    expect(() => parseArgoSettings({ 'resource.exclusions': '{' }, 'cm')).toThrow('resource.exclusions is not valid YAML');
  });

  it("exclusions win, inclusions for a cluster exclude the rest, and Argo CD's core exclusions always apply", () => {
    const s = parseArgoSettings(
      {
        'resource.exclusions': '- apiGroups: ["*.example.com"]\n  kinds: ["*"]\n  clusters: ["*"]\n',
        'resource.inclusions': '- apiGroups: ["", "apps"]\n  kinds: ["*"]\n  clusters: ["https://kubernetes.default.svc"]\n',
      },
      'cm',
    );
    const c = 'https://kubernetes.default.svc';
    expect(isExcludedResource(s, 'apps', 'Deployment', c)).toBe(false);
    expect(isExcludedResource(s, 'batch', 'Job', c)).toBe(true);
    expect(isExcludedResource(s, 'a.example.com', 'Thing', c)).toBe(true);
    expect(isExcludedResource(s, '', 'Event', c)).toBe(true);
    expect(isExcludedResource(parseArgoSettings({}, 'cm'), 'coordination.k8s.io', 'Lease', c)).toBe(true);
    expect(isExcludedResource(parseArgoSettings({}, 'cm'), 'batch', 'Job', c)).toBe(false);
  });

  it('reads health scripts by group/Kind (core: /Kind) with useOpenLibs', () => {
    const s = parseArgoSettings(
      {
        'resource.customizations.health.example.com_Widget': 'return {}',
        'resource.customizations.useOpenLibs.example.com_Widget': 'true',
        'resource.customizations.health.ConfigMap': 'return {}',
      },
      'cm',
    );
    expect(s.health.get('example.com/Widget')).toMatchObject({ useOpenLibs: true });
    expect(s.health.get('/ConfigMap')).toMatchObject({ useOpenLibs: false });
  });
});

describe('tracking methods (SetAppInstance, GetAppName)', () => {
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' } };
  const key = 'app.kubernetes.io/instance';
  it('stamps the label, the annotation (with the installation id), or both', () => {
    expect(stampTrackingId(cm, 'shop', 'shop', { method: 'label', labelKey: key, installationID: 'i' }).metadata).toEqual({
      name: 'c',
      namespace: 'shop',
      labels: { [key]: 'shop' },
    });
    expect(stampTrackingId(cm, 'shop', 'shop', { method: 'annotation', labelKey: key, installationID: 'i' }).metadata.annotations).toEqual({
      'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/c',
      'argocd.argoproj.io/installation-id': 'i',
    });
    const both = stampTrackingId(cm, 'x'.repeat(70) + '-_', 'shop', { method: 'annotation+label', labelKey: key, installationID: '' });
    expect(both.metadata.labels?.[key]).toBe('x'.repeat(63));
    expect(both.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toContain(':/ConfigMap:shop/c');
  });
  it('label tracking: the label names the app and nothing else is checked; the annotation does not count', () => {
    const t = { method: 'label' as const, labelKey: key, installationID: '' };
    const withLabel = (v: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
      ...cm,
      metadata: { ...cm.metadata, labels: { [key]: v }, ...extra },
    });
    expect(ownershipVerdict(withLabel('shop'), 'shop', t)).toBeUndefined();
    expect(ownershipVerdict(withLabel('other'), 'shop', t)).toEqual({ code: 'other-app', app: 'other' });
    expect(ownershipVerdict(withLabel('shop', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid: 'u' }] }), 'shop', t)?.code).toBe(
      'has-owner',
    );
    expect(
      ownershipVerdict({ ...cm, metadata: { ...cm.metadata, annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/c' } } }, 'shop', t),
    ).toEqual({ code: 'unmarked' });
  });
  it("an installation id: only objects annotated with it are any app's", () => {
    const t = { method: 'annotation' as const, labelKey: key, installationID: 'i1' };
    const marked = (iid?: string): KubeObject => ({
      ...cm,
      metadata: {
        ...cm.metadata,
        annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/c', ...(iid ? { 'argocd.argoproj.io/installation-id': iid } : {}) },
      },
    });
    expect(ownershipVerdict(marked('i1'), 'shop', t)).toBeUndefined();
    expect(ownershipVerdict(marked('i2'), 'shop', t)).toEqual({ code: 'other-installation', id: 'i2' });
    expect(ownershipVerdict(marked(), 'shop', t)).toEqual({ code: 'other-installation', id: '' });
  });
});
