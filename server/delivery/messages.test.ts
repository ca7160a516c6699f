import { describe, expect, it } from 'vitest';
import { LOCALES } from '../../contract/constants.ts';
import { codeMessage } from './messages.ts';

// What each locale's texts must say, by a word only that language uses.
const MARKERS: Record<string, { code: RegExp; activate: RegExp; reset: RegExp; onboarding: RegExp; voice: RegExp }> = {
  en: {
    code: /security code is 12345678\. It is valid for 15 minutes/,
    activate: /confirm this email address/,
    reset: /reset your Tessera password/,
    onboarding: /this phone number for your new Tessera account/,
    voice: /^Hello, this is Tessera/,
  },
  fr: {
    code: /code de sécurité Tessera est 12345678\. Il est valable 15 minutes/,
    activate: /confirmer cette adresse e-mail/,
    reset: /réinitialiser votre mot de passe/,
    onboarding: /ce numéro de téléphone pour votre nouveau compte/,
    voice: /^Bonjour, ici Tessera/,
  },
  nl: {
    code: /Tessera-beveiligingscode is 12345678\. Hij is 15 minuten geldig/,
    activate: /dit e-mailadres te bevestigen/,
    reset: /wachtwoord opnieuw in te stellen/,
    onboarding: /dit telefoonnummer te bevestigen voor uw nieuwe Tessera-account/,
    voice: /^Goedendag, hier is Tessera/,
  },
  de: {
    code: /Sicherheitscode lautet 12345678\. Er ist 15 Minuten gültig/,
    activate: /Bestätigung dieser E-Mail-Adresse/,
    reset: /Zurücksetzen Ihres Tessera-Passworts/,
    onboarding: /dieser Telefonnummer für Ihr neues Tessera-Konto/,
    voice: /^Guten Tag, hier ist Tessera/,
  },
};

describe('messages', () => {
  it.each(LOCALES)('speaks %s, for every purpose and channel', (locale) => {
    const marker = MARKERS[locale.split('_')[0]!]!;
    const code = codeMessage(locale, '12345678', 900, { purpose: 'login', channel: 'sms' });
    expect(code.body).toMatch(marker.code);
    expect(codeMessage(locale, '12345678', 900, { purpose: 'sudo', channel: 'email' })).toEqual(code);
    expect(codeMessage(locale, '12345678', 900, { purpose: 'activate', channel: 'email' }).body).toMatch(
      marker.activate,
    );
    expect(codeMessage(locale, '12345678', 900, { purpose: 'reset', channel: 'whatsapp' }).body).toMatch(marker.reset);
    expect(codeMessage(locale, '12345678', 900, { purpose: 'onboarding', channel: 'sms' }).body).toMatch(
      marker.onboarding,
    );
    const voice = codeMessage(locale, '12345678', 900, { purpose: 'login', channel: 'call' }).body;
    expect(voice).toMatch(marker.voice);
    // Spoken digit by digit, twice; never as one number.
    expect(voice.match(/1, 2, 3, 4, 5, 6, 7, 8/g)).toHaveLength(2);
    expect(voice).not.toContain('12345678');
    for (const purpose of ['login', 'activate', 'reset', 'onboarding'] as const) {
      expect(codeMessage(locale, '12345678', 900, { purpose }).subject).toMatch(/Tessera/);
    }
  });

  it('ends an SMS with its origin-bound line when given the host, and nothing else with one', () => {
    const sms = codeMessage('fr', '12345678', 900, { purpose: 'login', channel: 'sms', host: 'account.tessera.be' });
    expect(sms.body.split('\n').at(-1)).toBe('@account.tessera.be #12345678');
    expect(codeMessage('fr', '12345678', 900, { purpose: 'login', channel: 'email' }).body).not.toContain('#');
  });

  it('tells whoever did not ask for an onboarding code (an account may have that address) that nothing changes', () => {
    const endings = {
      en: /ignore this message: nothing changes\.$/,
      fr: /ignorez ce message : rien ne change\.$/,
      nl: /dit bericht: er verandert niets\.$/,
      de: /diese Nachricht: Es ändert sich nichts\.$/,
    };
    for (const [language, ending] of Object.entries(endings)) {
      expect(codeMessage(language, '12345678', 900, { purpose: 'onboarding', channel: 'email' }).body).toMatch(ending);
    }
  });

  it('says what is being confirmed: an address or a number', () => {
    expect(codeMessage('fr', '12345678', 900, { purpose: 'activate', channel: 'sms' }).body).toMatch(
      /ce numéro de téléphone/,
    );
    expect(codeMessage('nl', '12345678', 900, { purpose: 'activate', channel: 'whatsapp' }).body).toMatch(
      /dit telefoonnummer/,
    );
  });

  it('counts minutes in the singular when there is one, and falls back to English', () => {
    expect(codeMessage('de_LU', '12345678', 60).body).toMatch(/1 Minute gültig/);
    expect(codeMessage('nl', '12345678', 60).body).toMatch(/1 minuut geldig/);
    expect(codeMessage('pt', '12345678', 600).body).toBe(
      'Your Tessera security code is 12345678. It is valid for 10 minutes. Never share it with anyone.',
    );
  });
});
