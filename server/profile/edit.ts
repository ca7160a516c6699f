// Changes to the profile: the personal information (names, birth date, gender, language) and the
// bank account. The rules are contract/profile.ts's, enforced here whatever the browser sent.
import { checkIban } from '../../contract/iban.ts';
import {
  birthdateProblem,
  maskIban,
  nameProblem,
  normaliseName,
  type IbanRequest,
  type ProfileInfoRequest,
} from '../../contract/profile.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { tellAccount } from '../delivery/notices.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { setIban, updatePersonalInfo } from '../identity/accounts.ts';

/** Notices of a change stay worth sending for a day; after that they would only confuse. */

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
 * the change commit together). A country left unset is the IBAN's own. */
export async function saveIban(ctx: AppContext, userId: string, input: IbanRequest, where: Where): Promise<void> {
  const checked = checkIban(input.country, input.iban);
  if (!checked.ok)
    throw checked.code === 'iban_country_mismatch'
      ? new ApiError(checked.code, { country: checked.country, chosen: checked.chosen })
      : new ApiError(checked.code);
  const { iban, country } = checked;
  const masked = maskIban(iban);
  await ctx.db.transaction().execute(async (trx) => {
    const user = await setIban(trx, userId, iban, country);
    if (!user) throw new ApiError('unauthorized');
    await tellAccount(ctx, trx, { userId, language: user.language }, 'iban_changed', { iban: masked, country });
  });
  ctx.outbox.kick();
  await recordEvent(ctx.db, {
    type: 'iban_changed',
    userId,
    ...where,
    detail: { iban: masked, country },
  });
}
