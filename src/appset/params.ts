// Parameter helpers shared by the generators, as Argo CD's ApplicationSet code has them: flattening to dotted names
// (github.com/jeremywohl/flatten, DotStyle, then fmt's %v), label selectors over the flattened parameters
// (generator_spec_processor.go Transform), and SanitizeName (utils/template_functions.go, the `normalize` function).
import type { Params } from './template.js';

/** Go's `fmt.Sprintf("%v", x)` for a JSON value that is not a map or a list. */
export function goString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return goFloat(v);
  return String(v);
}

/** fmt's %v of a float64 (strconv 'g', shortest): the shortest digits, with an exponent when it is below -4 or from 6 on. */
function goFloat(f: number): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}

/** jeremywohl/flatten DotStyle: nested maps and lists become `a.b` and `a.0` names; an empty map or list vanishes. */
export function flatten(params: Params): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (v: unknown, prefix: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => assign(prefix === '' ? String(i) : `${prefix}.${i}`, x));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) assign(prefix === '' ? k : `${prefix}.${k}`, x);
  };
  const assign = (key: string, v: unknown): void => {
    if (v !== null && typeof v === 'object') walk(v, key);
    else out[key] = v;
  };
  walk(params, '');
  return out;
}

/** The flattened parameters as strings (generator_spec_processor.go flattenParameters), what a selector matches. */
export function flattenToStrings(params: Params): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(flatten(params))) out[k] = goString(v);
  return out;
}

/** A metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsQualifiedName, what a selector key must be (`prefix/name`, the name at most 63 characters). */
function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1] as string;
  if (parts.length === 2 && (parts[0] === '' || (parts[0] as string).length > 253 || !DNS_SUBDOMAIN.test(parts[0] as string))) return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

/**
 * Argo CD's own LabelSelectorAsSelector (applicationset/utils/selector.go): keys must be qualified names, values are
 * not checked, In/NotIn need values and Exists/DoesNotExist take none. A selector that breaks a rule throws.
 */
function checkSelector(selector: LabelSelector): void {
  const bad = (why: string) => new Error(`error parsing label selector: ${why}`);
  for (const k of Object.keys(selector.matchLabels ?? {})) if (!isQualifiedName(k)) throw bad(`key: Invalid value: ${JSON.stringify(k)}: not a qualified name`);
  for (const e of selector.matchExpressions ?? []) {
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e.operator)) throw bad(`${JSON.stringify(e.operator)} is not a valid pod selector operator`);
    if (!isQualifiedName(e.key)) throw bad(`key: Invalid value: ${JSON.stringify(e.key)}: not a qualified name`);
    const n = e.values?.length ?? 0;
    if ((e.operator === 'In' || e.operator === 'NotIn') && n === 0) throw bad("values: for 'in', 'notin' operators, values set can't be empty");
    if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && n !== 0) throw bad('values: values set must be empty for exists and does not exist');
  }
}

/** Whether a label set matches a selector (Argo CD's LabelSelectorAsSelector, then Matches); a bad selector throws. */
export function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  checkSelector(selector);
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(labels[e.key] as string)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[e.key] as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        throw new Error(`error parsing label selector: ${JSON.stringify(e.operator)} is not a valid pod selector operator`);
    }
  }
  return true;
}

/** Argo CD's SanitizeName: lower case, anything but [-a-z0-9.] becomes '-', at most 253 bytes, '-' and '.' trimmed. */
export function sanitizeName(name: string): string {
  let s = name.toLowerCase().replace(/[^-a-z0-9.]/gu, '-');
  if (s.length > 253) s = s.slice(0, 253);
  return s.replace(/^[-.]+|[-.]+$/g, '');
}
