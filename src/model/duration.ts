// Parses kubectl-style durations (`0`, `30s`, `1m30s`, `500ms`, `2h`) into milliseconds.
import { InputError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds for a duration; a bare number means seconds (as kubectl's --request-timeout). */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    consumed = re.lastIndex;
  }
  if (t === '' || consumed !== t.length) {
    throw new InputError(`invalid duration for ${flag}: "${text}" (use e.g. 30s, 1m, 1m30s)`);
  }
  return Math.round(total);
}
