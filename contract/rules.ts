// Field rules shared by browser (to guide) and server (to enforce).
import type { MfaMethodKind, MfaMethodSummary } from './baseSchemas.ts';

/** Pragmatic email check: one @, no spaces, a dot in the domain, within RFC 5321 lengths. */
export function isEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at < 1 || at > 64) return false;
  // No quoting, comments or lists: characters a mailer reads as address syntax (`<`, `,`, `;`, …)
  // would let one typed address deliver to another.
  return /^[^\s@<>"(),;:\\[\]]+@[^\s@<>"(),;:\\[\]]+\.[^\s@.<>"(),;:\\[\]]{2,}$/.test(value);
}

/** Emails are compared case-insensitively; we store and look them up lower-cased and trimmed. */
export function normaliseEmail(value: string): string {
  return value.trim().toLowerCase();
}

/** A login name that is not an email is a phone number. */
export function looksLikeEmail(value: string): boolean {
  return value.includes('@');
}

/** Card numbers as typed ("5065 0000 0000 0001") without their spaces. */
export function normaliseCardNumber(value: string): string {
  return value.replace(/\s+/g, '');
}

/** Belgian card numbers: 16 digits starting with 5065 (spaces allowed in input). */
export function isCardNumber(value: string): boolean {
  return /^5065\d{12}$/.test(normaliseCardNumber(value));
}

/** A card's activation code, from the holder's letter: 4 to 12 letters and digits, spaces and dashes ignored. */
export function normaliseActivationCode(value: string): string {
  return value.replace(/[\s-]+/g, '').toUpperCase();
}

export function isActivationCode(value: string): boolean {
  return /^[A-Z0-9]{4,12}$/.test(normaliseActivationCode(value));
}

/** Invitation codes: 12 characters of Crockford's base 32, shown as XXXX-XXXX-XXXX. Typing is
 * forgiving: case, spaces and dashes do not matter, and O, I and L read as 0, 1 and 1. */
export const INVITATION_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function normaliseInvitationCode(value: string): string {
  return value
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
}

export function isInvitationCode(value: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{12}$/.test(normaliseInvitationCode(value));
}

/** How many digits make a code Tessera sends (by email, SMS, call or WhatsApp: to a method, an
 * onboarding's address, a new contact, a forgotten password). */
export const SENT_CODE_LENGTH = 8;

/** The methods answered by typing something (every one but a passkey). */
export type TypedMethodKind = Exclude<MfaMethodKind, 'passkey'>;
/** One of the account's methods that is answered by typing. */
export type TypedMethodSummary = MfaMethodSummary & { method: TypedMethodKind };

/** Whether a method is answered by typing: a passkey is answered by the browser instead. */
export const isTypedMethod = (method: MfaMethodSummary): method is TypedMethodSummary => method.method !== 'passkey';

/** A passkey's name, as its owner gave it (1 to 64 characters, once trimmed). */
export const PASSKEY_NAME_MAX = 64;

/** How many letters or digits make each method's answer complete. */
export const CODE_LENGTH = {
  email: SENT_CODE_LENGTH,
  sms: SENT_CODE_LENGTH,
  call: SENT_CODE_LENGTH,
  whatsapp: SENT_CODE_LENGTH,
  totp: 6,
  totpRecovery: 10,
  card: 16,
} as const satisfies Record<TypedMethodKind, number>;

/** A code Tessera sent, as a request carries it back. */
export const SENT_CODE_PATTERN = new RegExp(`^\\d{${SENT_CODE_LENGTH}}$`);

/** MFA code input: letters and digits only. */
export function sanitiseCodeInput(value: string): string {
  return value.replace(/[^A-Za-z0-9]/g, '');
}

/** Device id: what the browser keeps in local storage and sends on every call. */
export function isDeviceId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{8,128}$/.test(value);
}

/** How national numbers group after their country code, for the countries Tessera serves and their
 * neighbours (longer numbers go on in threes). Mobile and landline share a grouping here. */
const PHONE_GROUPS: Record<string, number[]> = {
  '32': [3, 2, 2, 2], // Belgium: +32 470 12 34 56
  '352': [3, 3, 3], // Luxembourg: +352 621 123 456
  '31': [1, 2, 2, 2, 2], // the Netherlands: +31 6 12 34 56 78
  '33': [1, 2, 2, 2, 2], // France: +33 6 12 34 56 78
  '49': [3, 4, 4], // Germany: +49 151 2345 6789
};

/** An E.164 number of those countries as people read it ("+32 470 12 34 56"); anything else (another
 * country's, a masked one) as it is: a wrong grouping would read worse than none. */
export function formatPhone(value: string): string {
  const match = /^\+(\d{7,15})$/.exec(value);
  const digits = match?.[1];
  const code = digits && Object.keys(PHONE_GROUPS).find((c) => digits.startsWith(c));
  if (!digits || !code) return value;
  const groups: string[] = [];
  let rest = digits.slice(code.length);
  for (const size of PHONE_GROUPS[code]!) {
    if (rest.length <= size) break;
    groups.push(rest.slice(0, size));
    rest = rest.slice(size);
  }
  while (rest.length > 4) {
    groups.push(rest.slice(0, 3));
    rest = rest.slice(3);
  }
  return ['+' + code, ...groups, rest].filter(Boolean).join(' ');
}
