// The signed-in person changes their password (/security/edit-password): after a recent second
// factor (the route's step-up), with the current password typed again (counted with the sign-in's
// failures), a new one the account may take. Every other session ends, this one too unless it is
// kept; the partners' tokens go; the account is told by email.
import type { ChangePasswordRequest } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { lockUser } from '../db/locks.ts';
import { ApiError } from '../http/errors.ts';
import { currentPassword } from '../identity/accounts.ts';
import { acceptNewPassword, passwordReplaced, replacePassword } from '../passwords/change.ts';
import { confirmPassword } from '../passwords/confirm.ts';
import { assertConfirmed } from '../passwords/policy.ts';

export async function changePassword(
  ctx: AppContext,
  caller: { userId: string; sessionId: string; ip: string; deviceKey: string },
  request: ChangePasswordRequest,
): Promise<{ session_ended: boolean }> {
  const { userId } = caller;
  // The current password first: a stranger holding the session learns nothing about the account's
  // old passwords from the new password's refusal.
  const { passwordId } = await confirmPassword(ctx, caller, request.current, {
    code: 'wrong_current_password',
    failed: { type: 'password_change_failed' },
  });
  assertConfirmed(request.password, request.confirmation);
  const hash = await acceptNewPassword(ctx, userId, request.password);
  const keep = request.keepThisSession ? caller.sessionId : null;
  const ended = await ctx.db.transaction().execute(async (trx) => {
    // Of changes sent at once with the same current password, the first one to hold the account
    // changes it; the others find that the password they were checked with is no longer the current
    // one, and write nothing.
    await lockUser(trx, userId);
    if ((await currentPassword(trx, userId))?.id !== passwordId) throw new ApiError('wrong_current_password');
    return replacePassword(ctx, trx, { userId, hash, keep });
  });
  await passwordReplaced(ctx, { userId, ended, kept: keep !== null, ip: caller.ip, deviceKey: caller.deviceKey });
  return { session_ended: keep === null };
}
