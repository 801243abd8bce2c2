// A partial sync's filters (pure): Argo CD's `--resource [!]GROUP:KIND:[NAMESPACE/]NAME` and a Kubernetes label selector.
import { InputError } from '../model/errors.js';
import type { ResourceKey } from '../model/object.js';

export interface ResourceFilter {
  /** As typed, for messages. */
  text: string;
  /** `!` in front: everything but what it names. */
  exclude: boolean;
  group: RegExp;
  kind: RegExp;
  /** Absent: any namespace (`GROUP:KIND:NAME`). */
  namespace?: RegExp;
  name: RegExp;
}

/** A glob where `*` is any run of characters, as Argo CD's --resource takes it; anything else is literal. */
function glob(s: string): RegExp {
  return new RegExp(
    `^${s
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/** Parses one `--resource` value; the core group is empty (`:ConfigMap:name`). */
export function parseResourceFilter(text: string): ResourceFilter {
  const exclude = text.startsWith('!');
  const body = exclude ? text.slice(1) : text;
  const parts = body.split(':');
  if (parts.length !== 3 || parts[1] === '' || parts[2] === '') {
    throw new InputError(`--resource ${text}: expected [!]GROUP:KIND:NAME or GROUP:KIND:NAMESPACE/NAME (the core group is empty, e.g. :ConfigMap:settings)`);
  }
  const [group, kind, rest] = parts as [string, string, string];
  const slash = rest.indexOf('/');
  const namespace = slash < 0 ? undefined : rest.slice(0, slash);
  const name = slash < 0 ? rest : rest.slice(slash + 1);
  if (name === '') throw new InputError(`--resource ${text}: the name is empty`);
  return { text, exclude, group: glob(group), kind: glob(kind), ...(namespace !== undefined ? { namespace: glob(namespace) } : {}), name: glob(name) };
}

export function matchesResource(f: ResourceFilter, k: ResourceKey): boolean {
  return f.group.test(k.group) && f.kind.test(k.kind) && f.name.test(k.name) && (f.namespace === undefined || f.namespace.test(k.namespace));
}

/** One requirement of a label selector. */
export type Requirement = { op: 'exists' | 'absent'; key: string } | { op: 'in' | 'notin'; key: string; values: string[] };

export type Selector = Requirement[];

/**
 * Parses a label selector as kubectl's `-l` takes it: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`,
 * joined by commas.
 */
export function parseSelector(text: string): Selector {
  const out: Selector = [];
  const bad = (why: string) => new InputError(`-l ${JSON.stringify(text)}: ${why}`);
  // Split on commas outside parentheses.
  const terms: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(cur);
      cur = '';
    } else cur += ch;
  }
  terms.push(cur);
  for (const raw of terms) {
    const t = raw.trim();
    if (t === '') throw bad('an empty requirement');
    let m: RegExpExecArray | null;
    if ((m = /^([^\s!=(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(t))) {
      const values = (m[3] as string)
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      out.push({ op: m[2] as 'in' | 'notin', key: m[1] as string, values });
    } else if ((m = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(t))) {
      out.push({ op: m[2] === '!=' ? 'notin' : 'in', key: m[1] as string, values: [m[3] as string] });
    } else if ((m = /^!\s*([^\s!=(),]+)$/.exec(t))) {
      out.push({ op: 'absent', key: m[1] as string });
    } else if ((m = /^([^\s!=(),]+)$/.exec(t))) {
      out.push({ op: 'exists', key: m[1] as string });
    } else throw bad(`cannot read ${JSON.stringify(t)}`);
  }
  return out;
}

export function selectorMatches(sel: Selector, labels: Readonly<Record<string, string>>): boolean {
  return sel.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case 'absent':
        return !has;
      case 'in':
        return has && r.values.includes(labels[r.key] as string);
      case 'notin':
        return !has || !r.values.includes(labels[r.key] as string);
    }
  });
}
