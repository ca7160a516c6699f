import { describe, expect, it } from 'vitest';
import { chooseLocale } from './i18n.ts';

describe('locale choice (spec §1)', () => {
  it('Belgian variant: a browser language among en, fr and nl picks it; any other falls back to en', () => {
    expect(chooseLocale('be', ['nl-BE', 'fr'], null)).toBe('nl');
    expect(chooseLocale('be', ['fr-FR'], null)).toBe('fr');
    expect(chooseLocale('be', ['en-GB'], null)).toBe('en');
    expect(chooseLocale('be', ['de-DE', 'nl'], null)).toBe('en');
    expect(chooseLocale('be', [], null)).toBe('en');
  });

  it('Luxembourg variant: fr and en pick fr_LU and en_LU; any other falls back to fr_LU', () => {
    expect(chooseLocale('lu', ['fr-LU'], null)).toBe('fr_LU');
    expect(chooseLocale('lu', ['en-US'], null)).toBe('en_LU');
    expect(chooseLocale('lu', ['de-LU'], null)).toBe('fr_LU');
    expect(chooseLocale('lu', ['nl'], null)).toBe('fr_LU');
  });

  it('a stored choice wins when the variant offers it, and is ignored otherwise', () => {
    expect(chooseLocale('be', ['en'], 'nl')).toBe('nl');
    expect(chooseLocale('lu', ['fr'], 'en_LU')).toBe('en_LU');
    expect(chooseLocale('be', ['fr'], 'fr_LU')).toBe('fr');
    expect(chooseLocale('lu', ['en'], 'nl')).toBe('en_LU');
    expect(chooseLocale('be', ['nl'], 'garbage')).toBe('nl');
  });
});
