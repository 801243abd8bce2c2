// Field paths of server-side apply conflicts as people read them (pure).

/** A conflict field as people read it, in the diff's path style: `.spec.x[name="a"].y` -> `spec.x[name=a].y`. */
export function humanField(field: string): string {
  return field.replace(/^\./, '').replace(/=("(?:[^"\\]|\\.)*")/g, (_m, q: string) => {
    try {
      return `=${JSON.parse(q) as string}`;
    } catch {
      return `=${q}`;
    }
  });
}
