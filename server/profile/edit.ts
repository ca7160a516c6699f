// Changes to the profile: the personal information (names, birth date, gender, language) and the
// bank account. The rules are contract/profile.ts's, enforced here whatever the browser sent.
import { ibanFor } from '../../contract/iban.ts';
import {
  birthdateProblem,
  maskIban,
  nameProblem,
  normaliseName,
  type IbanRequest,
  type ProfileInfoRequest,
} from '../../contract/profile.ts';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { noticeMessage } from '../delivery/notices.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { setIban, updatePersonalInfo } from '../identity/accounts.ts';

/** Notices of a change stay worth sending for a day; after that they would only confuse. */
const NOTICE_TTL_S = 24 * 3600;

type Where = { ip: string | null; deviceKey: string | null };

/** Saves the personal information, or refuses it whole with each field's problem. The language is
 * the one the account's messages are sent in too. */
export async function saveInfo(
  ctx: AppContext,
  userId: string,
  input: ProfileInfoRequest,
  where: Where,
): Promise<void> {
  const today = nowIso().slice(0, 10);
  const fields: { field: string; code: string }[] = [];
  for (const field of ['firstname', 'lastname'] as const) {
    const problem = nameProblem(input[field]);
    if (problem) fields.push({ field, code: problem });
  }
  const birthdate = input.birthdate?.trim() || null;
  const dateProblem = birthdate ? birthdateProblem(birthdate, today) : null;
  if (dateProblem) fields.push({ field: 'birthdate', code: dateProblem });
  if (fields.length > 0) throw new ApiError('validation_failed', { fields });
  await updatePersonalInfo(ctx.db, userId, {
    firstname: normaliseName(input.firstname),
    lastname: normaliseName(input.lastname),
    birthdate,
    gender: input.gender,
    language: input.language,
  });
  await recordEvent(ctx.db, { type: 'profile_updated', userId, ...where, detail: { language: input.language } });
}

/** Sets the bank account, and tells the account's primary email and phone of it (the notice and
 * the change commit together). */
export async function saveIban(ctx: AppContext, userId: string, input: IbanRequest, where: Where): Promise<void> {
  const iban = ibanFor(input.country, input.iban);
  if (!iban) throw new ApiError('iban_invalid');
  const masked = maskIban(iban);
  await ctx.db.transaction().execute(async (trx) => {
    const user = await setIban(trx, userId, iban, input.country);
    if (!user) throw new ApiError('unauthorized');
    for (const { channel, to } of await primaryContacts(trx, userId)) {
      const text = noticeMessage(user.language, 'iban_changed', { iban: masked, country: input.country }, channel);
      await ctx.outbox.enqueue(trx, { channel, to, ...text, ttlSeconds: NOTICE_TTL_S });
    }
  });
  ctx.outbox.kick();
  await recordEvent(ctx.db, {
    type: 'iban_changed',
    userId,
    ...where,
    detail: { iban: masked, country: input.country },
  });
}

/** The account's primary email and phone, where it has them. */
async function primaryContacts(db: Db, userId: string): Promise<{ channel: 'email' | 'sms'; to: string }[]> {
  const [email, phone] = await Promise.all([
    db
      .selectFrom('user_emails')
      .select('value')
      .where('user_id', '=', userId)
      .where('is_default', '=', 1)
      .executeTakeFirst(),
    db
      .selectFrom('user_phones')
      .select('value')
      .where('user_id', '=', userId)
      .where('is_default', '=', 1)
      .executeTakeFirst(),
  ]);
  return [
    ...(email ? [{ channel: 'email' as const, to: email.value }] : []),
    ...(phone ? [{ channel: 'sms' as const, to: phone.value }] : []),
  ];
}
