import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNationalRegisterNumber, normaliseNationalRegisterNumber } from './nationalRegister.ts';

/** Builds a valid number for a birth date and serial, by the official rule. */
function make(yymmdd: string, serial: string, from2000: boolean): string {
  const base = `${yymmdd}${serial}`;
  const check = 97 - Number(BigInt(from2000 ? `2${base}` : base) % 97n);
  return `${base}${String(check).padStart(2, '0')}`;
}

describe('national register number', () => {
  it('accepts a number of someone born before 2000', () => {
    expect(isNationalRegisterNumber(make('850730', '033', false))).toBe(true);
    expect(isNationalRegisterNumber('85.07.30-033.28')).toBe(isNationalRegisterNumber('85073003328'));
  });
  it('accepts a number of someone born from 2000 on (the 2-prefix rule)', () => {
    const number = make('050112', '145', true);
    expect(isNationalRegisterNumber(number)).toBe(true);
  });
  it('refuses a wrong check number, wrong length or letters', () => {
    const good = make('850730', '033', false);
    const bad = good.slice(0, 9) + String((Number(good.slice(9)) % 97) + 1).padStart(2, '0');
    expect(isNationalRegisterNumber(bad)).toBe(false);
    expect(isNationalRegisterNumber('8507300332')).toBe(false);
    expect(isNationalRegisterNumber('850730033281')).toBe(false);
    expect(isNationalRegisterNumber('85O73003328')).toBe(false);
  });
  it('normalises separators', () => {
    expect(normaliseNationalRegisterNumber('85.07.30-033 28')).toBe('85073003328');
    expect(normaliseNationalRegisterNumber('abc')).toBeNull();
  });
  it('accepts every number built by the rule and refuses every other check digit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999 }), fc.boolean(), (n, from2000) => {
        const base = String(n).padStart(9, '0');
        const valid = make(base.slice(0, 6), base.slice(6), from2000);
        const other = (Number(valid.slice(9)) + 1) % 100;
        const alternative = 97 - Number(BigInt(from2000 ? base : `2${base}`) % 97n);
        const wrong = `${base}${String(other).padStart(2, '0')}`;
        return isNationalRegisterNumber(valid) && (other === alternative || !isNationalRegisterNumber(wrong));
      }),
    );
  });
});
