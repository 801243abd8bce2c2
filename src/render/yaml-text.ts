// YAML text for people and pipes: every printed YAML document goes through here.
import { stringify } from 'yaml';

/**
 * A value as YAML, key order as given, no line folding, no anchors. Strings are quoted wherever a YAML 1.1 reader
 * would take them for something else (`yes`, `on`, `n`, `0755`, `1_000`, `2001-12-14`): kubectl reads YAML through Go's
 * yaml.v2, a YAML 1.1 parser, so `manifests -o yaml | kubectl apply -f -` must not turn a label "yes" into a boolean, as
 * sigs.k8s.io/yaml (what `argocd app manifests` prints with) quotes them too.
 */
export function yamlText(value: unknown): string {
  return stringify(value, { aliasDuplicateObjects: false, lineWidth: 0, version: '1.1' });
}
