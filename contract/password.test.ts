import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD_POLICY, passwordProblems } from './password.ts';

const policy = DEFAULT_PASSWORD_POLICY;

describe('password policy', () => {
  it('accepts a password meeting every bound', () => {
    expect(passwordProblems('Tessera-demo-2026!', policy)).toEqual([]);
    expect(passwordProblems('Tessera-demo-2026!', policy, 'Tessera-demo-2026!')).toEqual([]);
  });
  it('names each missing piece', () => {
    expect(passwordProblems('', policy)).toEqual(['required']);
    expect(passwordProblems('a1!', policy)).toEqual(['too_short']);
    expect(passwordProblems('1234567890!', policy)).toEqual(['no_letter']);
    expect(passwordProblems('abcdefghij!', policy)).toEqual(['no_number']);
    expect(passwordProblems('abcdefghij1', policy)).toEqual(['no_special']);
    expect(passwordProblems('Tessera-demo-2026!', policy, 'other')).toEqual(['mismatch']);
  });
  it('counts letters of every alphabet and bounds the length', () => {
    expect(passwordProblems('Żółć-gęślą-2026', policy)).toEqual([]);
    expect(passwordProblems(`${'a'.repeat(130)}1!`, policy)).toEqual(['too_long']);
  });
  it('follows configured bounds', () => {
    const strict = { ...policy, minLength: 16, minDigits: 3, minSpecial: 2 };
    expect(passwordProblems('Tessera-demo-2026!', strict)).toEqual([]);
    expect(passwordProblems('Tessera-demo-26!', strict)).toEqual(['no_number']);
  });
  it('never reports a problem for a password built to satisfy the policy', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 10, maxLength: 60 }), (s) => {
        const password = `${s.replace(/\s/g, '')}aA1!xxxxxxxx`.slice(0, 120);
        return passwordProblems(password, policy).length === 0;
      }),
    );
  });
});
