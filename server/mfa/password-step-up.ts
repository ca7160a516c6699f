// Step-up without a second factor (DESIGN.md, "Decisions"): an account that has none proves itself
// for a sensitive screen, or for setting up its first factor, by typing its password again. The
// session then counts as recently checked for MFA_STEP_UP_SECONDS, as after a code. Wrong passwords
// count against the account's sign-in limits, so this is no side door for guessing.
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { currentPasswordHash } from '../identity/accounts.ts';
import { methodsOf } from '../identity/second-factors.ts';
import { password } from '../methods/password.ts';
import { forget, spend, standing } from '../ratelimit/index.ts';
import { markMfa } from '../sessions/store.ts';

export async function stepUpWithPassword(ctx: AppContext, caller: { userId: string; sessionId: string; ip: string; deviceKey: string }, typed: string): Promise<void> {
  const { db, limiters } = ctx;
  // An account with a second factor steps up with it, as the spec says.
  if ((await methodsOf(db, caller.userId)).length > 0) throw new ApiError('second_factor_required');
  // The same keys as the sign-in's: failures here and there add up.
  const accountKey = `user:${caller.userId}`;
  const userIpKey = `${accountKey}|${caller.ip}`;
  const counts = await Promise.all([standing(limiters.userIp, userIpKey), standing(limiters.account, accountKey)]);
  const blocked = Math.max(...counts.map((c) => c.wait));
  if (blocked > 0) throw ApiError.tooMany(blocked);

  const { right } = await password.verify({ hasher: ctx.hasher }, { passwordHash: await currentPasswordHash(db, caller.userId) }, typed);
  if (!right) {
    const wait = Math.max(...await Promise.all([spend(limiters.userIp, userIpKey), spend(limiters.account, accountKey)]));
    await recordEvent(db, { type: 'mfa_failed', userId: caller.userId, ip: caller.ip, deviceKey: caller.deviceKey, detail: { method: 'password' } });
    if (wait > 0) throw ApiError.tooMany(wait);
    throw new ApiError('invalid_credentials');
  }
  if (counts[0]!.failures > 0) await forget(limiters.userIp, userIpKey);
  await markMfa(db, caller.sessionId);
  await recordEvent(db, { type: 'mfa_step_up', userId: caller.userId, ip: caller.ip, deviceKey: caller.deviceKey, detail: { method: 'password' } });
}
