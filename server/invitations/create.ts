// Creating an invitation (`npm run cli -- invitations create`): a code for one person, good for one
// account until it expires. The code is returned once, to be mailed; only its keyed hash is stored.
import { LOCALES, type Locale } from '../../contract/constants.ts';
import { isEmail, isInvitationCode, normaliseEmail } from '../../contract/rules.ts';
import { nowIso, type Db } from '../db/index.ts';
import { invitationCodeHash, newInvitationCode } from '../methods/invitation-code.ts';

export const DEFAULT_INVITATION_DAYS = 14;
export const MAX_INVITATION_DAYS = 90;
/** Longest free-text value (names, company, platform ids), after trimming. */
export const MAX_TEXT_LENGTH = 100;

export type InvitationInput = {
  email: string;
  firstname?: string | null;
  lastname?: string | null;
  language?: string | null;
  company?: string | null;
  /** Consumer platform, client area and Fridom ids the new account gets. */
  userId?: string | null;
  customerUserId?: string | null;
  fridomUserId?: string | null;
  mfaForced?: boolean;
  mfaCustomer?: boolean;
  /** Days the code stays valid: 1 to 90, 14 by default. */
  days?: number;
  /** A code of our own choosing instead of a random one: published demo codes, tests. */
  code?: string;
};

export type InvitationField =
  'email' | 'firstname' | 'lastname' | 'language' | 'company' | 'userId' | 'customerUserId' | 'fridomUserId' | 'days';

/** A value of the input is not acceptable; `field` names it. */
export class InvitationInputError extends Error {
  readonly field: InvitationField;
  constructor(field: InvitationField, message: string) {
    super(message);
    this.name = 'InvitationInputError';
    this.field = field;
  }
}

const LOCALE_BY_KEY = new Map<string, Locale>(LOCALES.map((locale) => [locale.toLowerCase(), locale]));

export type CheckedInvitation = {
  email: string;
  language: Locale | null;
  days: number;
  firstname: string | null;
  lastname: string | null;
  company: string | null;
  user_id: string | null;
  customer_user_id: string | null;
  fridom_user_id: string | null;
  mfa_forced: 0 | 1;
  mfa_customer: 0 | 1;
};

/** Validates and normalises an invitation's values; throws InvitationInputError naming the first bad one. */
export function checkInvitationInput(input: InvitationInput): CheckedInvitation {
  const email = normaliseEmail(input.email);
  if (!isEmail(email)) throw new InvitationInputError('email', `"${input.email}" is not a valid email address`);

  let language: Locale | null = null;
  if (input.language != null && input.language.trim() !== '') {
    language = LOCALE_BY_KEY.get(input.language.trim().toLowerCase().replace('-', '_')) ?? null;
    if (!language)
      throw new InvitationInputError('language', `"${input.language}" is not one of ${LOCALES.join(', ')}`);
  }

  const days = input.days ?? DEFAULT_INVITATION_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MAX_INVITATION_DAYS) {
    throw new InvitationInputError(
      'days',
      `must be a whole number of days from 1 to ${MAX_INVITATION_DAYS} (got ${days})`,
    );
  }

  const text = (field: 'firstname' | 'lastname' | 'company' | 'userId' | 'customerUserId' | 'fridomUserId') => {
    const value = input[field]?.trim() ?? '';
    if ([...value].length > MAX_TEXT_LENGTH)
      throw new InvitationInputError(field, `is longer than ${MAX_TEXT_LENGTH} characters`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value))
      throw new InvitationInputError(field, 'contains a line break or another control character');
    return value === '' ? null : value;
  };

  return {
    email,
    language,
    days,
    firstname: text('firstname'),
    lastname: text('lastname'),
    company: text('company'),
    user_id: text('userId'),
    customer_user_id: text('customerUserId'),
    fridom_user_id: text('fridomUserId'),
    mfa_forced: input.mfaForced ? 1 : 0,
    mfa_customer: input.mfaCustomer ? 1 : 0,
  };
}

/** Stores a new invitation; gives its code, which exists nowhere else (only its keyed hash is stored). */
export async function createInvitation(
  db: Db,
  secretKey: string,
  input: InvitationInput,
  now = Date.now(),
): Promise<{ id: string; code: string; email: string; expiresAt: string }> {
  const { days, ...values } = checkInvitationInput(input);
  if (input.code !== undefined && !isInvitationCode(input.code))
    throw new Error(`"${input.code}" is not an invitation code`);
  const code = input.code ?? newInvitationCode();
  const id = crypto.randomUUID();
  const expiresAt = nowIso(now + days * 86_400_000);
  await db
    .insertInto('invitations')
    .values({
      id,
      code_hash: invitationCodeHash(secretKey, code),
      ...values,
      expires_at: expiresAt,
      used_at: null,
      used_by: null,
      created_at: nowIso(now),
    })
    .execute();
  return { id, code, email: values.email, expiresAt };
}
