// ignoreDifferences as Argo CD applies them: which rules match an object, and which paths each rule removes from a side.
import type { IgnoreDifference } from '../app/types.js';
import type { JsonObject, JsonValue, KubeObject, ResourceKey } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { managedEntries, type ManagedEntry } from '../ownership/index.js';
import type { FieldPath } from '../ownership/path.js';
import type { Segment } from './compare.js';
import { parsePointer, resolvePointer } from './pointer.js';
import type { JqRunner } from './jq.js';

/** Which rule ignored a field: its index in ignoreDifferences, the kind of entry and the entry itself. */
export interface IgnoreRuleRef {
  index: number;
  type: 'jsonPointers' | 'jqPathExpressions' | 'managedFieldsManagers';
  value: string;
  /** A rule from argocd-cm: its key (the index then counts the Application's rules first). */
  source?: string;
}

/** One ignored path on one side, with the rule entry that named it. */
export interface IgnoredPath {
  segments: Segment[];
  rule: IgnoreRuleRef;
}

/** Go-style glob (as Argo CD's glob.Match): `*` any run, `?` one character, `[...]` classes, `{a,b}` alternatives. */
export function globMatch(pattern: string, text: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        re += '[' + pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']';
        i = end;
      }
    } else if (c === '{') {
      const end = pattern.indexOf('}', i + 1);
      if (end < 0) re += '\\{';
      else {
        re += '(?:' + pattern.slice(i + 1, end).split(',').map(escapeRe).join('|') + ')';
        i = end;
      }
    } else re += escapeRe(c);
  }
  try {
    return new RegExp(`^${re}$`, 's').test(text);
  } catch {
    return pattern === text;
  }
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Whether a rule applies to an object: group and kind by glob (empty group is core), name and namespace exact or empty. */
export function ruleMatches(rule: IgnoreDifference, key: ResourceKey): boolean {
  if (!globMatch(rule.group ?? '', key.group)) return false;
  if (!globMatch(rule.kind ?? '', key.kind)) return false;
  if (rule.name && rule.name !== key.name) return false;
  if (rule.namespace && rule.namespace !== key.namespace) return false;
  return true;
}

/** Segments of a managedFields path inside `obj` (list keys matched on the key fields the element has), or undefined. */
export function segmentsOfFieldPath(obj: JsonValue, path: FieldPath): Segment[] | undefined {
  const out: Segment[] = [];
  let cur: JsonValue | undefined = obj;
  for (const el of path) {
    if ('field' in el) {
      if (!isPlainObject(cur) || !(el.field in cur)) return undefined;
      out.push(el.field);
      cur = cur[el.field];
    } else {
      if (!Array.isArray(cur)) return undefined;
      let idx = -1;
      if ('index' in el) idx = el.index < cur.length ? el.index : -1;
      else if ('value' in el) idx = cur.findIndex((v) => JSON.stringify(v) === JSON.stringify(el.value));
      else {
        const names = Object.keys(el.key);
        idx = cur.findIndex(
          (v) =>
            isPlainObject(v) &&
            names.some((n) => v[n] !== undefined) &&
            names.every((n) => v[n] === undefined || JSON.stringify(v[n]) === JSON.stringify(el.key[n])),
        );
      }
      if (idx < 0) return undefined;
      out.push(idx);
      cur = cur[idx];
    }
  }
  return out;
}

/** What the matching rules remove from each side (Argo CD removes from both desired and live). */
export interface IgnorePlan {
  desired: IgnoredPath[];
  live: IgnoredPath[];
  /** Problems running a rule (jq errors, timeouts): reported, the rule then ignores nothing. */
  warnings: string[];
}

/**
 * The paths the rules matching `key` ignore on each side. `live` supplies the managedFields for
 * managedFieldsManagers rules; `jq` is needed only when a matching rule has jq expressions.
 */
export async function planIgnores(
  rules: readonly IgnoreDifference[],
  key: ResourceKey,
  desired: JsonObject,
  live: JsonObject,
  liveObject: KubeObject,
  jq: () => Promise<JqRunner>,
  opts: { hideValues?: boolean } = {},
): Promise<IgnorePlan> {
  const plan: IgnorePlan = { desired: [], live: [], warnings: [] };
  let entries: ManagedEntry[] | undefined;
  for (const [index, rule] of rules.entries()) {
    if (!ruleMatches(rule, key)) continue;
    for (const p of rule.jsonPointers ?? []) {
      const ref: IgnoreRuleRef = { index, type: 'jsonPointers', ...(rule.source ? { source: rule.source } : {}), value: p };
      let tokens: string[];
      try {
        tokens = parsePointer(p);
      } catch (err) {
        plan.warnings.push(`ignoreDifferences[${index}]: ${(err as Error).message}`);
        continue;
      }
      const d = resolvePointer(desired, tokens);
      const l = resolvePointer(live, tokens);
      if (d) plan.desired.push({ segments: d, rule: ref });
      if (l) plan.live.push({ segments: l, rule: ref });
    }
    for (const expr of rule.jqPathExpressions ?? []) {
      const ref: IgnoreRuleRef = { index, type: 'jqPathExpressions', ...(rule.source ? { source: rule.source } : {}), value: expr };
      const runner = await jq();
      for (const [side, obj] of [['desired', desired], ['live', live]] as const) {
        try {
          for (const segments of await runner.paths(obj, expr)) plan[side].push({ segments, rule: ref });
        } catch (err) {
          // jq quotes values in its errors: for a Secret that could be a secret value.
          const why = opts.hideValues ? 'jq failed (details hidden: the object is a Secret)' : (err as Error).message;
          plan.warnings.push(`ignoreDifferences[${index}] jq ${JSON.stringify(expr)} on ${side}: ${why}`);
        }
      }
    }
    for (const manager of rule.managedFieldsManagers ?? []) {
      const ref: IgnoreRuleRef = { index, type: 'managedFieldsManagers', ...(rule.source ? { source: rule.source } : {}), value: manager };
      entries ??= managedEntries(liveObject);
      for (const e of entries) {
        if (e.owner.manager !== manager) continue;
        for (const fp of e.fields.paths()) {
          // A `.` on an inner node owns the node's existence, not everything below it: only leaves are ignored.
          if (e.fields.hasBelow(fp)) continue;
          const d = segmentsOfFieldPath(desired, fp);
          const l = segmentsOfFieldPath(live, fp);
          if (d) plan.desired.push({ segments: d, rule: ref });
          if (l) plan.live.push({ segments: l, rule: ref });
        }
      }
    }
  }
  return plan;
}

/** Renders a rule reference for people: `ignoreDifferences[0].jsonPointers /spec/replicas`. */
export function describeRule(r: IgnoreRuleRef): string {
  return r.source ? `${r.source}: ${r.type} ${r.value}` : `ignoreDifferences[${r.index}].${r.type} ${r.value}`;
}
