// The -v log of API requests, as kubectl's levels: 6 one line per request (method, URL, status, time),
// 7 its headers too, 8 the bodies cut at 1 KiB, 9 whole. Credentials are masked, and a Secret's
// values never appear: its data, stringData and annotations (the last-applied copy holds its data;
// argocd-cm's resource.sensitive.mask.annotations may name any other, and the log prints before or
// without reading argocd-cm: every value but Argo CD's own argocd.argoproj.io/ ones) are replaced by
// `++++++++` (in objects of kind Secret, and in every object read from or sent to a secrets path,
// whose list items carry no kind), and any string a Secret in the request body holds is scrubbed from
// the answer.
import { isPlainObject, type KubeObject } from '../model/object.js';
import { ARGOCD_ANNOTATION_PREFIX, hideTypedValues, secretStrings } from './errors.js';

const MASK = '++++++++';
const BODY_CUT = 1024;

/** One request as the log shows it. */
export interface LoggedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  body?: string;
  status?: number;
  responseBody?: string;
  error?: string;
  ms: number;
}

/** Header values fit to print: credentials masked (the scheme stays). */
export function maskHeaders(h: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) {
    out[k] = /^(authorization|proxy-authorization|cookie)$/i.test(k)
      ? String(v).replace(/^(\w+\s+)?.*$/s, (_m, scheme: string | undefined) => `${scheme ?? ''}<masked>`)
      : v;
  }
  return out;
}

function isSecretsPath(url: string): boolean {
  return /\/secrets(\/|\?|$)/.test(new URL(url, 'http://x').pathname + '?');
}

/** A copy of a decoded body with every Secret value masked (see the module comment). */
export function redactSecrets(value: unknown, secretsPath: boolean): unknown {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isPlainObject(v)) return v;
    const secret = v.kind === 'Secret' || (secretsPath && (isPlainObject(v.data) || isPlainObject(v.stringData) || isPlainObject(v.metadata)));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // Whatever shape they have (a wrong one, a list, is what the server rejects and may quote): masked.
      if (secret && (k === 'data' || k === 'stringData')) out[k] = isPlainObject(x) ? Object.fromEntries(Object.keys(x).map((key) => [key, MASK])) : MASK;
      else if (secret && k === 'metadata' && isPlainObject(x) && isPlainObject(x.annotations)) {
        const annotations = Object.fromEntries(Object.entries(x.annotations).map(([a, value]) => [a, a.startsWith(ARGOCD_ANNOTATION_PREFIX) ? value : MASK]));
        out[k] = { ...(walk(x) as object), annotations };
      } else out[k] = walk(x);
    }
    return out;
  };
  return walk(value);
}

/** A body fit to print: JSON with Secrets masked, cut at 1 KiB below level 9; a secrets body that is not JSON is not shown. */
export function printableBody(text: string, url: string, level: number, scrub: readonly string[] = []): string {
  const secretsPath = isSecretsPath(url);
  let shown: string;
  try {
    shown = JSON.stringify(redactSecrets(JSON.parse(text), secretsPath));
  } catch {
    if (secretsPath) return `<${text.length} bytes, not shown: not JSON, on a secrets path>`;
    shown = text;
  }
  for (const s of scrub) shown = shown.split(s).join(MASK);
  // A Status answering a Secret's write may quote a value it could not type (a number, a short string).
  if (secretsPath) shown = hideTypedValues(shown, true);
  return level >= 9 || shown.length <= BODY_CUT ? shown : `${shown.slice(0, BODY_CUT)}… (${shown.length} bytes in all; -v 9 shows all)`;
}

/** The strings a request body's Secret holds (scrubbed from the answer, which may quote them). */
function requestSecrets(body: string | undefined): string[] {
  if (body === undefined) return [];
  try {
    const v: unknown = JSON.parse(body);
    return isPlainObject(v) ? secretStrings(v as unknown as KubeObject) : [];
  } catch {
    return [];
  }
}

/** The log lines of one request at `level` (6 and up), each ending in a newline. */
export function formatRequest(r: LoggedRequest, level: number): string {
  const lines = [`${r.method} ${r.url} ${r.status !== undefined ? r.status : `failed: ${r.error ?? 'no answer'}`} in ${r.ms} ms`];
  if (level >= 7) {
    for (const [k, v] of Object.entries(maskHeaders(r.headers))) lines.push(`  request header ${k}: ${Array.isArray(v) ? v.join(', ') : v}`);
  }
  if (level >= 8) {
    const scrub = requestSecrets(r.body);
    if (r.body !== undefined) lines.push(`  request body: ${printableBody(r.body, r.url, level)}`);
    if (r.responseBody !== undefined) lines.push(`  response body: ${printableBody(r.responseBody, r.url, level, scrub)}`);
  }
  return lines.map((l) => `I ${l}\n`).join('');
}
