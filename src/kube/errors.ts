// API failures as data: the HTTP status, the Kubernetes Status reason, and SSA conflicts per field.
import { ClusterError } from '../model/errors.js';
import type { KubeObject } from '../model/object.js';

/** One field another manager owns that an apply would change (from a 409's `status.details.causes[]`). */
export interface FieldConflict {
  manager: string;
  /** Set when the other manager wrote through a subresource (e.g. `scale`). */
  subresource?: string;
  /** The field as the API server prints it: `.spec.template.spec.containers[name="app"].image`. */
  field: string;
  message: string;
}

/** One invalid field from a 422's causes. */
export interface FieldCause {
  field?: string;
  reason?: string;
  message: string;
}

/** A failed API call: HTTP status (0 when no response), Status reason, and what was being done. */
export class KubeApiError extends ClusterError {
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string | undefined,
    readonly causes: FieldCause[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A server-side apply refused because other managers own fields it would change. */
export class ApplyConflictError extends KubeApiError {
  constructor(
    message: string,
    readonly conflicts: FieldConflict[],
    options?: { cause?: unknown },
  ) {
    super(message, 409, 'Conflict', [], options);
  }
}

interface StatusBody {
  kind?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { causes?: { reason?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
}

/** Reads a Kubernetes Status object out of a response body, if it is one. */
function parseStatus(body: string): StatusBody | undefined {
  try {
    const v: unknown = JSON.parse(body);
    if (typeof v === 'object' && v !== null && (v as StatusBody).kind === 'Status') return v as StatusBody;
  } catch {
    // not JSON: the caller uses the raw text
  }
  return undefined;
}

/** The conflicts of an SSA 409, one per field; empty when the 409 is not a field-manager conflict. */
function parseConflicts(status: StatusBody | undefined): FieldConflict[] {
  const out: FieldConflict[] = [];
  for (const c of status?.details?.causes ?? []) {
    if (c.reason !== 'FieldManagerConflict') continue;
    const message = c.message ?? '';
    const manager = /conflict with "([^"]*)"/.exec(message)?.[1] ?? '';
    const sub = /with subresource "([^"]*)"/.exec(message)?.[1];
    out.push({ manager, field: c.field ?? '', message, ...(sub ? { subresource: sub } : {}) });
  }
  return out;
}

/**
 * The API server's text when its authorizer (RBAC, or any other) refused a request: `User "u" cannot get resource
 * "pods" in API group "" in the namespace "shop"`, or `… cannot get path "/x"` (k8s.io/apiserver's forbiddenMessage).
 * Every other 403 (an exceeded quota, PodSecurity, a webhook's denial) comes from admission and says something else.
 */
const RBAC_DENIAL = /\bUser "(?:[^"\\]|\\.)*" cannot \S+ (?:resource|path) "/;

/** Whether the error is the authorizer's refusal (a 403 whose Status says `User "…" cannot <verb> resource …`). */
export function isRbacDenial(err: unknown): err is KubeApiError {
  return err instanceof KubeApiError && err.status === 403 && err.cause instanceof Error && RBAC_DENIAL.test(err.cause.message);
}

/** Builds the error for a non-2xx response; `doing` is the "-ing" context, e.g. `applying Deployment shop/orders`. */
export function apiError(doing: string, httpStatus: number, body: string, extra?: { verb: string; resource: string; namespace?: string }): KubeApiError {
  const status = parseStatus(body);
  const serverMsg = (status?.message ?? body.trim().split('\n')[0] ?? '').slice(0, 500);
  const cause = new Error(`HTTP ${httpStatus}${status?.reason ? ` ${status.reason}` : ''}: ${serverMsg}`);
  if (httpStatus === 409) {
    const conflicts = parseConflicts(status);
    if (conflicts.length > 0) {
      const fields = conflicts.map((c) => `${c.field} (${c.manager})`).join(', ');
      return new ApplyConflictError(`${doing}: conflict with other field managers: ${fields}`, conflicts, { cause });
    }
  }
  const causes: FieldCause[] = (status?.details?.causes ?? []).map((c) => ({ field: c.field, reason: c.reason, message: c.message ?? '' }));
  let msg: string;
  switch (httpStatus) {
    case 401:
      msg = `${doing}: unauthorized (401): the credentials in the kubeconfig were rejected`;
      break;
    case 403: {
      // Only the authorizer's refusal is a missing permission; a quota, an admission plugin (PodSecurity, a missing
      // ServiceAccount, a namespace being terminated) or a webhook answers 403 too, and its own text says why.
      const where = extra?.namespace ? ` in namespace "${extra.namespace}"` : extra ? ' at cluster scope' : '';
      msg =
        extra && RBAC_DENIAL.test(serverMsg)
          ? `${doing}: forbidden (403): cannot ${extra.verb} ${extra.resource}${where}`
          : `${doing}: forbidden (403): ${serverMsg || 'forbidden'}`;
      break;
    }
    case 404:
      msg = `${doing}: not found (404): ${serverMsg}`;
      break;
    case 422: {
      const fields = causes.filter((c) => c.field).map((c) => `${c.field}: ${c.message}`);
      msg = `${doing}: invalid (422): ${fields.length > 0 ? fields.join('; ') : serverMsg}`;
      break;
    }
    case 429:
      msg = `${doing}: too many requests (429) after retries: ${serverMsg}`;
      break;
    default:
      msg = `${doing}: ${status?.reason ?? 'HTTP error'} (${httpStatus}): ${serverMsg}`;
  }
  return new KubeApiError(msg, httpStatus, status?.reason, causes, { cause });
}

/** Argo CD's own annotations (the tracking id, sync options, hooks): never a Secret's value, so shown; every other is not. */
export const ARGOCD_ANNOTATION_PREFIX = 'argocd.argoproj.io/';

/**
 * Every string a Secret's data/stringData holds, in the forms a server message could quote (raw, escaped, base64, decoded),
 * and the value of each of its annotations but Argo CD's own: argocd-cm's resource.sensitive.mask.annotations may name
 * any of them, and the gateway that sees the error has not read argocd-cm (the -v log's rule, request-log.ts).
 */
export function secretStrings(obj: KubeObject): string[] {
  if (obj.kind !== 'Secret' || obj.apiVersion !== 'v1') return [];
  const out = new Set<string>();
  const walk = (v: unknown, field: 'data' | 'stringData') => {
    if (typeof v === 'number' && Number.isFinite(v)) walk(String(v), field === 'data' ? 'stringData' : field);
    else if (typeof v === 'string') {
      if (v.length < 4) return;
      out.add(v);
      // As a Go %q or a JSON string quotes it (a newline or a quote escaped).
      const quoted = JSON.stringify(v).slice(1, -1);
      if (quoted !== v) out.add(quoted);
      if (field === 'data') out.add(Buffer.from(v, 'base64').toString('utf8'));
      else out.add(Buffer.from(v, 'utf8').toString('base64'));
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, field));
    else if (v && typeof v === 'object') Object.values(v).forEach((x) => walk(x, field));
  };
  walk(obj.data, 'data');
  walk(obj.stringData, 'stringData');
  const annotations = (obj.metadata as { annotations?: unknown } | undefined)?.annotations;
  // Whatever shape a value has (a number or a list is what the server rejects and may quote): its strings. A value that
  // is the Secret's own name or namespace (printed in every message about it) is no secret, and masking it would garble them.
  const own = new Set([obj.metadata?.name, obj.metadata?.namespace]);
  if (annotations && typeof annotations === 'object' && !Array.isArray(annotations))
    for (const [key, value] of Object.entries(annotations))
      if (!key.startsWith(ARGOCD_ANNOTATION_PREFIX) && !(typeof value === 'string' && own.has(value))) walk(value, 'stringData');
  return [...out].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
}

/**
 * What a typed-patch error says of a value it could not type, after the type it expected (`.stringData.pin: expected
 * string, got &value.valueUnstructured{Value:987654321}`): the value's text, to the end of the line.
 */
const TYPED_VALUE = /(expected [^,\n]*, got ).*/g;
/** The same inside JSON text (a logged Status body): to the end of the JSON string, whose own quotes are escaped. */
const TYPED_VALUE_IN_JSON = /(expected [^,\n"]*, got )(?:[^"\\\n]|\\.)*/g;

/** Text with what the API server quotes of a value it could not type hidden (see TYPED_VALUE); `json`: the text is JSON. */
export function hideTypedValues(text: string, json = false): string {
  return text.replace(json ? TYPED_VALUE_IN_JSON : TYPED_VALUE, '$1++++++++');
}

/**
 * The error of a write of `obj`: for a Secret, redactError of its secret strings, and whatever a typed-patch error
 * quotes of a value (a short string or a number is no secret string, and is still the Secret's value); any other
 * object's error as it is.
 */
export function redactSecretError(err: KubeApiError, obj: KubeObject): KubeApiError {
  if (obj.kind !== 'Secret' || obj.apiVersion !== 'v1') return err;
  return redactError(err, secretStrings(obj), hideTypedValues);
}

/** The same error with every secret string replaced by `++++++++` (and `also` applied), in its message and its cause's. */
export function redactError(err: KubeApiError, secrets: readonly string[], also?: (text: string) => string): KubeApiError {
  if (secrets.length === 0 && also === undefined) return err;
  const scrubStrings = (s: string) => secrets.reduce((acc, x) => acc.split(x).join('++++++++'), s);
  const scrub = also ? (s: string) => also(scrubStrings(s)) : scrubStrings;
  const cause = err.cause instanceof Error ? new Error(scrub(err.cause.message)) : undefined;
  const causes = err.causes.map((c) => ({ ...c, message: scrub(c.message) }));
  if (err instanceof ApplyConflictError) return new ApplyConflictError(scrub(err.message), err.conflicts, cause ? { cause } : undefined);
  return new KubeApiError(scrub(err.message), err.status, err.reason, causes, cause ? { cause } : undefined);
}

/**
 * Whether an answer is worth sending a safe request again for: 429 and 5xx (not 501), with one exception. A 500 that
 * the API server itself wrote (a Kubernetes Status body) without Retry-After is its verdict on this request (a patch
 * it cannot type, a webhook that failed): client-go, and so kubectl and Argo CD, retry a 5xx only when the answer
 * carries Retry-After, so that one is returned at once instead of after ~3 s of back-off. 502, 503 and 504 (a proxy,
 * a load balancer, a server starting or stopping) keep the back-off with or without the header.
 */
export function isRetryableAnswer(status: number, retryAfter: string | undefined, body: string): boolean {
  if (status === 500 && !retryAfter && /"kind"\s*:\s*"Status"/.test(body.slice(0, 200))) return false;
  return status === 429 || (status >= 500 && status !== 501);
}

/** Delay in ms a response asks for (Retry-After seconds or an HTTP date), capped; undefined if none. */
export function retryAfterMs(header: string | undefined, nowMs: number, capMs = 10_000): number | undefined {
  if (!header) return undefined;
  const secs = Number(header);
  if (Number.isFinite(secs)) return Math.min(Math.max(0, secs * 1000), capMs);
  const at = Date.parse(header);
  if (Number.isFinite(at)) return Math.min(Math.max(0, at - nowMs), capMs);
  return undefined;
}
