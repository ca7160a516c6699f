import { describe, expect, it } from 'vitest';
import { checkIban, ibanCountryOf } from './iban.ts';

describe('checkIban', () => {
  it("takes a valid IBAN with no country chosen as the IBAN's own", () => {
    expect(checkIban(undefined, 'BE68 5390 0754 7034')).toEqual({ ok: true, iban: 'BE68539007547034', country: 'BE' });
    expect(checkIban('', ' nl91 abna 0417 1643 00 ')).toEqual({ ok: true, iban: 'NL91ABNA0417164300', country: 'NL' });
  });

  it('takes it with its own country chosen', () => {
    expect(checkIban('LU', 'LU28 0019 4006 4475 0000')).toMatchObject({ ok: true, country: 'LU' });
  });

  it('says which countries differ when another was chosen', () => {
    expect(checkIban('BE', 'NL91ABNA0417164300')).toEqual({
      ok: false,
      code: 'iban_country_mismatch',
      country: 'NL',
      chosen: 'BE',
    });
  });

  it('refuses a wrong checksum or length, a country outside the list, and a chosen one outside it', () => {
    for (const [chosen, typed] of [
      [undefined, 'BE68539007547035'],
      ['BE', 'BE6853900754703'],
      [undefined, ''],
      [undefined, 'BR1800360305000010009795493C1'],
      ['XX', 'BE68539007547034'],
    ] as const)
      expect(checkIban(chosen, typed), `${chosen} ${typed}`).toEqual({ ok: false, code: 'iban_invalid' });
  });
});

describe('ibanCountryOf', () => {
  it('names the listed country of the first two letters, as typed', () => {
    expect(ibanCountryOf('nl9')).toBe('NL');
    expect(ibanCountryOf(' be')).toBe('BE');
    expect(ibanCountryOf('B')).toBeNull();
    expect(ibanCountryOf('BR18')).toBeNull();
  });
});
