// ignoreDifferences as Argo CD applies them: which rules match an object, and which paths each rule removes from a side.
import type { IgnoreDifference } from '../app/types.js';
import { globMatch } from '../model/glob.js';
import { stepsOf, locate, parsePointer, resolvePointer, type Step } from '../model/field-path.js';
import { isPlainObject, type JsonObject, type JsonValue, type KubeObject, type ResourceKey } from '../model/object.js';
import { managedEntries, type ManagedEntry } from '../ownership/index.js';

/** Which rule ignored a field: its index in ignoreDifferences, the kind of entry and the entry itself. */
export interface IgnoreRuleRef {
  index: number;
  type: 'jsonPointers' | 'jqPathExpressions' | 'managedFieldsManagers';
  value: string;
  /** A rule from argocd-cm: its key (the index then counts the Application's rules first). */
  source?: string;
}

/**
 * What jqPathExpressions rules need of jq: the paths an expression selects (jq's `path()`). The workflows hand the
 * core a real jq (src/jq/: a worker thread); the core itself runs none.
 */
export interface JqPaths {
  paths(input: JsonValue, expr: string): Promise<(string | number)[][]>;
}

/** One ignored path on one side, with the rule entry that named it. */
export interface IgnoredPath {
  at: Step[];
  rule: IgnoreRuleRef;
}

/** Whether a rule applies to an object: group and kind by Argo CD's glob.Match (empty group is core), name and namespace exact or empty. */
export function ruleMatches(rule: IgnoreDifference, key: ResourceKey): boolean {
  if (!globMatch(rule.group ?? '', key.group)) return false;
  if (!globMatch(rule.kind ?? '', key.kind)) return false;
  if (rule.name && rule.name !== key.name) return false;
  if (rule.namespace && rule.namespace !== key.namespace) return false;
  return true;
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
  jq: (() => Promise<JqPaths>) | undefined,
  opts: { hideValues?: boolean; jqInput?: () => { desired: JsonObject; live: JsonObject } } = {},
): Promise<IgnorePlan> {
  const plan: IgnorePlan = { desired: [], live: [], warnings: [] };
  let entries: ManagedEntry[] | undefined;
  let jqInput: { desired: JsonObject; live: JsonObject } | undefined;
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
      if (d) plan.desired.push({ at: d, rule: ref });
      if (l) plan.live.push({ at: l, rule: ref });
    }
    for (const expr of rule.jqPathExpressions ?? []) {
      const ref: IgnoreRuleRef = { index, type: 'jqPathExpressions', ...(rule.source ? { source: rule.source } : {}), value: expr };
      if (!jq) {
        plan.warnings.push(`ignoreDifferences[${index}] jq ${JSON.stringify(expr)}: no jq was given to this comparison, the expression ignores nothing`);
        continue;
      }
      const runner = await jq();
      // Built once per object, and only when a jq expression runs.
      jqInput ??= opts.jqInput?.();
      for (const [side, obj] of [
        ['desired', desired],
        ['live', live],
      ] as const) {
        try {
          // jq runs on the whole object (apiVersion, kind, name and namespace included), as Argo CD's ignoreNormalizer
          // runs it, so `select(.metadata.name == "web")` selects; a path is kept only where the compared object has
          // something (a path jq makes up, `.data[.data.password]`, would carry a value as its name).
          for (const p of await runner.paths(jqInput?.[side] ?? obj, expr)) if (hasPath(obj, p)) plan[side].push({ at: stepsOf(p), rule: ref });
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
          const d = locate(desired, fp);
          const l = locate(live, fp);
          if (d) plan.desired.push({ at: d, rule: ref });
          if (l) plan.live.push({ at: l, rule: ref });
        }
      }
    }
  }
  return plan;
}

/** Whether `path` (jq's, keys and indexes) leads to a value in `obj`. */
function hasPath(obj: JsonValue, path: readonly (string | number)[]): boolean {
  let at: JsonValue | undefined = obj;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(at) || step < 0 || step >= at.length) return false;
      at = at[step];
    } else {
      if (!isPlainObject(at) || !Object.hasOwn(at, step)) return false;
      at = at[step];
    }
  }
  return true;
}

/** Renders a rule reference for people: `ignoreDifferences[0].jsonPointers /spec/replicas`. */
export function describeRule(r: IgnoreRuleRef): string {
  return r.source ? `${r.source}: ${r.type} ${r.value}` : `ignoreDifferences[${r.index}].${r.type} ${r.value}`;
}
