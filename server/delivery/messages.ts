// The texts Tessera sends, in the user's language: i18next resources in locales/server/ (messages.*),
// rendered by the server's instance (./i18n.ts). A voice call reads the digits one by one, twice.
import { textsIn } from './i18n.ts';
import type { Channel } from './index.ts';

/** Why a code is sent: a sign-in or step-up ('login', 'sudo'), a new method ('activate'), a forgotten
 * password ('reset'), the address or number of a new account ('onboarding'), one added to an
 * account ('contact'), one of another account about to be merged into this one ('merge'). */
export type MessagePurpose = 'login' | 'sudo' | 'activate' | 'reset' | 'onboarding' | 'contact' | 'merge';

/** The message carrying a one-time code, for its purpose and channel, in the user's language; `host`:
 * the origin an SMS binds its code to. */
export function codeMessage(
  language: string,
  code: string,
  ttlSeconds: number,
  options: { purpose?: MessagePurpose; channel?: Channel; host?: string } = {},
): { subject: string; body: string } {
  const t = textsIn(language);
  const purpose = options.purpose ?? 'login';
  const kind = purpose === 'login' || purpose === 'sudo' ? 'code' : purpose;
  const subject = t(`messages.${kind}.subject`);
  if (options.channel === 'call') return { subject, body: t('messages.voice', { digits: code.split('').join(', ') }) };
  const valid = t('messages.minutes', { count: Math.max(1, Math.round(ttlSeconds / 60)) });
  // The sentence names what it confirms: an address, or a number for any other channel.
  const context = options.channel === 'email' ? 'email' : 'phone';
  const body = t(`messages.${kind}.body`, { code, valid, context });
  // An SMS ends with its origin-bound line ("@host #code", WICG sms-one-time-codes): the phone's
  // browser offers the code to that host's page only (WebOTP, one-time-code autofill).
  return { subject, body: options.host ? `${body}\n\n@${options.host} #${code}` : body };
}

/** The mail to a partner application's administrator when someone asks for access to it. The
 * administrator's language is not known (a client registers only an address), so it is English. */
export function accessRequestMessage(request: {
  application: string;
  clientId: string;
  name: string;
  email: string | null;
}): { subject: string; body: string } {
  const t = textsIn('en');
  const { application, clientId, name, email } = request;
  return {
    subject: t('messages.accessRequest.subject', { application }),
    body: t('messages.accessRequest.body', {
      application,
      clientId,
      name,
      email,
      context: email ? 'email' : undefined,
    }),
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

/** The mail about a sign-in from a new device, in the user's language (times in Brussels and
 * Luxembourg's zone, which the two variants share). */
export function newDeviceMessage(language: string, facts: NewDeviceFacts): { subject: string; body: string } {
  const t = textsIn(language);
  const unknown = t('messages.newDevice.unknown');
  const locale = language.replace('_', '-');
  // The names of a browser and a system, as they call themselves.
  const device = [facts.browser, facts.os].filter(Boolean).join(', ') || unknown;
  const country = facts.country
    ? (new Intl.DisplayNames(locale, { type: 'region' }).of(facts.country) ?? facts.country)
    : unknown;
  const place = t('messages.newDevice.place', { city: facts.city, country, context: facts.city ? 'city' : undefined });
  const time = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'Europe/Brussels',
    timeZoneName: 'short',
  }).format(new Date(facts.at));
  return {
    subject: t('messages.newDevice.subject'),
    body: t('messages.newDevice.body', { device, place, time, link: facts.notMeLink }),
  };
}

/** The notice that the account's password changed (by the person signed in, or through a forgotten
 * password), in the account's language: whoever did not change it learns it at once. */
export function passwordChangedMessage(language: string): { subject: string; body: string } {
  const t = textsIn(language);
  return { subject: t('messages.passwordChanged.subject'), body: t('messages.passwordChanged.body') };
}
