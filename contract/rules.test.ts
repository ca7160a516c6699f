import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VARIANT_LOCALES, serviceHost, variantOfHost } from './constants.ts';
import { ERRORS, messageOf, type ErrorCode } from './errors.ts';
import { normalisePhone } from './phone.ts';
import {
  formatPhone,
  isActivationCode,
  isCardNumber,
  isDeviceId,
  isEmail,
  isInvitationCode,
  looksLikeEmail,
  normaliseActivationCode,
  normaliseEmail,
  normaliseInvitationCode,
  sanitiseCodeInput,
} from './rules.ts';

describe('email rule', () => {
  it.each(['emma.peeters@example.be', 'a+b@sub.example.co.uk'])('accepts %s', (email) =>
    expect(isEmail(email)).toBe(true),
  );
  it.each([
    '',
    'no-at-sign',
    '@example.be',
    'a@b',
    'a b@example.be',
    `${'a'.repeat(65)}@example.be`,
    'a@example.b',
    // What a mailer would read as another address: a list, a display name, a quoted or commented part.
    'a@b.example,c@d.example',
    '<attacker>x@victim.example',
    'x@victim.example;y@evil.example',
    '"a@b"@example.be',
    'a(c)@example.be',
    'a@[127.0.0.1].example',
  ])('refuses %j', (email) => expect(isEmail(email)).toBe(false));
  it('normalises case and spaces', () =>
    expect(normaliseEmail('  Emma.Peeters@Example.BE ')).toBe('emma.peeters@example.be'));
  it('tells emails from phones', () => {
    expect(looksLikeEmail('x@y.be')).toBe(true);
    expect(looksLikeEmail('+32 470 12 34 56')).toBe(false);
  });
});

describe('phone normalisation', () => {
  it.each([
    ['0470 12 34 56', 'BE', '+32470123456'],
    ['+32 470/12.34.56', 'BE', '+32470123456'],
    ['0032 470 12 34 56', 'BE', '+32470123456'],
    ['(0470) 12-34-56', 'BE', '+32470123456'],
    ['621 123 456', 'LU', '+352621123456'],
    ['+352 621 123 456', 'BE', '+352621123456'],
  ] as const)('%s (%s) → %s', (input, country, expected) => expect(normalisePhone(input, country)).toBe(expected));
  it.each(['', 'abc', '12', '+32 470 12', 'emma@example.be', '0470 12 34 56 78 90 12'])('refuses %j', (input) =>
    expect(normalisePhone(input)).toBeNull(),
  );
  it('never throws and always yields E.164 or null', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (input) => {
        const out = normalisePhone(input);
        return out === null || /^\+[1-9]\d{6,14}$/.test(out);
      }),
    );
  });
});

describe('card number rule', () => {
  it('accepts 16 digits starting with 5065, spaces allowed', () => {
    expect(isCardNumber('5065123412341234')).toBe(true);
    expect(isCardNumber('5065 1234 1234 1234')).toBe(true);
  });
  it.each(['4065123412341234', '506512341234123', '50651234123412345', '5065abcd12341234'])('refuses %s', (card) =>
    expect(isCardNumber(card)).toBe(false),
  );
});

describe('code input and device id', () => {
  it('keeps letters and digits only', () => expect(sanitiseCodeInput(' 12-34 ab!')).toBe('1234ab'));
  it('checks device ids', () => {
    expect(isDeviceId(crypto.randomUUID())).toBe(true);
    expect(isDeviceId('short')).toBe(false);
    expect(isDeviceId('has space in it')).toBe(false);
    expect(isDeviceId(undefined)).toBe(false);
  });
});

describe('variants', () => {
  it('chooses the variant by host name', () => {
    expect(variantOfHost('account.localhost:3000')).toBe('be');
    expect(variantOfHost('account.lu.localhost:3000')).toBe('lu');
    expect(variantOfHost('account.tessera.lu')).toBe('lu');
    expect(variantOfHost('account.tessera.be')).toBe('be');
    expect(variantOfHost('lucky.example.be')).toBe('be');
  });
  it('offers the spec languages and defaults', () => {
    expect(Object.values(VARIANT_LOCALES.be.locales).toSorted()).toEqual(['en', 'fr', 'nl']);
    expect(VARIANT_LOCALES.be.default).toBe('nl');
    expect(Object.values(VARIANT_LOCALES.lu.locales).toSorted()).toEqual(['en_LU', 'fr_LU']);
    expect(VARIANT_LOCALES.lu.default).toBe('fr_LU');
  });
  it('derives tile hosts by replacing account', () => {
    expect(serviceHost('account.tessera.be', 'client')).toBe('client.tessera.be');
    expect(serviceHost('account.lu.localhost:3000', 'fridom')).toBe('fridom.lu.localhost:3000');
  });
});

describe('error catalogue', () => {
  it('gives every code a status and a message, with the spec wording for login', () => {
    for (const code of Object.keys(ERRORS)) expect(messageOf(code as ErrorCode)).toBeTruthy();
    expect(messageOf('invalid_credentials')).toBe('Invalid username/password.');
    expect(messageOf('too_many_attempts')).toBe('Too many attempts. Please try again later.');
    expect(messageOf('internal_error')).toBe('An error has occurred. Please try again later.');
  });
});

describe('activation and invitation codes', () => {
  it('reads an activation code without spaces, dashes or case', () => {
    expect(normaliseActivationCode(' ab12-cd 34 ')).toBe('AB12CD34');
    for (const code of ['1001', '100101', 'AB12-CD34', 'abcdefghijkl']) expect(isActivationCode(code)).toBe(true);
    for (const code of ['', '123', 'ABCDEFGHIJKLM', '12 3!', 'é1234']) expect(isActivationCode(code)).toBe(false);
  });
  it('reads an invitation code forgivingly: case, dashes, O for 0 and I or L for 1', () => {
    expect(normaliseInvitationCode('tess-0ilo-abcd')).toBe('TESS0110ABCD');
    expect(isInvitationCode('TESS-0001-DEMO')).toBe(true);
    expect(isInvitationCode('tess 0001 demo')).toBe(true);
    for (const code of ['', 'TESS-0001', 'TESS-0001-DEMO-1', 'TESS-0001-DEMU'])
      expect(isInvitationCode(code)).toBe(false);
  });
});

describe('formatPhone', () => {
  it('groups a number as people of its country read it', () => {
    expect(formatPhone('+32470123456')).toBe('+32 470 12 34 56');
    expect(formatPhone('+352621123456')).toBe('+352 621 123 456');
    expect(formatPhone('+31612345678')).toBe('+31 6 12 34 56 78');
    expect(formatPhone('+33612345678')).toBe('+33 6 12 34 56 78');
    expect(formatPhone('+4915123456789')).toBe('+49 151 2345 6789');
  });

  it('leaves what is not a whole E.164 number as it is (a masked one, an address)', () => {
    for (const value of ['+32•••••••21', 'emma@example.be', '0470123456', '+32', '+14155550123'])
      expect(formatPhone(value)).toBe(value);
  });

  it('keeps every digit, in order, whatever the number', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\+\d{7,15}$/), (value) => {
        expect(formatPhone(value).replace(/ /g, '')).toBe(value);
      }),
    );
  });
});
