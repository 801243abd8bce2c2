// What a Lua health check is to the health code: the evaluator it is handed (the engine itself does I/O and lives
// above the core, in src/lua/; the workflow that computes health loads it, and only when a check applies) and how
// Argo CD reads the value a check returned (ExecuteHealthLua).
import type { KubeObject } from '../model/object.js';
import { isHealthCode, type HealthStatus } from './types.js';

/**
 * One run of a check: the returned value's Lua type and, for a table with string keys, its status and message fields
 * and whether it has any key at all; or why it did not finish.
 */
export type LuaCheckResult = { error: string } | { type: string; status?: unknown; message?: unknown; hasKeys?: boolean };

/** Runs one check with the global `obj` in Argo CD's environment (the open libraries only when asked for). */
export interface LuaEvaluator {
  run(script: string, obj: KubeObject, openLibs: boolean): Promise<LuaCheckResult>;
}

/** gopher-lua's type names, as Argo CD's "expect table output from Lua script, not %s" prints them. */
const LUA_TYPE: Record<string, string> = { number: 'number', boolean: 'boolean', string: 'string', function: 'function' };

/**
 * ExecuteHealthLua's reading of the returned value (v3.2.11's util/lua/lua.go): a table goes through JSON into
 * {status, message}; a check that failed is Unknown with the error. Nil, an empty table, a list, or a field of another
 * type than string (json.Unmarshal's type error) is Argo CD's empty health (no status): here, no health, so the
 * resource does not count. Any other table whose status is not a health code is Unknown.
 */
export function healthOfLuaResult(r: LuaCheckResult): HealthStatus | undefined {
  if ('error' in r) return { status: 'Unknown', message: r.error.replace(/^Error: /, '') };
  if (r.type === 'nil') return undefined;
  if (r.type !== 'table') return { status: 'Unknown', message: `expect table output from Lua script, not ${LUA_TYPE[r.type] ?? r.type}` };
  const wrongType = (v: unknown) => v !== undefined && typeof v !== 'string';
  if (wrongType(r.status) || wrongType(r.message)) return undefined;
  if (r.status === undefined && r.message === undefined && !r.hasKeys) return undefined;
  if (!isHealthCode(r.status)) return { status: 'Unknown', message: 'Lua returned an invalid health status' };
  return { status: r.status, message: typeof r.message === 'string' ? r.message : '' };
}
