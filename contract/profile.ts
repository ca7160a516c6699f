// The profile's rules, shared by the browser (to guide) and the server (to enforce): names, the
// birth date, the genders offered, and the bank account (IBAN with its country); and the requests
// that change them (apart from contract/schemas.ts, which the first screen loads).
import * as v from 'valibot';
import { LOCALES } from './constants.ts';
import { text } from './baseSchemas.ts';
/** A person's name: letters of any script with their marks, and the spaces, apostrophes, hyphens
 * and dots that names carry ("Anne-Sophie", "O'Neill", "Jr."); 1 to 100 characters. */
const NAME = /^[\p{L}\p{M}][\p{L}\p{M}' ’.-]*$/u;
export const NAME_MAX_LENGTH = 100;

/** The name as stored: composed (NFC), trimmed, inner runs of spaces made one. */
export function normaliseName(value: string): string {
  return value.normalize('NFC').trim().replace(/\s+/g, ' ');
}

export type NameProblem = 'required' | 'too_long' | 'invalid';

export function nameProblem(value: string): NameProblem | null {
  const name = normaliseName(value);
  if (!name) return 'required';
  if (name.length > NAME_MAX_LENGTH) return 'too_long';
  return NAME.test(name) ? null : 'invalid';
}

export const GENDERS = ['female', 'male', 'other'] as const;
export type Gender = (typeof GENDERS)[number];

/** The earliest birth date taken: nobody alive was born before it. */
const EARLIEST_BIRTHDATE = '1900-01-01';

export type BirthdateProblem = 'invalid' | 'future' | 'too_early';

/** A birth date is a real calendar day (YYYY-MM-DD), not after `today` (YYYY-MM-DD, UTC), not before 1900. */
export function birthdateProblem(value: string, today: string): BirthdateProblem | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'invalid';
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) return 'invalid';
  if (value > today) return 'future';
  return value < EARLIEST_BIRTHDATE ? 'too_early' : null;
}

/** The European countries of the IBAN registry that an account may hold its bank account in. */
export const IBAN_COUNTRIES = [
  'AD',
  'AL',
  'AT',
  'BA',
  'BE',
  'BG',
  'BY',
  'CH',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FO',
  'FR',
  'GB',
  'GI',
  'GR',
  'HR',
  'HU',
  'IE',
  'IS',
  'IT',
  'LI',
  'LT',
  'LU',
  'LV',
  'MC',
  'MD',
  'ME',
  'MK',
  'MT',
  'NL',
  'NO',
  'PL',
  'PT',
  'RO',
  'RS',
  'SE',
  'SI',
  'SK',
  'SM',
  'UA',
  'VA',
  'XK',
] as const;
export type IbanCountry = (typeof IBAN_COUNTRIES)[number];

export const isIbanCountry = (value: string): value is IbanCountry =>
  (IBAN_COUNTRIES as readonly string[]).includes(value);

/** How an IBAN is shown once saved: the country and check digits, then only the last four
 * characters ("BE68 •••• •••• 7034"), grouped by four as it is printed. */
export function maskIban(iban: string): string {
  const hidden = iban.slice(0, 4) + '•'.repeat(Math.max(0, iban.length - 8)) + iban.slice(-4);
  return hidden.replace(/(.{4})(?=.)/g, '$1 ');
}

/** PUT /user: the personal information (contract/profile.ts holds the rules of each field). */
export const ProfileInfoRequest = v.strictObject({
  firstname: text(200),
  lastname: text(200),
  /** YYYY-MM-DD, or null for none. */
  birthdate: v.nullable(text(10)),
  gender: v.nullable(v.picklist(GENDERS)),
  language: v.picklist(LOCALES),
});
export type ProfileInfoRequest = v.InferOutput<typeof ProfileInfoRequest>;

/** PUT /user/iban: the bank account, in one of the European countries of the IBAN registry. The
 * country may be left out (or empty): the IBAN names its own. */
export const IbanRequest = v.strictObject({ country: v.optional(v.picklist(['', ...IBAN_COUNTRIES])), iban: text(64) });
export type IbanRequest = v.InferOutput<typeof IbanRequest>;

/** An email or a phone number of the account (exactly one of the two). */
export const ContactRequest = v.strictObject({ email: v.optional(text(320)), phone: v.optional(text(40)) });
export type ContactRequest = v.InferOutput<typeof ContactRequest>;

/** POST /user/login: a new address or number; a number's code may go by SMS, call or WhatsApp. */
export const AddContactRequest = v.strictObject({
  email: v.optional(text(320)),
  phone: v.optional(text(40)),
  channel: v.optional(v.picklist(['sms', 'call', 'whatsapp'])),
});
export type AddContactRequest = v.InferOutput<typeof AddContactRequest>;

export const AddContactAnswer = v.object({
  payload: v.string(),
  data: v.object({
    kind: v.picklist(['email', 'phone']),
    target: v.string(),
    expires_at: v.string(),
    expires_in: v.number(),
    resend_at: v.optional(v.string()),
    resend_in: v.optional(v.number()),
  }),
});
export type AddContactAnswer = v.InferOutput<typeof AddContactAnswer>;

/** POST /user/login/confirm: the code the new address or number received. */
export const ConfirmContactRequest = v.strictObject({ payload: text(200, 1), code: text(16, 1) });
export type ConfirmContactRequest = v.InferOutput<typeof ConfirmContactRequest>;

/** A card's voucher products (spec §4 "Product card toggle"): activ, eco, emv (meal) and gift. */
export const CARD_PRODUCTS = ['emv', 'eco', 'gift', 'activ'] as const;
export type CardProduct = (typeof CARD_PRODUCTS)[number];

/** How a card number is shown: its last four digits only. */
export function maskCardNumber(number: string): string {
  return `•••• •••• •••• ${number.slice(-4)}`;
}

export const AccountCard = v.object({
  id: v.string(),
  /** Masked (maskCardNumber). */
  number: v.string(),
  products: v.array(v.object({ product: v.picklist(CARD_PRODUCTS), active: v.boolean() })),
});
export type AccountCard = v.InferOutput<typeof AccountCard>;
export const AccountCardList = v.object({ data: v.array(AccountCard) });
export const AccountCardAnswer = v.object({ data: AccountCard });

export const CardProductParams = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  product: v.picklist(CARD_PRODUCTS),
});
export type CardProductParams = v.InferOutput<typeof CardProductParams>;
export const CardProductRequest = v.strictObject({ active: v.boolean() });
export type CardProductRequest = v.InferOutput<typeof CardProductRequest>;

/** POST /account/undo: the token of a change notice's link ("this wasn't me"). */
export const UndoChangeRequest = v.strictObject({ token: text(200, 16) });
export type UndoChangeRequest = v.InferOutput<typeof UndoChangeRequest>;
export const UndoChangeAnswer = v.object({ undone: v.picklist(['added', 'removed', 'primary']) });
