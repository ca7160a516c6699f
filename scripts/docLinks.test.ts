// The documentation's relative links: README.md and every Markdown file under docs/ (the generated
// docs/statecharts/ and docs/paths/ aside) link only to files that exist, and an anchor only to a
// heading of the target that makes that slug, as GitHub makes it. The README stays short.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const GENERATED = ['docs/statecharts', 'docs/paths'];
const README_MAX_LINES = 250;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (GENERATED.includes(relative(root, path))) return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The file's lines outside fenced code blocks. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's anchor for a heading: its text as rendered, lower-cased, without punctuation, spaces as
 * hyphens; a repeated slug gets -1, -2… */
function slugs(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const rendered = heading[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** The relative links of a Markdown file (inline code and code blocks aside). */
function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:…
      links.push(target);
    }
  }
  return links;
}

/** What is wrong with each link of a file: a missing file, or an anchor no heading makes. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return relativeLinks(text).flatMap((link) => {
    const [path = '', anchor] = link.split('#');
    const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    if (!existsSync(target)) return [`${link}: no file ${relative(root, target)}`];
    if (anchor === undefined || anchor === '' || !target.endsWith('.md')) return [];
    return slugs(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())
      ? []
      : [`${link}: no heading makes #${anchor} in ${relative(root, target)}`];
  });
}

const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];

describe('documentation links', () => {
  it.each(files.map((file) => [relative(root, file), file]))('every relative link of %s resolves', (_name, file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it(`the README is at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('makes anchors as GitHub does, and finds links outside code only', () => {
    const page = '# Tessera\n## `cards import <file.csv>`\n## Same configuration, same SECRET_KEY\n## A\n## A\n';
    expect([...slugs(page)]).toEqual([
      'tessera',
      'cards-import-filecsv',
      'same-configuration-same-secret_key',
      'a',
      'a-1',
    ]);
    const links = '[a](x.md#y) `[b](no.md)` [c](https://example.com)\n```\n[d](no.md)\n```\n![e](p.png)';
    expect(relativeLinks(links)).toEqual(['x.md#y', 'p.png']);
  });
});
