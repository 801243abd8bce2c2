// Draws a tree as indented rows with box-drawing branches (├─, └─, │), one row per node.

export interface TreeRow<T> {
  /** `├─ `, `└─ `, `│  ` prefixes for the node's depth; empty for a root. */
  prefix: string;
  node: T;
}

/** Flattens trees into rows, parents before children, each with the branch prefix that draws it. */
export function treeRows<T>(roots: readonly T[], children: (n: T) => readonly T[]): TreeRow<T>[] {
  const rows: TreeRow<T>[] = [];
  const visit = (node: T, indent: string, branch: string): void => {
    rows.push({ prefix: indent + branch, node });
    const kids = children(node);
    const nextIndent = indent + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    kids.forEach((k, i) => visit(k, nextIndent, i === kids.length - 1 ? '└─ ' : '├─ '));
  };
  for (const r of roots) visit(r, '', '');
  return rows;
}
