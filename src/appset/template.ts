// Argo CD's two ways of filling an ApplicationSet's strings with a generator's parameters (applicationset/utils/utils.go
// Render.Replace): the default fasttemplate `{{ param }}` substitution, done here, and goTemplate (Go's text/template with
// sprig), done by an engine the workflow hands in. Everything is batched: one call renders many strings.

/** One parameter set, as a generator made it: flat string values (default) or nested values (goTemplate). */
export type Params = Record<string, unknown>;

/** One string to render with one parameter set. */
export interface RenderItem {
  text: string;
  params: Params;
}

/** Renders many strings with Go's text/template; one result per item, its output or its error. */
export type GoEngine = (items: readonly RenderItem[], options: readonly string[]) => Promise<({ output: string } | { error: string })[]>;

/** Renders a batch of strings, in order; throws (TemplateError) at the first that fails. */
export type Renderer = (items: readonly RenderItem[]) => Promise<string[]>;

/** A string that could not be rendered: Argo CD's message. */
export class TemplateError extends Error {
  override name = 'TemplateError';
}

/** `.*{{.*}}.*` as Argo CD tests it: some line holds `{{` then `}}`. */
const TEMPLATED = /\{\{.*\}\}/;

/**
 * fasttemplate with `{{`/`}}` as Argo CD calls it: each tag, trimmed, is looked up in the parameters; a string value
 * replaces it, anything else (unknown, empty tag, not a string) leaves the tag as written. A `{{` without a closing `}}`
 * after it is an error (fasttemplate's "Cannot find end tag").
 */
export function fasttemplate(text: string, params: Params): string {
  if (!TEMPLATED.test(text)) return text;
  let out = '';
  let pos = 0;
  for (;;) {
    const open = text.indexOf('{{', pos);
    if (open < 0) return out + text.slice(pos);
    const close = text.indexOf('}}', open + 2);
    if (close < 0)
      throw new TemplateError(
        `invalid template: Cannot find end tag="}}" in the template=${JSON.stringify(text)} starting from ${JSON.stringify(text.slice(open + 2))}`,
      );
    const tag = text.slice(open + 2, close);
    const value = params[tag.trim()];
    out += text.slice(pos, open) + (tag.trim() !== '' && typeof value === 'string' ? value : `{{${tag}}}`);
    pos = close + 2;
  }
}

/** The renderer an ApplicationSet asks for: goTemplate through the engine (with goTemplateOptions), else fasttemplate. */
export function makeRenderer(goTemplate: boolean, options: readonly string[], engine: GoEngine | undefined): Renderer {
  if (!goTemplate) return async (items) => items.map((i) => fasttemplate(i.text, i.params));
  return async (items) => {
    if (items.length === 0) return [];
    // A string without `{{` has no action: text/template prints it as it is, so it need not go to the engine.
    const templated = items.filter((i) => i.text.includes('{{'));
    if (templated.length === 0) return items.map((i) => i.text);
    if (!engine) throw new TemplateError('goTemplate needs the Go template engine, which this run does not have');
    const results = await engine(templated, options);
    const out = new Map<RenderItem, string>();
    templated.forEach((item, k) => {
      const r = results[k] as { output: string } | { error: string };
      if ('error' in r) throw new TemplateError(r.error);
      out.set(item, r.output);
    });
    return items.map((i) => out.get(i) ?? i.text);
  };
}

/**
 * Every string of a JSON value (and every map key, as Argo CD templates keys too), rendered with one parameter set per
 * copy: one batch for all copies. Returns one rendered copy per parameter set.
 */
export async function renderDeep(value: unknown, paramSets: readonly Params[], render: Renderer): Promise<unknown[]> {
  const strings: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        // a nil map value is dropped, as deeplyReplace skips it
        if (x === null) continue;
        collect(x);
        strings.push(k);
      }
    }
  };
  collect(value);
  if (paramSets.length === 0) return [];
  const rendered = await render(paramSets.flatMap((params) => strings.map((text) => ({ text, params }))));
  return paramSets.map((_, set) => {
    let i = set * strings.length;
    const rebuild = (v: unknown): unknown => {
      if (typeof v === 'string') return rendered[i++];
      if (Array.isArray(v)) return v.map(rebuild);
      if (v !== null && typeof v === 'object') {
        const out: Record<string, unknown> = {};
        for (const [, x] of Object.entries(v)) {
          if (x === null) continue;
          const nv = rebuild(x);
          out[rendered[i++] as string] = nv;
        }
        return out;
      }
      return v;
    };
    return rebuild(value);
  });
}
