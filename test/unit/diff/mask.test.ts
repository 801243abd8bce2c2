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

  it('leaves a Secret without data, and any other object (a Secret of another group too), as they are', () => {
    const bare = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, type: 'Opaque' } as KubeObject;
    expect(hideSecretData(bare)).toBe(bare);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } } as unknown as KubeObject;
    expect(hideSecretData(cm)).toBe(cm);
    const other = { apiVersion: 'example.com/v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'v' } } as unknown as KubeObject;
    expect(hideSecretData(other)).toBe(other);
  });
});

describe('SecretMasker', () => {
  it('gives equal values under a key the same mask and each new value a longer one', () => {
    const m = new SecretMasker({ k: 'a' }, { k: 'b' }, { k: 'a' });
    expect([m.mask('k', 'a'), m.mask('k', 'b'), m.mask('k', 'c'), m.mask('other', 'c')]).toEqual(['++++++++', '++++++++++++', '++++++++++++++++', '++++++++']);
  });
});
