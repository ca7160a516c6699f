// Every locale reads every key of en, through its fallbacks, with the same {{placeholders}} and the
// plural forms its language needs; an overlay holds only what differs from its base; every API error
// code is translated. Both sets: the app's strings (*.json) and the server's texts (server/*.json).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCALES, type Locale } from '../contract/constants.ts';
import { ERRORS } from '../contract/errors.ts';
import { HISTORY_CATEGORIES, KNOWN_HISTORY_TYPES } from '../contract/history.ts';
import { CLIENT_ERROR_CODES } from '../machines/failures.ts';
import { OVERLAY_BASES, localeChain } from './fallbacks.ts';

type Tree = { [key: string]: string | Tree };
const SETS = { app: import.meta.dirname, server: join(import.meta.dirname, 'server') };
type Bundle = keyof typeof SETS;
const tree = (set: Bundle, locale: Locale) =>
  JSON.parse(readFileSync(join(SETS[set], `${locale}.json`), 'utf8')) as Tree;
const flatten = (tree: Tree, prefix = ''): Record<string, string> =>
  Object.fromEntries(
    Object.entries(tree).flatMap(([key, value]) =>
      typeof value === 'string' ? [[prefix + key, value]] : Object.entries(flatten(value, `${prefix}${key}.`)),
    ),
  );
const load = (set: Bundle, locale: Locale) => flatten(tree(set, locale));
/** What i18next reads in a locale: its own keys, then those of its fallbacks in order. */
const merged = (set: Bundle, locale: Locale): Record<string, string> =>
  Object.assign(
    {},
    ...localeChain(locale)
      .reverse()
      .map((code) => load(set, code)),
  );
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

/** The plural forms a locale's language tells apart, as i18next suffixes them. French's `many` is
 * left out: it counts round millions ("un million de minutes"), which no text counts, and i18next
 * reads `_other` for a form that is not written. */
const pluralForms = (locale: Locale) =>
  new Intl.PluralRules(locale.replace('_', '-')).resolvedOptions().pluralCategories.filter((c) => c !== 'many');
const PLURAL = /_(zero|one|two|few|many|other)$/;

const SETS_AND_LOCALES = (Object.keys(SETS) as Bundle[]).flatMap((set) =>
  LOCALES.map((locale) => [set, locale] as const),
);
const OVERLAYS = SETS_AND_LOCALES.flatMap(([set, locale]) =>
  locale in OVERLAY_BASES ? [[set, locale, OVERLAY_BASES[locale as keyof typeof OVERLAY_BASES]] as const] : [],
);
const en = load('app', 'en');

describe.each(Object.keys(SETS) as Bundle[])('locales: %s', (set) => {
  it('ships exactly the six locales', () => {
    expect(
      readdirSync(SETS[set])
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.replace('.json', ''))
        .sort(),
    ).toEqual([...LOCALES].sort());
  });
});

describe('locales', () => {
  it.each(SETS_AND_LOCALES)(
    '%s: %s reads every key of en, with the same placeholders, and nothing else',
    (set, locale) => {
      const base = load(set, 'en');
      const other = merged(set, locale);
      expect(Object.keys(other).sort()).toEqual(Object.keys(base).sort());
      for (const [key, text] of Object.entries(base)) {
        expect({ key, placeholders: placeholders(other[key]!) }).toEqual({ key, placeholders: placeholders(text) });
        expect(other[key]!.trim()).not.toBe('');
      }
    },
  );

  it.each(OVERLAYS)('%s: %s holds only what differs from %s', (set, locale, baseLocale) => {
    const base = load(set, baseLocale);
    const overlay = load(set, locale);
    expect(Object.keys(overlay).filter((key) => !(key in base))).toEqual([]);
    expect(Object.keys(overlay).filter((key) => overlay[key] === base[key])).toEqual([]);
  });

  it.each(SETS_AND_LOCALES)('%s: %s writes the plural forms its language tells apart, and no other', (set, locale) => {
    const texts = merged(set, locale);
    const bases = new Set(
      Object.keys(load(set, 'en')).flatMap((key) => (PLURAL.test(key) ? [key.replace(PLURAL, '')] : [])),
    );
    for (const base of bases)
      for (const form of pluralForms(locale)) expect(texts[`${base}_${form}`], `${base}_${form}`).toBeTruthy();
    const told: string[] = new Intl.PluralRules(locale.replace('_', '-')).resolvedOptions().pluralCategories;
    const strays = Object.keys(load(set, locale)).filter((key) => {
      const form = PLURAL.exec(key)?.[1];
      return form !== undefined && !told.includes(form);
    });
    expect(strays).toEqual([]);
  });

  it.each(SETS_AND_LOCALES.filter(([, locale]) => locale !== 'en' && locale !== 'en_LU'))(
    '%s: %s is translated, not an English copy',
    (set, locale) => {
      const english = load(set, 'en');
      const other = merged(set, locale);
      const same = Object.keys(english).filter(
        (key) => other[key] === english[key] && english[key]!.split(' ').length > 2,
      );
      expect(same).toEqual([]);
    },
  );

  it("keeps the server's texts apart from the app's strings: the two sets share no top-level key", () => {
    for (const locale of LOCALES) {
      const app = Object.keys(tree('app', locale));
      expect(Object.keys(tree('server', locale)).filter((key) => app.includes(key))).toEqual([]);
    }
  });

  it('keeps French punctuation with its word: a no-break space before ? ! ; : (a line never starts with one)', () => {
    for (const locale of ['fr', 'fr_LU'] as const) {
      const loose = Object.entries(load('app', locale)).filter(([, text]) => / [?!;:](\s|$)/.test(text));
      expect(loose.map(([key]) => `${locale}: ${key}`)).toEqual([]);
    }
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
