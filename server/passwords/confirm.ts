// The password of a signed-in account typed again: to step up without a second factor
// (server/mfa/password-step-up.ts) or to change it (server/profile/password.ts). Wrong passwords
// count against the account's sign-in limits (the same keys as the sign-in's), so a stolen session
// gets no more guesses here than at the sign-in: its address is blocked for a while, here and there,
// and past the account's ceiling every try needs a harder proof of work (server/captcha/ceilings.ts),
// sent in the X-Captcha header.
import type { AppContext } from '../context.ts';
import { recordEvent, type SecurityEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { currentPassword } from '../identity/accounts.ts';
import { password } from '../methods/password.ts';
import { countFailure, passCeiling } from '../captcha/ceilings.ts';
import { forget, spend, standing } from '../ratelimit/index.ts';

export type Caller = { userId: string; ip: string; deviceKey: string };

/** Checks the typed password against the account's current one. Right: the current password's row
 * (a change checks in its transaction that it is still the current one). Wrong: the failure is
 * counted, `failed` recorded, and `refusal` thrown (too_many_attempts once the limit is reached). */
export async function confirmPassword(
  ctx: AppContext,
  caller: Caller,
  typed: string,
  refusal: { code: 'invalid_credentials' | 'wrong_current_password'; failed: Pick<SecurityEvent, 'type' | 'detail'> },
): Promise<{ passwordId: string | null }> {
  const { db, limiters } = ctx;
  const accountKey = `user:${caller.userId}`;
  const userIpKey = `${accountKey}|${caller.ip}`;
  const pair = await standing(limiters.userIp, userIpKey);
  if (pair.wait > 0) throw ApiError.tooMany(pair.wait);
  await passCeiling(ctx, 'account', accountKey);

  const current = await currentPassword(db, caller.userId);
  const { right } = await password.verify({ hasher: ctx.hasher }, { passwordHash: current?.hash ?? null }, typed);
  if (!right) {
    const [wait, next] = await Promise.all([
      spend(limiters.userIp, userIpKey),
      countFailure(limiters, 'account', accountKey),
    ]);
    await recordEvent(db, { ...refusal.failed, userId: caller.userId, ip: caller.ip, deviceKey: caller.deviceKey });
    if (wait > 0) throw ApiError.tooMany(wait);
    throw new ApiError(
      refusal.code,
      next > 0 && ctx.config.captcha.enabled ? { captcha: true, captcha_level: next } : {},
    );
  }
  if (pair.failures > 0) await forget(limiters.userIp, userIpKey);
  return { passwordId: current?.id ?? null };
}
