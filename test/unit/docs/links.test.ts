// Every relative Markdown link in README.md and docs/**/*.md resolves to a file (or folder) that exists, and every
// `#anchor` (on the same page or another) to a heading of that page, by GitHub's slug.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { docPages } from '../../support/docs.js';

const root = process.cwd();

/** The page's text without fenced code blocks and inline code, where a `](…)` is not a link. */
function prose(text: string): string {
  return text
    .replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '')
    .split('\n')
    .map((line) => line.replace(/`[^`]*`/g, ''))
    .join('\n');
}

/** GitHub's heading anchor: lowercase, punctuation dropped (letters, digits, `-`, `_` and spaces kept), spaces to `-`. */
function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings, a repeated one suffixed `-1`, `-2` as GitHub does. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = githubSlug(m[1]!.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Headings keep their inline code (GitHub drops only the backquotes), so read them from the raw text. */
function headingAnchors(text: string): Set<string> {
  const withoutFences = text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
  return anchors(withoutFences.replace(/`/g, ''));
}

const pages = docPages(root);

test('the documentation is README.md and the pages under docs/', () => {
  expect(pages[0]!.path).toBe('README.md');
  expect(pages.length).toBeGreaterThan(20);
});

test('the slug is GitHub’s', () => {
  expect(githubSlug('Checked against Argo CD itself: the conformance suite')).toBe('checked-against-argo-cd-itself-the-conformance-suite');
  expect(githubSlug('`kubectl gitops sync APP --watch`'.replace(/`/g, ''))).toBe('kubectl-gitops-sync-app---watch');
});

describe.each(pages.map((p) => [p.path, p.text] as const))('%s', (path, text) => {
  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
      const [file, anchor] = target.split('#', 2) as [string, string | undefined];
      const dest = file === '' ? join(root, path) : normalize(join(root, dirname(path), decodeURIComponent(file)));
      if (!dest.startsWith(root) || !existsSync(dest)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor !== undefined && dest.endsWith('.md') && !headingAnchors(readFileSync(dest, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });
});
