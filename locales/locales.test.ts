// Every locale has every key of en, and keeps its {{placeholders}}; every API error code is translated.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '../contract/constants.ts';
import { ERRORS } from '../contract/errors.ts';
import { HISTORY_CATEGORIES, KNOWN_HISTORY_TYPES } from '../contract/history.ts';
import { CLIENT_ERROR_CODES } from '../machines/failures.ts';

type Tree = { [key: string]: string | Tree };
const dir = import.meta.dirname;
const load = (locale: string) => JSON.parse(readFileSync(join(dir, `${locale}.json`), 'utf8')) as Tree;
const flatten = (tree: Tree, prefix = ''): Record<string, string> =>
  Object.fromEntries(
    Object.entries(tree).flatMap(([key, value]) =>
      typeof value === 'string' ? [[prefix + key, value]] : Object.entries(flatten(value, `${prefix}${key}.`)),
    ),
  );
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

const en = flatten(load('en'));

describe('locales', () => {
  it('ships exactly the six locales', () => {
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.replace('.json', ''))
        .sort(),
    ).toEqual([...LOCALES].sort());
  });

  it.each(LOCALES.filter((l) => l !== 'en'))(
    '%s has every key of en, with the same placeholders, and nothing else',
    (locale) => {
      const other = flatten(load(locale));
      expect(Object.keys(other).sort()).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(en)) {
        expect({ key, placeholders: placeholders(other[key]!) }).toEqual({ key, placeholders: placeholders(text) });
        expect(other[key]!.trim()).not.toBe('');
      }
    },
  );

  it.each(['fr', 'fr_LU', 'nl', 'de_LU'])('%s is translated, not an English copy', (locale) => {
    const other = flatten(load(locale));
    const same = Object.keys(en).filter((key) => other[key] === en[key] && en[key]!.split(' ').length > 2);
    expect(same).toEqual([]);
  });

  it('translates every API error code', () => {
    for (const code of Object.keys(ERRORS)) expect(en[`errors.${code}`], code).toBeTruthy();
  });

  it('translates every failure the browser finds itself: a screen shows any problem by its code alone', () => {
    for (const code of CLIENT_ERROR_CODES) expect(en[`errors.${code}`], code).toBeTruthy();
  });

  it('names every kind of security event the history shows, and every category it filters by', () => {
    for (const type of KNOWN_HISTORY_TYPES) expect(en[`history.type.${type}`], type).toBeTruthy();
    for (const category of HISTORY_CATEGORIES) expect(en[`history.category.${category}`], category).toBeTruthy();
  });
});
