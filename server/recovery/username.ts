// Forgotten username: by card number or by Belgian national register number. The answer lists
// the account's usernames masked (enough to recognise, not to harvest), or none.
import { normaliseNationalRegisterNumber, isNationalRegisterNumber } from '../../contract/nationalRegister.ts';
import { isCardNumber, normaliseCardNumber } from '../../contract/rules.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { accountWithNationalNumber } from '../identity/accounts.ts';
import { maskedUsernames } from '../identity/usernames.ts';
import { spend } from '../ratelimit/index.ts';

export async function findUsernames(
  ctx: AppContext,
  input: { cardNumber?: string; nationalRegisterNumber?: string; ip: string },
): Promise<string[]> {
  if ((input.cardNumber === undefined) === (input.nationalRegisterNumber === undefined))
    throw new ApiError('validation_failed');
  // Every look-up costs a point of the per-IP budget: guessing numbers is a probe.
  const wait = await spend(ctx.limiters.ip, input.ip);
  if (wait > 0) throw ApiError.tooMany(wait);
  let userId: string | null;
  if (input.cardNumber !== undefined) {
    if (!isCardNumber(input.cardNumber)) throw new ApiError('invalid_card_number');
    const card = await ctx.db
      .selectFrom('cards')
      .select('user_id')
      .where('number', '=', normaliseCardNumber(input.cardNumber))
      .executeTakeFirst();
    userId = card?.user_id ?? null;
  } else {
    if (!isNationalRegisterNumber(input.nationalRegisterNumber!))
      throw new ApiError('invalid_national_register_number');
    userId = await accountWithNationalNumber(ctx.db, normaliseNationalRegisterNumber(input.nationalRegisterNumber!));
  }
  return userId ? maskedUsernames(ctx.db, userId) : [];
}
