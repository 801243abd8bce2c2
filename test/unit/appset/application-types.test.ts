// template/patch.go's check of a templatePatch: json.Unmarshal into an argoappsv1.Application. The expected messages
// are those of Go's encoding/json on v3.2.11's types, run on the same JSON.
import { applicationUnmarshalError, goJson, goQuote } from '../../../src/appset/application-types.js';

describe('applicationUnmarshalError', () => {
  it('names the innermost struct and the JSON path, a pointer decoded through and an embedded struct named', () => {
    expect(applicationUnmarshalError({ spec: { source: { helm: { parameters: [{ name: 'a', value: 3 }] } } } }, true)).toBe(
      'json: cannot unmarshal number into Go struct field HelmParameter.spec.source.helm.parameters.value of type string',
    );
    expect(applicationUnmarshalError({ spec: { source: [1] } }, true)).toBe(
      'json: cannot unmarshal array into Go struct field ApplicationSpec.spec.source of type v1alpha1.ApplicationSource',
    );
    expect(applicationUnmarshalError({ kind: 3 }, true)).toBe('json: cannot unmarshal number into Go struct field Application.TypeMeta.kind of type string');
    expect(applicationUnmarshalError({ spec: { source: { plugin: { parameters: [{ map: { x: 1 } }] } } } }, true)).toBe(
      'json: cannot unmarshal number into Go struct field ApplicationSourcePluginParameter.spec.source.plugin.parameters.OptionalMap.map of type string',
    );
    expect(applicationUnmarshalError('foo', true)).toBe('json: cannot unmarshal string into Go value of type v1alpha1.Application');
  });

  it('reports the first refusal in key order, unless an UnmarshalJSON of its own fails later', () => {
    const spec = { source: { targetRevision: 1.1, helm: { parameters: [{ value: 3 }] } } };
    expect(applicationUnmarshalError({ spec }, true)).toMatch(/HelmParameter/);
    expect(applicationUnmarshalError({ spec }, false)).toMatch(/ApplicationSource\.spec\.source\.targetRevision/);
    expect(applicationUnmarshalError({ spec: { source: { kustomize: { namePrefix: 3, replicas: [{ count: 3000000000 }] } } } }, true)).toBe(
      'json: cannot unmarshal number 3000000000 into Go struct field KustomizeReplica.spec.source.kustomize.replicas.count of type int32',
    );
  });

  it('matches a key case-insensitively when no field has it exactly, and takes null and unknown keys', () => {
    expect(applicationUnmarshalError({ spec: { Project: 3 } }, true)).toBe(
      'json: cannot unmarshal number into Go struct field ApplicationSpec.spec.project of type string',
    );
    expect(
      applicationUnmarshalError({ spec: { project: null, source: { helm: { valuesObject: [1] }, unknown: { a: 1 } }, revisionHistoryLimit: 1e3 } }, true),
    ).toBeUndefined();
  });
});

describe('goJson and goQuote (the patch in the message, as YAMLToJSON and %q write it)', () => {
  it('sorts keys and escapes as Go does', () => {
    expect(goJson({ b: 1.1, a: ['<&>'] })).toBe('{"a":["\\u003c\\u0026\\u003e"],"b":1.1}');
    expect(goQuote('{"a":\n\t"é\u0000"}')).toBe('"{\\"a\\":\\n\\t\\"é\\x00\\"}"');
  });
});
