// The texts Tessera sends, in the user's language. Both variants' locales are served: en_LU,
// fr_LU and de_LU speak their language's text (en, fr, de), nl and the rest likewise; anything
// unknown gets English. A voice call reads the digits one by one, twice.
import type { Channel } from './index.ts';

/** Why a code is sent: a sign-in or step-up ('login', 'sudo'), a new method ('activate'), a forgotten
 * password ('reset'), the address or number of a new account ('onboarding'), one added to an
 * account ('contact'), one of another account about to be merged into this one ('merge'). */
export type MessagePurpose = 'login' | 'sudo' | 'activate' | 'reset' | 'onboarding' | 'contact' | 'merge';

type Language = 'en' | 'fr' | 'nl' | 'de';
type Texts = {
  minutes: (m: number) => string;
  subject: { code: string; activate: string; reset: string; onboarding: string; contact: string; merge: string };
  body: {
    code: (code: string, valid: string) => string;
    activate: (code: string, valid: string, what: 'email' | 'phone') => string;
    reset: (code: string, valid: string) => string;
    onboarding: (code: string, valid: string, what: 'email' | 'phone') => string;
    contact: (code: string, valid: string, what: 'email' | 'phone') => string;
    merge: (code: string, valid: string, what: 'email' | 'phone') => string;
  };
  voice: (digits: string) => string;
};

const TEXTS: Record<Language, Texts> = {
  en: {
    minutes: (m) => `${m} ${m === 1 ? 'minute' : 'minutes'}`,
    subject: {
      code: 'Your Tessera security code',
      activate: 'Confirm your new Tessera verification method',
      reset: 'Reset your Tessera password',
      onboarding: 'Confirm your details for your new Tessera account',
      contact: 'Confirm the address you add to your Tessera account',
      merge: 'Confirm that this Tessera account is yours',
    },
    body: {
      code: (c, v) => `Your Tessera security code is ${c}. It is valid for ${v}. Never share it with anyone.`,
      activate: (c, v, what) =>
        `Your code to confirm this ${what === 'email' ? 'email address' : 'phone number'} for two-step verification on Tessera is ${c}. It is valid for ${v}. If you did not ask for it, ignore this message.`,
      reset: (c, v) =>
        `Your code to reset your Tessera password is ${c}. It is valid for ${v}. If you did not ask for it, ignore this message: your password stays the same.`,
      onboarding: (c, v, what) =>
        `Your code to confirm this ${what === 'email' ? 'email address' : 'phone number'} for your new Tessera account is ${c}. It is valid for ${v}. If you did not ask for it, ignore this message: nothing changes.`,
      contact: (c, v, what) =>
        `Your code to add this ${what === 'email' ? 'email address' : 'phone number'} to your Tessera account is ${c}. It is valid for ${v}. If you did not ask for it, ignore this message: nothing changes.`,
      merge: (c, v, what) =>
        `Your code to confirm that the Tessera account of this ${what === 'email' ? 'email address' : 'phone number'} is yours, and to merge it with your other account, is ${c}. It is valid for ${v}. If you did not ask for it, do not share it with anyone and ignore this message: nothing changes.`,
    },
    voice: (d) =>
      `Hello, this is Tessera. Your security code is: ${d}. Once again: ${d}. Never share it with anyone. Goodbye.`,
  },
  fr: {
    minutes: (m) => `${m} ${m === 1 ? 'minute' : 'minutes'}`,
    subject: {
      code: 'Votre code de sécurité Tessera',
      activate: 'Confirmez votre nouvelle méthode de vérification Tessera',
      reset: 'Réinitialisation de votre mot de passe Tessera',
      onboarding: 'Confirmez vos coordonnées pour votre nouveau compte Tessera',
      contact: "Confirmez l'adresse que vous ajoutez à votre compte Tessera",
      merge: 'Confirmez que ce compte Tessera est le vôtre',
    },
    body: {
      code: (c, v) =>
        `Votre code de sécurité Tessera est ${c}. Il est valable ${v}. Ne le communiquez jamais à personne.`,
      activate: (c, v, what) =>
        `Votre code pour confirmer ${what === 'email' ? 'cette adresse e-mail' : 'ce numéro de téléphone'} pour la vérification en deux étapes sur Tessera est ${c}. Il est valable ${v}. Si vous ne l'avez pas demandé, ignorez ce message.`,
      reset: (c, v) =>
        `Votre code pour réinitialiser votre mot de passe Tessera est ${c}. Il est valable ${v}. Si vous ne l'avez pas demandé, ignorez ce message : votre mot de passe reste inchangé.`,
      onboarding: (c, v, what) =>
        `Votre code pour confirmer ${what === 'email' ? 'cette adresse e-mail' : 'ce numéro de téléphone'} pour votre nouveau compte Tessera est ${c}. Il est valable ${v}. Si vous ne l'avez pas demandé, ignorez ce message : rien ne change.`,
      contact: (c, v, what) =>
        `Votre code pour ajouter ${what === 'email' ? 'cette adresse e-mail' : 'ce numéro de téléphone'} à votre compte Tessera est ${c}. Il est valable ${v}. Si vous ne l'avez pas demandé, ignorez ce message : rien ne change.`,
      merge: (c, v, what) =>
        `Votre code pour confirmer que le compte Tessera de ${what === 'email' ? 'cette adresse e-mail' : 'ce numéro de téléphone'} est le vôtre, et pour le fusionner avec votre autre compte, est ${c}. Il est valable ${v}. Si vous ne l'avez pas demandé, ne le communiquez à personne et ignorez ce message : rien ne change.`,
    },
    voice: (d) =>
      `Bonjour, ici Tessera. Votre code de sécurité est : ${d}. Je répète : ${d}. Ne le communiquez jamais à personne. Au revoir.`,
  },
  nl: {
    minutes: (m) => `${m} ${m === 1 ? 'minuut' : 'minuten'}`,
    subject: {
      code: 'Uw Tessera-beveiligingscode',
      activate: 'Bevestig uw nieuwe verificatiemethode bij Tessera',
      reset: 'Uw Tessera-wachtwoord opnieuw instellen',
      onboarding: 'Bevestig uw gegevens voor uw nieuwe Tessera-account',
      contact: 'Bevestig het adres dat u aan uw Tessera-account toevoegt',
      merge: 'Bevestig dat dit Tessera-account van u is',
    },
    body: {
      code: (c, v) => `Uw Tessera-beveiligingscode is ${c}. Hij is ${v} geldig. Deel hem nooit met iemand.`,
      activate: (c, v, what) =>
        `Uw Tessera-beveiligingscode om ${what === 'email' ? 'dit e-mailadres' : 'dit telefoonnummer'} te bevestigen voor verificatie in twee stappen is ${c}. Hij is ${v} geldig. Hebt u hier niet om gevraagd? Negeer dan dit bericht.`,
      reset: (c, v) =>
        `Uw code om uw Tessera-wachtwoord opnieuw in te stellen is ${c}. Hij is ${v} geldig. Hebt u hier niet om gevraagd? Negeer dan dit bericht: uw wachtwoord blijft ongewijzigd.`,
      onboarding: (c, v, what) =>
        `Uw code om ${what === 'email' ? 'dit e-mailadres' : 'dit telefoonnummer'} te bevestigen voor uw nieuwe Tessera-account is ${c}. Hij is ${v} geldig. Hebt u hier niet om gevraagd? Negeer dan dit bericht: er verandert niets.`,
      contact: (c, v, what) =>
        `Uw code om ${what === 'email' ? 'dit e-mailadres' : 'dit telefoonnummer'} aan uw Tessera-account toe te voegen is ${c}. Hij is ${v} geldig. Hebt u hier niet om gevraagd? Negeer dan dit bericht: er verandert niets.`,
      merge: (c, v, what) =>
        `Uw code om te bevestigen dat het Tessera-account van ${what === 'email' ? 'dit e-mailadres' : 'dit telefoonnummer'} van u is, en om het met uw andere account samen te voegen, is ${c}. Hij is ${v} geldig. Hebt u hier niet om gevraagd? Deel hem dan met niemand en negeer dit bericht: er verandert niets.`,
    },
    voice: (d) =>
      `Goedendag, hier is Tessera. Uw beveiligingscode is: ${d}. Ik herhaal: ${d}. Deel hem nooit met iemand. Tot ziens.`,
  },
  de: {
    minutes: (m) => `${m} ${m === 1 ? 'Minute' : 'Minuten'}`,
    subject: {
      code: 'Ihr Tessera-Sicherheitscode',
      activate: 'Bestätigen Sie Ihre neue Verifizierungsmethode bei Tessera',
      reset: 'Ihr Tessera-Passwort zurücksetzen',
      onboarding: 'Bestätigen Sie Ihre Angaben für Ihr neues Tessera-Konto',
      contact: 'Bestätigen Sie die Adresse, die Sie Ihrem Tessera-Konto hinzufügen',
      merge: 'Bestätigen Sie, dass dieses Tessera-Konto Ihnen gehört',
    },
    body: {
      code: (c, v) => `Ihr Tessera-Sicherheitscode lautet ${c}. Er ist ${v} gültig. Geben Sie ihn niemals weiter.`,
      activate: (c, v, what) =>
        `Ihr Code zur Bestätigung ${what === 'email' ? 'dieser E-Mail-Adresse' : 'dieser Telefonnummer'} für die Zwei-Faktor-Authentifizierung bei Tessera lautet ${c}. Er ist ${v} gültig. Falls Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht.`,
      reset: (c, v) =>
        `Ihr Code zum Zurücksetzen Ihres Tessera-Passworts lautet ${c}. Er ist ${v} gültig. Falls Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht: Ihr Passwort bleibt unverändert.`,
      onboarding: (c, v, what) =>
        `Ihr Code zur Bestätigung ${what === 'email' ? 'dieser E-Mail-Adresse' : 'dieser Telefonnummer'} für Ihr neues Tessera-Konto lautet ${c}. Er ist ${v} gültig. Falls Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht: Es ändert sich nichts.`,
      contact: (c, v, what) =>
        `Ihr Code, um ${what === 'email' ? 'diese E-Mail-Adresse' : 'diese Telefonnummer'} Ihrem Tessera-Konto hinzuzufügen, lautet ${c}. Er ist ${v} gültig. Falls Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht: Es ändert sich nichts.`,
      merge: (c, v, what) =>
        `Ihr Code, um zu bestätigen, dass das Tessera-Konto ${what === 'email' ? 'dieser E-Mail-Adresse' : 'dieser Telefonnummer'} Ihnen gehört, und um es mit Ihrem anderen Konto zusammenzuführen, lautet ${c}. Er ist ${v} gültig. Falls Sie ihn nicht angefordert haben, geben Sie ihn niemandem weiter und ignorieren Sie diese Nachricht: Es ändert sich nichts.`,
    },
    voice: (d) =>
      `Guten Tag, hier ist Tessera. Ihr Sicherheitscode lautet: ${d}. Ich wiederhole: ${d}. Geben Sie ihn niemals weiter. Auf Wiederhören.`,
  },
};

/** The language of the texts for a locale: its first part, if we write it; English otherwise. */
function textsLanguage(language: string): Language {
  const base = language.split(/[_-]/)[0]!.toLowerCase();
  return base in TEXTS ? (base as Language) : 'en';
}

function textsFor(language: string): Texts {
  return TEXTS[textsLanguage(language)];
}

/** The message carrying a one-time code, for its purpose and channel, in the user's language. */
export function codeMessage(
  language: string,
  code: string,
  ttlSeconds: number,
  options: { purpose?: MessagePurpose; channel?: Channel } = {},
): { subject: string; body: string } {
  const texts = textsFor(language);
  const purpose = options.purpose ?? 'login';
  const kind =
    purpose === 'activate' ||
    purpose === 'reset' ||
    purpose === 'onboarding' ||
    purpose === 'contact' ||
    purpose === 'merge'
      ? purpose
      : 'code';
  const subject = texts.subject[kind];
  if (options.channel === 'call') return { subject, body: texts.voice(code.split('').join(', ')) };
  const valid = texts.minutes(Math.max(1, Math.round(ttlSeconds / 60)));
  const what = options.channel === 'email' ? 'email' : 'phone';
  const body =
    kind === 'activate' || kind === 'onboarding' || kind === 'contact' || kind === 'merge'
      ? texts.body[kind](code, valid, what)
      : texts.body[kind](code, valid);
  return { subject, body };
}

/** The mail to a partner application's administrator when someone asks for access to it. The
 * administrator's language is not known (a client registers only an address), so it is English. */
export function accessRequestMessage(request: {
  application: string;
  clientId: string;
  name: string;
  email: string | null;
}): { subject: string; body: string } {
  const who = request.email ? `${request.name} (${request.email})` : request.name;
  return {
    subject: `Access request for ${request.application}`,
    body: [
      `${who} asks for access to ${request.application} (client ${request.clientId}) through their Tessera account.`,
      'If this person should have access, give it to their account in your administration of the application.',
      'If you do not know this person, you can ignore this message.',
    ].join('\n\n'),
  };
}

/** A sign-in from a new device, in words: its browser and system, the place (the country, and the
 * city where known) and the time (each "unknown" when not known), and the link that ends that sign-in when it was not the person's. */
export type NewDeviceFacts = {
  browser: string | null;
  os: string | null;
  country: string | null;
  city: string | null;
  at: string;
  notMeLink: string;
};

type NewDeviceTexts = {
  unknown: string;
  subject: string;
  body: (device: string, where: string, when: string, link: string) => string;
};

const NEW_DEVICE_TEXTS: Record<Language, NewDeviceTexts> = {
  en: {
    unknown: 'unknown',
    subject: 'New sign-in to your Tessera account',
    body: (device, where, when, link) =>
      `Your Tessera account was signed in to from a device it had not used before.\n\nDevice: ${device}\nPlace: ${where}\nTime: ${when}\n\nIf this was you, there is nothing to do.\n\nIf it was not you, open this link: it signs that device out and leads you to choose a new password.\n${link}`,
  },
  fr: {
    unknown: 'inconnu',
    subject: 'Nouvelle connexion à votre compte Tessera',
    body: (device, where, when, link) =>
      `Une connexion à votre compte Tessera a eu lieu depuis un appareil encore jamais utilisé.\n\nAppareil : ${device}\nLieu : ${where}\nHeure : ${when}\n\nSi c'était vous, il n'y a rien à faire.\n\nSi ce n'était pas vous, ouvrez ce lien : il déconnecte cet appareil et vous conduit au choix d'un nouveau mot de passe.\n${link}`,
  },
  nl: {
    unknown: 'onbekend',
    subject: 'Nieuwe aanmelding bij uw Tessera-account',
    body: (device, where, when, link) =>
      `Er werd bij uw Tessera-account aangemeld vanaf een apparaat dat nog nooit gebruikt werd.\n\nApparaat: ${device}\nPlaats: ${where}\nTijdstip: ${when}\n\nWas u dit? Dan hoeft u niets te doen.\n\nWas u dit niet? Open dan deze link: hij meldt dat apparaat af en leidt u naar een nieuw wachtwoord.\n${link}`,
  },
  de: {
    unknown: 'unbekannt',
    subject: 'Neue Anmeldung bei Ihrem Tessera-Konto',
    body: (device, where, when, link) =>
      `Bei Ihrem Tessera-Konto wurde sich von einem Gerät angemeldet, das noch nie verwendet wurde.\n\nGerät: ${device}\nOrt: ${where}\nZeit: ${when}\n\nWaren Sie das, ist nichts zu tun.\n\nWaren Sie das nicht, öffnen Sie diesen Link: Er meldet das Gerät ab und führt Sie zur Wahl eines neuen Passworts.\n${link}`,
  },
};

/** The mail about a sign-in from a new device, in the user's language (times in Brussels and
 * Luxembourg's zone, which the two variants share). */
export function newDeviceMessage(language: string, facts: NewDeviceFacts): { subject: string; body: string } {
  const base = language.split(/[_-]/)[0]!.toLowerCase();
  const texts = NEW_DEVICE_TEXTS[base as Language] ?? NEW_DEVICE_TEXTS.en;
  const locale = language.replace('_', '-');
  const device = [facts.browser, facts.os].filter(Boolean).join(', ') || texts.unknown;
  const country = facts.country
    ? (new Intl.DisplayNames(locale, { type: 'region' }).of(facts.country) ?? facts.country)
    : texts.unknown;
  // "Brussels, Belgium" reads the same way in the four languages.
  const where = facts.city ? `${facts.city}, ${country}` : country;
  const when = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'Europe/Brussels',
    timeZoneName: 'short',
  }).format(new Date(facts.at));
  return { subject: texts.subject, body: texts.body(device, where, when, facts.notMeLink) };
}

/** The notice that the account's password changed (by the person signed in, or through a forgotten
 * password), in the account's language: whoever did not change it learns it at once. */
export function passwordChangedMessage(language: string): { subject: string; body: string } {
  return PASSWORD_CHANGED[textsLanguage(language)];
}

const PASSWORD_CHANGED: Record<Language, { subject: string; body: string }> = {
  en: {
    subject: 'Your Tessera password was changed',
    body: 'The password of your Tessera account was just changed, and you were signed out everywhere else. If you did this, there is nothing more to do. If you did not, reset your password at once with "Forgot your password?" on the sign-in page, and contact our support.',
  },
  fr: {
    subject: 'Votre mot de passe Tessera a été modifié',
    body: "Le mot de passe de votre compte Tessera vient d'être modifié, et vous avez été déconnecté partout ailleurs. Si c'est vous, vous n'avez rien d'autre à faire. Sinon, réinitialisez tout de suite votre mot de passe avec « Mot de passe oublié ? » sur la page de connexion, et contactez notre support.",
  },
  nl: {
    subject: 'Uw Tessera-wachtwoord is gewijzigd',
    body: 'Het wachtwoord van uw Tessera-account is zonet gewijzigd, en u bent overal elders afgemeld. Hebt u dit zelf gedaan? Dan hoeft u niets meer te doen. Zo niet, stel dan meteen een nieuw wachtwoord in met "Wachtwoord vergeten?" op de aanmeldpagina, en neem contact op met onze support.',
  },
  de: {
    subject: 'Ihr Tessera-Passwort wurde geändert',
    body: 'Das Passwort Ihres Tessera-Kontos wurde soeben geändert, und Sie wurden überall sonst abgemeldet. Wenn Sie das waren, müssen Sie nichts weiter tun. Falls nicht, setzen Sie Ihr Passwort sofort mit „Passwort vergessen?“ auf der Anmeldeseite zurück und wenden Sie sich an unseren Support.',
  },
};
