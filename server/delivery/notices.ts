// Notices that tell an account of a change made to it, in the account's language: sent to the
// account's primary email and phone, so that a change nobody asked for does not go unseen. They
// carry no secret and no link that acts: the person who did not make the change signs in and looks.
import type { Channel } from './index.ts';

/** The changes an account is told of. */
export type NoticeKind =
  | 'iban_changed'
  | 'contact_added'
  | 'contact_removed'
  | 'primary_changed'
  /** To the account that took another over, and to the account merged into it (now closed). */
  | 'accounts_merged'
  | 'account_merged_away';

type Language = 'en' | 'fr' | 'nl' | 'de';
type Notice = { subject: string; body: (detail: NoticeDetail) => string; sms: (detail: NoticeDetail) => string };
/** What the notice names: the masked IBAN and its country code; the address or number added,
 * removed or now primary. */
export type NoticeDetail = { iban?: string; country?: string; value?: string; undo?: string };

const TEXTS: Record<Language, Record<NoticeKind, Notice>> = {
  en: {
    accounts_merged: {
      subject: 'Another Tessera account was merged into yours',
      body: () =>
        'Another Tessera account of yours was merged into this one: its email addresses, phone numbers, cards and verification methods are now on this account, and your password is the only one that signs in. If you did this, there is nothing to do. If you did not, sign in to Tessera now, change your password, check your security settings and contact our support.',
      sms: () =>
        'Tessera: another account was merged into yours. Not you? Sign in, change your password and contact our support.',
    },
    account_merged_away: {
      subject: 'Your Tessera account was merged into another one',
      body: () =>
        "This Tessera account was merged into another account of yours and is now closed: its email addresses, phone numbers and cards moved there, and you sign in with that account's password. If you did this, there is nothing to do. If you did not, contact our support at once.",
      sms: () =>
        'Tessera: this account was merged into another one and is closed. Not you? Contact our support at once.',
    },
    contact_added: {
      subject: 'An address was added to your Tessera account',
      body: (d) =>
        `${d.value} was added to your Tessera account, and you can now sign in with it. If you made this change, there is nothing to do. If you did not, undo it within 7 days here: ${d.undo} — this ends every session and asks for a new password.`,
      sms: (d) => `Tessera: ${d.value} was added to your account. Not you? Undo it: ${d.undo}`,
    },
    contact_removed: {
      subject: 'This address was removed from your Tessera account',
      body: (d) =>
        `${d.value} was removed from your Tessera account: you can no longer sign in with it. If you made this change, there is nothing to do. If you did not, undo it within 7 days here: ${d.undo} — this ends every session and asks for a new password.`,
      sms: (d) => `Tessera: ${d.value} was removed from your account. Not you? Undo it: ${d.undo}`,
    },
    primary_changed: {
      subject: 'The primary address of your Tessera account changed',
      body: (d) =>
        `The primary address of your Tessera account is now ${d.value}. Messages about your account go there from now on. If you made this change, there is nothing to do. If you did not, undo it within 7 days here: ${d.undo} — this ends every session and asks for a new password.`,
      sms: (d) => `Tessera: your primary number is now ${d.value}. Not you? Undo it: ${d.undo}`,
    },
    iban_changed: {
      subject: 'The bank account of your Tessera account was changed',
      body: (d) =>
        `The bank account of your Tessera account is now ${d.iban} (${d.country}). If you made this change, there is nothing to do. If you did not, sign in to Tessera now, change your password and check your bank account and your security settings.`,
      sms: (d) =>
        `Tessera: the bank account of your account is now ${d.iban}. Not you? Sign in and change your password now.`,
    },
  },
  fr: {
    accounts_merged: {
      subject: 'Un autre compte Tessera a été fusionné avec le vôtre',
      body: () =>
        "Un autre de vos comptes Tessera a été fusionné avec celui-ci : ses adresses e-mail, numéros de téléphone, cartes et méthodes de vérification se trouvent désormais sur ce compte, et seul votre mot de passe permet de se connecter. Si vous êtes à l'origine de cette fusion, vous n'avez rien à faire. Sinon, connectez-vous tout de suite à Tessera, changez votre mot de passe, vérifiez vos paramètres de sécurité et contactez notre support.",
      sms: () =>
        "Tessera : un autre compte a été fusionné avec le vôtre. Ce n'est pas vous ? Connectez-vous, changez votre mot de passe et contactez notre support.",
    },
    account_merged_away: {
      subject: 'Votre compte Tessera a été fusionné avec un autre compte',
      body: () =>
        "Ce compte Tessera a été fusionné avec un autre de vos comptes et il est désormais fermé : ses adresses e-mail, numéros de téléphone et cartes y ont été transférés, et vous vous connectez avec le mot de passe de cet autre compte. Si vous êtes à l'origine de cette fusion, vous n'avez rien à faire. Sinon, contactez tout de suite notre support.",
      sms: () =>
        "Tessera : ce compte a été fusionné avec un autre et il est fermé. Ce n'est pas vous ? Contactez tout de suite notre support.",
    },
    contact_added: {
      subject: 'Une adresse a été ajoutée à votre compte Tessera',
      body: (d) =>
        `${d.value} a été ajouté à votre compte Tessera : il permet désormais de se connecter. Si vous êtes à l'origine de ce changement, vous n'avez rien à faire. Sinon, annulez-le dans les 7 jours ici : ${d.undo} — toutes les sessions seront fermées et un nouveau mot de passe vous sera demandé.`,
      sms: (d) => `Tessera : ${d.value} a été ajouté à votre compte. Ce n'est pas vous ? Annulez : ${d.undo}`,
    },
    contact_removed: {
      subject: 'Cette adresse a été retirée de votre compte Tessera',
      body: (d) =>
        `${d.value} a été retiré de votre compte Tessera : il ne permet plus de se connecter. Si vous êtes à l'origine de ce changement, vous n'avez rien à faire. Sinon, annulez-le dans les 7 jours ici : ${d.undo} — toutes les sessions seront fermées et un nouveau mot de passe vous sera demandé.`,
      sms: (d) => `Tessera : ${d.value} a été retiré de votre compte. Ce n'est pas vous ? Annulez : ${d.undo}`,
    },
    primary_changed: {
      subject: "L'adresse principale de votre compte Tessera a changé",
      body: (d) =>
        `L'adresse principale de votre compte Tessera est désormais ${d.value}. Les messages concernant votre compte y seront envoyés. Si vous êtes à l'origine de ce changement, vous n'avez rien à faire. Sinon, annulez-le dans les 7 jours ici : ${d.undo} — toutes les sessions seront fermées et un nouveau mot de passe vous sera demandé.`,
      sms: (d) => `Tessera : votre numéro principal est désormais ${d.value}. Ce n'est pas vous ? Annulez : ${d.undo}`,
    },
    iban_changed: {
      subject: 'Le compte bancaire de votre compte Tessera a été modifié',
      body: (d) =>
        `Le compte bancaire de votre compte Tessera est désormais ${d.iban} (${d.country}). Si vous êtes à l'origine de ce changement, vous n'avez rien à faire. Sinon, connectez-vous tout de suite à Tessera, changez votre mot de passe et vérifiez votre compte bancaire et vos paramètres de sécurité.`,
      sms: (d) =>
        `Tessera : le compte bancaire de votre compte est désormais ${d.iban}. Ce n'est pas vous ? Connectez-vous et changez votre mot de passe.`,
    },
  },
  nl: {
    accounts_merged: {
      subject: 'Een ander Tessera-account werd met het uwe samengevoegd',
      body: () =>
        'Een ander Tessera-account van u werd met dit account samengevoegd: de e-mailadressen, telefoonnummers, kaarten en verificatiemethoden ervan staan nu op dit account, en alleen uw wachtwoord geeft nog toegang. Hebt u dit zelf gedaan? Dan hoeft u niets te doen. Zo niet, meld u dan meteen aan bij Tessera, wijzig uw wachtwoord, controleer uw beveiligingsinstellingen en neem contact op met onze support.',
      sms: () =>
        'Tessera: een ander account werd met het uwe samengevoegd. Was u dit niet? Meld u aan, wijzig uw wachtwoord en neem contact op met onze support.',
    },
    account_merged_away: {
      subject: 'Uw Tessera-account werd met een ander account samengevoegd',
      body: () =>
        'Dit Tessera-account werd met een ander account van u samengevoegd en is nu gesloten: de e-mailadressen, telefoonnummers en kaarten ervan staan nu daar, en u meldt u aan met het wachtwoord van dat account. Hebt u dit zelf gedaan? Dan hoeft u niets te doen. Zo niet, neem dan meteen contact op met onze support.',
      sms: () =>
        'Tessera: dit account werd met een ander samengevoegd en is gesloten. Was u dit niet? Neem meteen contact op met onze support.',
    },
    contact_added: {
      subject: 'Er is een adres toegevoegd aan uw Tessera-account',
      body: (d) =>
        `${d.value} is toegevoegd aan uw Tessera-account: u kunt er nu mee aanmelden. Hebt u dit zelf gedaan? Dan hoeft u niets te doen. Zo niet, maak het binnen 7 dagen ongedaan via ${d.undo} — alle sessies worden dan beëindigd en er wordt een nieuw wachtwoord gevraagd.`,
      sms: (d) => `Tessera: ${d.value} is toegevoegd aan uw account. Was u dit niet? Maak het ongedaan: ${d.undo}`,
    },
    contact_removed: {
      subject: 'Dit adres is verwijderd uit uw Tessera-account',
      body: (d) =>
        `${d.value} is verwijderd uit uw Tessera-account: u kunt er niet meer mee aanmelden. Hebt u dit zelf gedaan? Dan hoeft u niets te doen. Zo niet, maak het binnen 7 dagen ongedaan via ${d.undo} — alle sessies worden dan beëindigd en er wordt een nieuw wachtwoord gevraagd.`,
      sms: (d) => `Tessera: ${d.value} is verwijderd uit uw account. Was u dit niet? Maak het ongedaan: ${d.undo}`,
    },
    primary_changed: {
      subject: 'Het primaire adres van uw Tessera-account is gewijzigd',
      body: (d) =>
        `Het primaire adres van uw Tessera-account is nu ${d.value}. Berichten over uw account gaan voortaan daarheen. Hebt u dit zelf gedaan? Dan hoeft u niets te doen. Zo niet, maak het binnen 7 dagen ongedaan via ${d.undo} — alle sessies worden dan beëindigd en er wordt een nieuw wachtwoord gevraagd.`,
      sms: (d) => `Tessera: uw primaire nummer is nu ${d.value}. Was u dit niet? Maak het ongedaan: ${d.undo}`,
    },
    iban_changed: {
      subject: 'De bankrekening van uw Tessera-account is gewijzigd',
      body: (d) =>
        `De bankrekening van uw Tessera-account is nu ${d.iban} (${d.country}). Hebt u dit zelf gewijzigd? Dan hoeft u niets te doen. Zo niet, meld u dan meteen aan bij Tessera, wijzig uw wachtwoord en controleer uw bankrekening en uw beveiligingsinstellingen.`,
      sms: (d) =>
        `Tessera: de bankrekening van uw account is nu ${d.iban}. Was u dit niet? Meld u aan en wijzig uw wachtwoord.`,
    },
  },
  de: {
    accounts_merged: {
      subject: 'Ein anderes Tessera-Konto wurde mit Ihrem zusammengeführt',
      body: () =>
        'Ein anderes Tessera-Konto von Ihnen wurde mit diesem zusammengeführt: Seine E-Mail-Adressen, Telefonnummern, Karten und Verifizierungsmethoden befinden sich jetzt in diesem Konto, und nur Ihr Passwort meldet noch an. Wenn Sie das waren, ist nichts zu tun. Andernfalls melden Sie sich sofort bei Tessera an, ändern Sie Ihr Passwort, prüfen Sie Ihre Sicherheitseinstellungen und wenden Sie sich an unseren Support.',
      sms: () =>
        'Tessera: Ein anderes Konto wurde mit Ihrem zusammengeführt. Nicht Sie? Melden Sie sich an, ändern Sie Ihr Passwort und wenden Sie sich an unseren Support.',
    },
    account_merged_away: {
      subject: 'Ihr Tessera-Konto wurde mit einem anderen Konto zusammengeführt',
      body: () =>
        'Dieses Tessera-Konto wurde mit einem anderen Konto von Ihnen zusammengeführt und ist jetzt geschlossen: Seine E-Mail-Adressen, Telefonnummern und Karten befinden sich jetzt dort, und Sie melden sich mit dem Passwort jenes Kontos an. Wenn Sie das waren, ist nichts zu tun. Andernfalls wenden Sie sich sofort an unseren Support.',
      sms: () =>
        'Tessera: Dieses Konto wurde mit einem anderen zusammengeführt und ist geschlossen. Nicht Sie? Wenden Sie sich sofort an unseren Support.',
    },
    contact_added: {
      subject: 'Ihrem Tessera-Konto wurde eine Adresse hinzugefügt',
      body: (d) =>
        `${d.value} wurde Ihrem Tessera-Konto hinzugefügt: Sie können sich jetzt damit anmelden. Wenn Sie diese Änderung vorgenommen haben, ist nichts zu tun. Andernfalls machen Sie sie innerhalb von 7 Tagen hier rückgängig: ${d.undo} — dabei werden alle Sitzungen beendet und ein neues Passwort verlangt.`,
      sms: (d) => `Tessera: ${d.value} wurde Ihrem Konto hinzugefügt. Nicht Sie? Rückgängig machen: ${d.undo}`,
    },
    contact_removed: {
      subject: 'Diese Adresse wurde aus Ihrem Tessera-Konto entfernt',
      body: (d) =>
        `${d.value} wurde aus Ihrem Tessera-Konto entfernt: Sie können sich nicht mehr damit anmelden. Wenn Sie diese Änderung vorgenommen haben, ist nichts zu tun. Andernfalls machen Sie sie innerhalb von 7 Tagen hier rückgängig: ${d.undo} — dabei werden alle Sitzungen beendet und ein neues Passwort verlangt.`,
      sms: (d) => `Tessera: ${d.value} wurde aus Ihrem Konto entfernt. Nicht Sie? Rückgängig machen: ${d.undo}`,
    },
    primary_changed: {
      subject: 'Die primäre Adresse Ihres Tessera-Kontos wurde geändert',
      body: (d) =>
        `Die primäre Adresse Ihres Tessera-Kontos lautet jetzt ${d.value}. Nachrichten zu Ihrem Konto gehen ab jetzt dorthin. Wenn Sie diese Änderung vorgenommen haben, ist nichts zu tun. Andernfalls machen Sie sie innerhalb von 7 Tagen hier rückgängig: ${d.undo} — dabei werden alle Sitzungen beendet und ein neues Passwort verlangt.`,
      sms: (d) => `Tessera: Ihre primäre Nummer lautet jetzt ${d.value}. Nicht Sie? Rückgängig machen: ${d.undo}`,
    },
    iban_changed: {
      subject: 'Die Bankverbindung Ihres Tessera-Kontos wurde geändert',
      body: (d) =>
        `Die Bankverbindung Ihres Tessera-Kontos lautet jetzt ${d.iban} (${d.country}). Wenn Sie diese Änderung vorgenommen haben, ist nichts zu tun. Andernfalls melden Sie sich sofort bei Tessera an, ändern Sie Ihr Passwort und prüfen Sie Ihre Bankverbindung und Ihre Sicherheitseinstellungen.`,
      sms: (d) =>
        `Tessera: Die Bankverbindung Ihres Kontos lautet jetzt ${d.iban}. Nicht Sie? Melden Sie sich an und ändern Sie Ihr Passwort.`,
    },
  },
};

function textsFor(language: string): Record<NoticeKind, Notice> {
  const base = language.split(/[_-]/)[0]!.toLowerCase();
  return TEXTS[base as Language] ?? TEXTS.en;
}

/** The notice of a change, for an email or a text message, in the account's language. */
export function noticeMessage(
  language: string,
  kind: NoticeKind,
  detail: NoticeDetail,
  channel: Extract<Channel, 'email' | 'sms'>,
): { subject: string; body: string } {
  const notice = textsFor(language)[kind];
  return { subject: notice.subject, body: channel === 'email' ? notice.body(detail) : notice.sms(detail) };
}
