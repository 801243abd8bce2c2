// Kubernetes resource quantities (`500m`, `1Gi`, `1e3`) parsed to exact values so they compare by value.
import { fieldName, type LocatedPath } from '../model/field-path.js';

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL_EXP: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([eE][+-]?\d+)|(n|u|m|k|M|G|T|P|E))?$/;

/** An exact rational value num / 10^scale. */
interface Exact {
  num: bigint;
  scale: number;
}

/** Parses a quantity string (or a JSON number) into an exact value; undefined when it is not a quantity. */
export function parseQuantity(v: unknown): Exact | undefined {
  const text = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : typeof v === 'string' ? v.trim() : '';
  // JS prints large/small numbers with an exponent (1e+21): QUANTITY accepts that form.
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, sign, digits, bin, exp, dec] = m;
  const [intPart = '', fracPart = ''] = digits!.split('.');
  let num = BigInt((intPart || '0') + fracPart);
  let scale = fracPart.length;
  if (bin) num *= BINARY[bin]!;
  const e = exp ? Number(exp.slice(1)) : dec !== undefined ? DECIMAL_EXP[dec]! : 0;
  if (Math.abs(e) > 1000) return undefined;
  if (e > 0) num *= 10n ** BigInt(e);
  else scale -= e;
  if (sign === '-') num = -num;
  return { num, scale };
}

/** Whether two quantities are equal by value (`1000m` and `1`, `1Gi` and `1024Mi`); false if either is not a quantity. */
export function quantitiesEqual(a: unknown, b: unknown): boolean {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (!x || !y) return false;
  const s = Math.max(x.scale, y.scale);
  return x.num * 10n ** BigInt(s - x.scale) === y.num * 10n ** BigInt(s - y.scale);
}

/** Map names whose values are resource quantities (resources.limits/requests, ResourceQuota, LimitRange, node capacity). */
const QUANTITY_MAPS = new Set([
  'limits',
  'requests',
  'hard',
  'used',
  'capacity',
  'allocatable',
  'max',
  'min',
  'default',
  'defaultRequest',
  'maxLimitRequestRatio',
]);
const QUANTITY_FIELDS = new Set(['sizeLimit', 'storage']);

/** Whether the value at this path (its last two steps) is a quantity by Kubernetes' schema conventions. */
export function isQuantityPath(at: LocatedPath): boolean {
  const last = fieldName(at[at.length - 1]);
  if (last === undefined) return false;
  if (QUANTITY_FIELDS.has(last)) return true;
  const parent = fieldName(at[at.length - 2]);
  return parent !== undefined && QUANTITY_MAPS.has(parent);
}
