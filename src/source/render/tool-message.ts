// What a render tool said when it failed, without the parts known to quote the source: a manifest's or values file's
// values may be a Secret's (an unquoted `*password` is an alias to Go's YAML parser, which names it), and the message
// is printed and recorded in the Application's status. Pure.

/** Jsonnet's static errors print the offending source line under the first line; its stack frames start with a tab. */
function withoutJsonnetSnippet(text: string): string {
  const lines = text.split('\n');
  return [lines[0] ?? '', ...lines.slice(1).filter((l) => l.startsWith('\t'))].join('\n').trim();
}

/**
 * The message with the source text masked where a tool quotes it: Go YAML's `unknown anchor '…'` and `` cannot
 * unmarshal !!str `…` ``, kustomize's `invalid literal source …` and `literal sources […]` (a secretGenerator literal
 * written with `:` instead of `=`), and Jsonnet's source line under a static error. A program's own words (Jsonnet's
 * `error`, a Helm template's `fail`, a standard-library message about a value) are the program's, shown as written.
 */
export function scrubToolMessage(text: string, tool: 'jsonnet' | 'helm' | 'kustomize'): string {
  const base = tool === 'jsonnet' ? withoutJsonnetSnippet(text) : text;
  return base
    .replace(/(unknown anchor ')[^']*(')/g, '$1…$2')
    .replace(/(cannot unmarshal !!\w+ `)[^`]*(`)/g, '$1…$2')
    .replace(/(invalid literal source )[^\n]*?(, expected key=value)/g, '$1…$2')
    .replace(/(literal sources \[)[^\]\n]*(\])/g, '$1…$2');
}
