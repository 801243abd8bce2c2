// The app's own health checks (argocd-cm's resource.customizations.health and the --lua-dir library), run on live
// objects before the built-in checks read them: what status shows and what a sync's waves wait for, the same way.
import type { KubeObject } from '../../model/object.js';
import type { Rules } from '../session/rules.js';

/**
 * Runs the applicable Lua check of each object (health/custom.ts keeps the result for resourceHealth), or undefined
 * when the rules have none: then neither the checks' code nor the Lua engine (src/lua/) is ever loaded.
 */
export function customHealthRunner(
  rules: Pick<Rules, 'settings' | 'healthLibrary'> | undefined,
): ((objects: readonly KubeObject[]) => Promise<number>) | undefined {
  if (!rules || (rules.settings.health.size === 0 && (rules.healthLibrary?.size ?? 0) === 0)) return undefined;
  let ready: Promise<(objects: readonly KubeObject[]) => Promise<number>> | undefined;
  return async (objects) => {
    ready ??= import('../../health/custom.js').then(({ computeCustomHealth, HealthScripts }) => {
      const scripts = new HealthScripts(rules.settings, rules.healthLibrary);
      // The Lua engine is loaded only when a check applies.
      const lua = () => import('../../lua/engine.js').then((m) => m.luaRunner());
      return (objs) => computeCustomHealth(objs, scripts, lua);
    });
    return (await ready)(objects);
  };
}
