// Every key the app's code names resolves in en: a literal that starts with one of en's top-level
// keys (`t('forgotPassword.sent.title')`, a `title="weakPassword.title"` prop) is a key, and a
// template (`t(\`setupMfa.selection.${kind}\`)`) names a group of keys. A key renamed on one side
// only would otherwise show its name on screen.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

type Tree = { [key: string]: string | Tree };
const root = join(import.meta.dirname, '..');
const en = JSON.parse(readFileSync(join(import.meta.dirname, 'en.json'), 'utf8')) as Tree;
const NAMESPACES = Object.keys(en);

/** The value at a dotted path: a text, a group, or nothing. */
function at(path: string): string | Tree | undefined {
  let node: string | Tree | undefined = en;
  for (const part of path.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  return node;
}
/** A key i18next finds: the key itself, or its plural or context forms (`key_one`, `key_email`). */
function resolves(key: string): boolean {
  if (typeof at(key) === 'string') return true;
  const dot = key.lastIndexOf('.');
  const group = dot < 0 ? en : at(key.slice(0, dot));
  const last = key.slice(dot + 1);
  return typeof group === 'object' && Object.keys(group).some((k) => k.startsWith(`${last}_`));
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const ns = NAMESPACES.join('|');
const LITERAL = new RegExp(`['"](?:${ns})\\.[A-Za-z0-9_.]+['"]`, 'g');
/** Whatever the namespace: the first argument of `t(…)`, and a <Trans i18nKey="…">. */
const CALL = /(?:\bt\(\s*|i18nKey=)['"]([A-Za-z0-9_.]+)['"]/g;
const TEMPLATE = new RegExp(`\`((?:${ns})\\.[A-Za-z0-9_.]*)\\$\\{`, 'g');

describe('the keys the app names', () => {
  const uses = sources(join(root, 'src')).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const where = relative(root, file);
    return [
      ...[...text.matchAll(LITERAL)]
        // A machine's tag is named like a key (`security.history`) but is none.
        .filter((m) => !text.slice(0, m.index).endsWith('hasTag('))
        .map((m) => ({ where, key: m[0].slice(1, -1), group: false })),
      ...[...text.matchAll(CALL)].map((m) => ({ where, key: m[1]!, group: false })),
      ...[...text.matchAll(TEMPLATE)].map((m) => ({ where, key: m[1]!.replace(/\.$/, ''), group: true })),
    ];
  });

  it('finds the keys the screens use', () => {
    expect(uses.length).toBeGreaterThan(300);
  });

  it('resolves each in en (a template names a group of keys)', () => {
    const missing = uses
      .filter(({ key, group }) => (group ? typeof at(key) !== 'object' && !resolves(key) : !resolves(key)))
      .map(({ where, key }) => `${where}: ${key}`);
    expect(missing).toEqual([]);
  });
});
