// Secret masking as Argo CD's HideSecretData: a Secret shown alone (`manifests`) keeps its keys, never its values.
import { hideSecretData, SecretMasker } from '../../../src/diff/mask.js';
import type { KubeObject } from '../../../src/model/object.js';

describe('hideSecretData', () => {
  it('folds stringData into data and hides every value (a + run per key), keeping the keys and the rest of the object', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', annotations: { a: 'b' } },
      type: 'Opaque',
      data: { password: 'aHVudGVyMg==', empty: null },
      stringData: { token: 'plain-text' },
    } as unknown as KubeObject;
    expect(hideSecretData(secret)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', annotations: { a: 'b' } },
      type: 'Opaque',
      data: { password: '++++++++', empty: '++++++++', token: '++++++++' },
    });
    expect(JSON.stringify(hideSecretData(secret))).not.toMatch(/hunter|aHVudGVyMg|plain-text/);
  });

  it('masks data or stringData that is not a map whole (a value as written, never shown)', () => {
    const odd = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: 'UFdERVNJUkVE', stringData: ['PWLIVE'] } as unknown as KubeObject;
    expect(hideSecretData(odd)).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: '++++++++', stringData: '++++++++' });
    const text = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, stringData: 'APIKEY' } as unknown as KubeObject;
    expect(JSON.stringify(hideSecretData(text))).not.toContain('APIKEY');
  });

  it('leaves a Secret without data, and any other kind, as they are', () => {
    const bare = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, type: 'Opaque' } as KubeObject;
    expect(hideSecretData(bare)).toBe(bare);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } } as unknown as KubeObject;
    expect(hideSecretData(cm)).toBe(cm);
  });

  it('masks what is almost a Secret too (another group, another case of the kind): the safe side, as manifests --offline and normalize print what they are given', () => {
    for (const [apiVersion, kind] of [
      ['example.com/v1', 'Secret'],
      ['v1', 'secret'],
      ['core/v1', 'Secret'],
    ]) {
      const odd = { apiVersion, kind, metadata: { name: 's' }, data: { k: 'UExBTlRFRA==' }, stringData: { p: 'PLANTED' } } as unknown as KubeObject;
      expect(JSON.stringify(hideSecretData(odd))).not.toMatch(/PLANTED|UExBTlRFRA/);
    }
  });
});

describe('SecretMasker', () => {
  it('gives equal values under a key the same mask and each new value a longer one', () => {
    const m = new SecretMasker({ k: 'a' }, { k: 'b' }, { k: 'a' });
    expect([m.mask('k', 'a'), m.mask('k', 'b'), m.mask('k', 'c'), m.mask('other', 'c')]).toEqual(['++++++++', '++++++++++++', '++++++++++++++++', '++++++++']);
  });
});

describe("argocd-cm's resource.sensitive.mask.annotations", () => {
  const hidden = new Set(['token', 'openshift.io/token-secret.value']);
  const secret = (token: string) =>
    ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', annotations: { token, app: 'shop', 'openshift.io/token-secret.value': 'eyJhbGciOi.fake' } },
      data: { token: 'c2VjcmV0' },
    }) as unknown as KubeObject;
  const at = (...fields: string[]) => fields.map((field) => ({ field }));

  it('masks the named annotations of a Secret as its data: equal values one mask, a changed value a longer one; others as they are', () => {
    const m = new SecretMasker().hideAnnotations(hidden, secret('SECRETVAL'), secret('NEWSECRETVAL'));
    expect(m.maskAt(at('metadata', 'annotations', 'token'), 'SECRETVAL')).toBe('++++++++');
    expect(m.maskAt(at('metadata', 'annotations', 'token'), 'NEWSECRETVAL')).toBe('++++++++++++');
    expect(m.maskAt(at('metadata', 'annotations', 'app'), 'shop')).toBe('shop');
    expect(m.maskAt(at('metadata', 'labels', 'token'), 'x')).toBe('x');
    // The whole map, or the whole metadata, with the named values masked.
    expect(m.maskAt(at('metadata', 'annotations'), { token: 'SECRETVAL', app: 'shop' })).toEqual({ token: '++++++++', app: 'shop' });
    expect(m.maskAt(at('metadata'), { name: 'db', annotations: { 'openshift.io/token-secret.value': 'eyJhbGciOi.fake' } })).toEqual({
      name: 'db',
      annotations: { 'openshift.io/token-secret.value': '++++++++' },
    });
    // An annotation's masks are its own: a data key of the same name counts its values apart.
    expect(m.mask('token', 'SECRETVAL')).toBe('++++++++');
    expect(m.mask('token', 'c2VjcmV0')).toBe('++++++++++++');
  });

  it('the last-applied copy holds the whole Secret: its value is always masked, named or not; without the setting nothing else is', () => {
    const m = new SecretMasker().hideAnnotations(undefined);
    expect(m.maskAt(at('metadata', 'annotations', 'kubectl.kubernetes.io/last-applied-configuration'), '{"data":{"token":"c2VjcmV0"}}')).toBe('++++++++');
    expect(m.maskAt(at('metadata', 'annotations', 'token'), 'SECRETVAL')).toBe('SECRETVAL');
    const same = { name: 'db', annotations: { token: 'SECRETVAL' } };
    expect(m.maskAt(at('metadata'), same)).toBe(same);
  });

  it('hideSecretData masks them too (manifests), and keeps the object when there is nothing to mask', () => {
    const shown = hideSecretData(secret('SECRETVAL'), hidden);
    expect(shown.metadata.annotations).toEqual({ token: '++++++++', app: 'shop', 'openshift.io/token-secret.value': '++++++++' });
    expect(JSON.stringify(shown)).not.toMatch(/SECRETVAL|eyJhbGciOi|c2VjcmV0/);
    expect(hideSecretData(secret('SECRETVAL')).metadata.annotations?.token).toBe('SECRETVAL');
    const bare = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', annotations: { app: 'shop' } } } as unknown as KubeObject;
    expect(hideSecretData(bare, hidden)).toBe(bare);
  });
});
