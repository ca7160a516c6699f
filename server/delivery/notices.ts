// Notices that tell an account of a change made to it, in the account's language: sent to the
// account's primary email and phone, so that a change nobody asked for does not go unseen. They
// carry no secret and no link that acts: the person who did not make the change signs in and looks.
import type { Channel } from './index.ts';

/** The changes an account is told of. */
export type NoticeKind = 'iban_changed';

type Language = 'en' | 'fr' | 'nl' | 'de';
type Notice = { subject: string; body: (detail: NoticeDetail) => string; sms: (detail: NoticeDetail) => string };
/** What the notice names: the masked IBAN, its country code. */
export type NoticeDetail = { iban: string; country: string };

const TEXTS: Record<Language, Record<NoticeKind, Notice>> = {
  en: {
    iban_changed: {
      subject: 'The bank account of your Tessera account was changed',
      body: (d) => `The bank account of your Tessera account is now ${d.iban} (${d.country}). If you made this change, there is nothing to do. If you did not, sign in to Tessera now, change your password and check your bank account and your security settings.`,
      sms: (d) => `Tessera: the bank account of your account is now ${d.iban}. Not you? Sign in and change your password now.`,
    },
  },
  fr: {
    iban_changed: {
      subject: 'Le compte bancaire de votre compte Tessera a été modifié',
      body: (d) => `Le compte bancaire de votre compte Tessera est désormais ${d.iban} (${d.country}). Si vous êtes à l'origine de ce changement, vous n'avez rien à faire. Sinon, connectez-vous tout de suite à Tessera, changez votre mot de passe et vérifiez votre compte bancaire et vos paramètres de sécurité.`,
      sms: (d) => `Tessera : le compte bancaire de votre compte est désormais ${d.iban}. Ce n'est pas vous ? Connectez-vous et changez votre mot de passe.`,
    },
  },
  nl: {
    iban_changed: {
      subject: 'De bankrekening van uw Tessera-account is gewijzigd',
      body: (d) => `De bankrekening van uw Tessera-account is nu ${d.iban} (${d.country}). Hebt u dit zelf gewijzigd? Dan hoeft u niets te doen. Zo niet, meld u dan meteen aan bij Tessera, wijzig uw wachtwoord en controleer uw bankrekening en uw beveiligingsinstellingen.`,
      sms: (d) => `Tessera: de bankrekening van uw account is nu ${d.iban}. Was u dit niet? Meld u aan en wijzig uw wachtwoord.`,
    },
  },
  de: {
    iban_changed: {
      subject: 'Die Bankverbindung Ihres Tessera-Kontos wurde geändert',
      body: (d) => `Die Bankverbindung Ihres Tessera-Kontos lautet jetzt ${d.iban} (${d.country}). Wenn Sie diese Änderung vorgenommen haben, ist nichts zu tun. Andernfalls melden Sie sich sofort bei Tessera an, ändern Sie Ihr Passwort und prüfen Sie Ihre Bankverbindung und Ihre Sicherheitseinstellungen.`,
      sms: (d) => `Tessera: Die Bankverbindung Ihres Kontos lautet jetzt ${d.iban}. Nicht Sie? Melden Sie sich an und ändern Sie Ihr Passwort.`,
    },
  },
};

function textsFor(language: string): Record<NoticeKind, Notice> {
  const base = language.split(/[_-]/)[0]!.toLowerCase();
  return TEXTS[base as Language] ?? TEXTS.en;
}

/** The notice of a change, for an email or a text message, in the account's language. */
export function noticeMessage(language: string, kind: NoticeKind, detail: NoticeDetail, channel: Extract<Channel, 'email' | 'sms'>): { subject: string; body: string } {
  const notice = textsFor(language)[kind];
  return { subject: notice.subject, body: channel === 'email' ? notice.body(detail) : notice.sms(detail) };
}
