// A set of field paths as a plain value, with union, intersection and difference (never mutated after construction).
import { elementString, pathKey, isPrefix, type FieldPath, type PathElement } from '../model/field-path.js';

export class FieldSet {
  private readonly byKey: ReadonlyMap<string, FieldPath>;
  /** Lazily built: for every proper prefix of a member, the distinct next elements below it. */
  private children?: Map<string, Map<string, PathElement>>;

  constructor(paths: Iterable<FieldPath> = []) {
    const m = new Map<string, FieldPath>();
    for (const p of paths) m.set(pathKey(p), p);
    this.byKey = m;
  }

  get size(): number {
    return this.byKey.size;
  }

  has(p: FieldPath): boolean {
    return this.byKey.has(pathKey(p));
  }

  /** The paths in a stable order (by their FieldsV1 spelling). */
  paths(): FieldPath[] {
    return [...this.byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
  }

  union(other: FieldSet): FieldSet {
    return new FieldSet([...this.byKey.values(), ...other.byKey.values()]);
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet([...this.byKey.values()].filter((p) => other.has(p)));
  }

  difference(other: FieldSet): FieldSet {
    return new FieldSet([...this.byKey.values()].filter((p) => !other.has(p)));
  }

  /** Whether some member lies strictly below `p`. */
  hasBelow(p: FieldPath): boolean {
    return this.childIndex().has(pathKey(p));
  }

  /** The distinct elements that follow `prefix` in members strictly below it. */
  childrenOf(prefix: FieldPath): PathElement[] {
    return [...(this.childIndex().get(pathKey(prefix))?.values() ?? [])];
  }

  private childIndex(): Map<string, Map<string, PathElement>> {
    if (this.children) return this.children;
    const idx = new Map<string, Map<string, PathElement>>();
    for (const p of this.byKey.values()) {
      let key = '';
      for (let i = 0; i < p.length; i++) {
        const el = p[i]!;
        let m = idx.get(key);
        if (!m) idx.set(key, (m = new Map()));
        const es = elementString(el);
        m.set(es, el);
        key = i === 0 ? es : key + '\u0000' + es;
      }
    }
    this.children = idx;
    return idx;
  }

  /** Paths equal to or below `prefix`. */
  under(prefix: FieldPath): FieldSet {
    return new FieldSet([...this.byKey.values()].filter((p) => isPrefix(prefix, p)));
  }

  equals(other: FieldSet): boolean {
    return this.size === other.size && this.difference(other).size === 0;
  }
}
