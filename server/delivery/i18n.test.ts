import { describe, expect, it } from 'vitest';
import { localeOf, textsIn } from './i18n.ts';
import { codeMessage, newDeviceMessage, passwordChangedMessage } from './messages.ts';
import { noticeMessage } from './notices.ts';

describe("the server's i18next", () => {
  it('reads any language tag as a locale: itself, else the first locale of its language, else English', () => {
    expect(localeOf('fr_LU')).toBe('fr_LU');
    expect(localeOf('fr-LU')).toBe('fr_LU');
    expect(localeOf('fr-BE')).toBe('fr');
    expect(localeOf('de')).toBe('de_LU');
    expect(localeOf('NL')).toBe('nl');
    expect(localeOf('pt')).toBe('en');
  });

  it('reads an overlay through its base, as the app does: its own keys first', () => {
    expect(textsIn('fr_LU')('brochure.title')).toBe('Des chèques-repas pour votre entreprise au Luxembourg');
    expect(textsIn('fr_LU')('oidcError.home')).toBe(textsIn('fr')('oidcError.home'));
    expect(textsIn('en_LU')('brochure.title')).toBe('Meal vouchers for your company in Luxembourg');
    expect(textsIn('en_LU')('messages.voice', { digits: '1' })).toBe(textsIn('en')('messages.voice', { digits: '1' }));
  });

  it('sends the Luxembourg locales the texts of their language', () => {
    for (const [locale, base] of [
      ['en_LU', 'en'],
      ['fr_LU', 'fr'],
    ]) {
      for (const channel of ['email', 'sms', 'call'] as const)
        expect(codeMessage(locale!, '123456', 600, { purpose: 'contact', channel })).toEqual(
          codeMessage(base!, '123456', 600, { purpose: 'contact', channel }),
        );
      expect(passwordChangedMessage(locale!)).toEqual(passwordChangedMessage(base!));
      expect(noticeMessage(locale!, 'contact_added', { value: 'a@b.lu', undo: 'https://u' }, 'sms')).toEqual(
        noticeMessage(base!, 'contact_added', { value: 'a@b.lu', undo: 'https://u' }, 'sms'),
      );
    }
    expect(passwordChangedMessage('de_LU').subject).toBe('Ihr Tessera-Passwort wurde geändert');
  });

  it('keeps what a person writes as written: no escaping, no nesting', () => {
    const value = "o'neil+$t(messages.voice)@example.be <b>";
    const undo = 'https://account.example/undo?a=1&b=2';
    expect(noticeMessage('en', 'contact_added', { value, undo }, 'sms').body).toBe(
      `Tessera: ${value} was added to your account. Not you? Undo it: ${undo}`,
    );
  });

  it('says where a new device signed in, with the city when it is known', () => {
    const facts = {
      browser: 'Firefox',
      os: null,
      country: 'BE',
      city: null,
      at: '2026-03-01T10:00:00Z',
      notMeLink: 'L',
    };
    expect(newDeviceMessage('fr', facts).body).toMatch(/Appareil : Firefox\nLieu : Belgique\n/);
    expect(newDeviceMessage('nl', { ...facts, city: 'Gent' }).body).toMatch(/Plaats: Gent, België\n/);
    expect(newDeviceMessage('en', { ...facts, browser: null, country: null }).body).toMatch(
      /Device: unknown\nPlace: unknown\n/,
    );
  });
});
