// A RollingSync strategy (progressive syncs) as Argo CD's ApplicationSet controller reads it
// (applicationset/controllers/applicationset_controller.go: buildAppDependencyList, labelMatchedExpression, the
// maxUpdate of updateApplicationSetApplicationStatusProgress): the generated Applications grouped into steps by their
// labels, each step in batches of at most maxUpdate. Pure: `appset sync --recursive` carries the plan out.

/** One `matchExpressions` entry of a step. */
export interface MatchExpression {
  key: string;
  operator: string;
  values: string[];
}

export interface RollingStep {
  matchExpressions: MatchExpression[];
  /** An integer or a percentage string; absent: every Application of the step at once (100%). */
  maxUpdate?: number | string;
}

export interface RollingSyncStrategy {
  steps: RollingStep[];
  /** rollingSync.defaultPrune: prune when an Application's own automated.prune does not say. */
  defaultPrune: boolean;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The ApplicationSet's RollingSync strategy; undefined for AllAtOnce (or none); an error for a malformed one. */
export function rollingSyncStrategy(raw: unknown): RollingSyncStrategy | undefined | { error: string } {
  const spec = isObject(raw) && isObject(raw.spec) ? raw.spec : {};
  const strategy = isObject(spec.strategy) ? spec.strategy : undefined;
  if (strategy?.type !== 'RollingSync') return undefined;
  const rolling = isObject(strategy.rollingSync) ? strategy.rollingSync : {};
  const steps: RollingStep[] = [];
  const given = rolling.steps ?? [];
  if (!Array.isArray(given)) return { error: 'spec.strategy.rollingSync.steps must be a list' };
  for (const [i, s] of given.entries()) {
    if (!isObject(s)) return { error: `spec.strategy.rollingSync.steps[${i}] must be an object` };
    const exprs = s.matchExpressions ?? [];
    if (!Array.isArray(exprs)) return { error: `spec.strategy.rollingSync.steps[${i}].matchExpressions must be a list` };
    const matchExpressions = exprs.filter(isObject).map((e) => ({
      key: typeof e.key === 'string' ? e.key : '',
      operator: typeof e.operator === 'string' ? e.operator : '',
      values: Array.isArray(e.values) ? e.values.filter((v): v is string => typeof v === 'string') : [],
    }));
    const m = s.maxUpdate;
    if (m !== undefined && typeof m !== 'number' && !(typeof m === 'string' && /^\d+%?$/.test(m)))
      return { error: `spec.strategy.rollingSync.steps[${i}].maxUpdate must be an integer or a percentage (got ${JSON.stringify(m)})` };
    steps.push({ matchExpressions, ...(m !== undefined ? { maxUpdate: typeof m === 'string' && !m.endsWith('%') ? Number(m) : m } : {}) });
  }
  return { steps, defaultPrune: rolling.defaultPrune === true };
}

/**
 * Whether an Application's label value passes one expression, as labelMatchedExpression: `In` when the value is one
 * of the values, `NotIn` when it is none of them; any other operator never matches.
 */
function valueMatches(value: string, e: MatchExpression): boolean {
  if (e.operator !== 'In' && e.operator !== 'NotIn') return false;
  return e.values.includes(value) ? e.operator === 'In' : e.operator === 'NotIn';
}

/** Whether a step selects an Application by its labels: every expression holds; a missing key fails `In` only. */
export function stepSelects(labels: Readonly<Record<string, string>>, step: RollingStep): boolean {
  return step.matchExpressions.every((e) => (Object.hasOwn(labels, e.key) ? valueMatches(labels[e.key]!, e) : e.operator !== 'In'));
}

/**
 * How many Applications of a step of `total` may be syncing at once: an integer as given, a percentage of the step
 * rounded down but at least 1 when above 0%; absent, all of them.
 */
export function maxUpdateOf(maxUpdate: number | string | undefined, total: number): number {
  if (maxUpdate === undefined) return total;
  if (typeof maxUpdate === 'number') return Math.max(0, Math.floor(maxUpdate));
  const percent = Number(maxUpdate.slice(0, -1));
  const scaled = Math.floor((percent * total) / 100);
  return percent > 0 && scaled < 1 ? 1 : scaled;
}

export interface RollingPlan {
  /** Per step (1-based `step`), its Applications in batches: each batch synced, then waited for, before the next. */
  steps: { step: number; maxUpdate: number; apps: string[]; batches: string[][] }[];
  /** Selected by no step: the strategy leaves them to be synced by hand. */
  excluded: string[];
  warnings: string[];
}

/** Groups the Applications (in generation order) into the strategy's steps and batches. */
export function planRollingSync(apps: readonly { name: string; labels: Readonly<Record<string, string>> }[], strategy: RollingSyncStrategy): RollingPlan {
  const byStep: string[][] = strategy.steps.map(() => []);
  const excluded: string[] = [];
  const warnings: string[] = [];
  for (const app of apps) {
    const steps = strategy.steps.flatMap((s, i) => (stepSelects(app.labels, s) ? [i] : []));
    if (steps.length === 0) {
      excluded.push(app.name);
      continue;
    }
    // As the controller: the first step that selects it is its step; being selected again is said.
    if (steps.length > 1)
      warnings.push(`Application ${app.name} is selected by steps ${steps.map((i) => i + 1).join(' and ')}: it is synced in step ${steps[0]! + 1}`);
    byStep[steps[0]!]!.push(app.name);
  }
  return {
    steps: byStep.map((names, i) => {
      const max = maxUpdateOf(strategy.steps[i]!.maxUpdate, names.length);
      const batches: string[][] = [];
      if (max > 0) for (let at = 0; at < names.length; at += max) batches.push(names.slice(at, at + max));
      return { step: i + 1, maxUpdate: max, apps: names, batches };
    }),
    excluded,
    warnings,
  };
}
