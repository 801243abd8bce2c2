// A render tool's failure, printed and recorded in the Application's status, never quotes the source's values where the
// tool is known to (the messages below are the tools' own, as the leak audit got them from jsonnet v0.22.0, kustomize
// v5 and helm v3).
import { scrubToolMessage } from '../../../../src/source/render/tool-message.js';

describe('scrubToolMessage', () => {
  it("drops Jsonnet's source line under a static error, keeping the place, the reason and the stack frames", () => {
    const syntax = `s.jsonnet:2:55-56 Unexpected: "}" while parsing terminal\n\n  stringData: { password: 'PLANTED_syn' + } }\n\n`;
    expect(scrubToolMessage(syntax, 'jsonnet')).toBe('s.jsonnet:2:55-56 Unexpected: "}" while parsing terminal');
    const runtime = `RUNTIME ERROR: field missing\n\tr.jsonnet:2:6-22\tobject <anonymous>\n\tField "n"\t\n\tDuring manifestation\t\n`;
    expect(scrubToolMessage(runtime, 'jsonnet')).toBe(
      'RUNTIME ERROR: field missing\n\tr.jsonnet:2:6-22\tobject <anonymous>\n\tField "n"\t\n\tDuring manifestation',
    );
  });

  it("masks Go YAML's quoted anchors and values, and kustomize's literal sources", () => {
    expect(scrubToolMessage("Error: cannot load values.yaml: error converting YAML to JSON: yaml: unknown anchor 'PLANTED_val' referenced", 'helm')).toBe(
      "Error: cannot load values.yaml: error converting YAML to JSON: yaml: unknown anchor '…' referenced",
    );
    expect(scrubToolMessage('yaml: unmarshal errors:\n  line 5: cannot unmarshal !!str `PLANTED` into int', 'kustomize')).toBe(
      'yaml: unmarshal errors:\n  line 5: cannot unmarshal !!str `…` into int',
    );
    expect(
      scrubToolMessage(
        'Error: loading KV pairs: literal sources [password:PLANTED_lit]: invalid literal source password:PLANTED_lit, expected key=value',
        'kustomize',
      ),
    ).toBe('Error: loading KV pairs: literal sources […]: invalid literal source …, expected key=value');
  });

  it('leaves everything else as the tool said it', () => {
    const said = 'Error: template: shop/templates/cm.yaml:3:10: executing "shop/templates/cm.yaml" at <.Values.x.y>: nil pointer evaluating interface {}.y';
    expect(scrubToolMessage(said, 'helm')).toBe(said);
  });
});
