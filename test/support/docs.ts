// The project's documentation, as the checks that read it see it: README.md (the first page) and every page under
// docs/ (docs/**/*.md), each with its path from the repository root.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface DocPage {
  /** From the repository root, with `/`: `README.md`, `docs/commands/sync.md`. */
  path: string;
  text: string;
}

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...markdownUnder(p));
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

/** README.md, then every docs/**\/*.md in path order. */
export function docPages(root = process.cwd()): DocPage[] {
  const files = [join(root, 'README.md'), ...markdownUnder(join(root, 'docs'))];
  return files.map((f) => ({ path: relative(root, f).split('\\').join('/'), text: readFileSync(f, 'utf8') }));
}

/** All the pages' text, one after another (for checks that look for a claim anywhere in the documentation). */
export function docsText(root = process.cwd()): string {
  return docPages(root)
    .map((p) => p.text)
    .join('\n');
}

/** One page's text, by its path from the root (`docs/engineering/conformance.md`). */
export function docPage(path: string, root = process.cwd()): string {
  return readFileSync(join(root, path), 'utf8');
}
