// Who may talk to the dashboard: the per-run token (query `token=` or `Authorization: Bearer`) and a Host header naming
// this server by an IP literal or localhost (a DNS-rebinding page names its own domain). Pure.
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Whether the address is a loopback one (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  return a === 'localhost' || a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/** The token the request carries, from `?token=` or an `Authorization: Bearer` header. */
export function requestToken(url: URL, authorization: string | undefined): string | undefined {
  const q = url.searchParams.get('token');
  if (q !== null) return q;
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return m?.[1];
}

/** Constant-time comparison of the request's token with the run's. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a Host header names this server: its port, and as host an IP literal, `localhost`, or the address it was
 * started on. Anything else (a domain that resolves to us: DNS rebinding) is refused.
 */
export function hostAllowed(host: string | undefined, port: number, address: string): boolean {
  if (host === undefined || host === '') return false;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  if (!m) return false;
  const name = m[1]!.toLowerCase();
  const p = m[2] === undefined ? 80 : Number(m[2]);
  if (p !== port) return false;
  const bare = name.replace(/^\[|\]$/g, '');
  return isIP(bare) !== 0 || name === 'localhost' || name === address.toLowerCase();
}
