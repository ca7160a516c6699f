// Step-up without a second factor (docs/decisions/step-up-password.md): an account that has none proves itself
// for a sensitive screen, or for setting up its first factor, by typing its password again. The
// session then counts as recently checked for MFA_STEP_UP_SECONDS, as after a code. Wrong passwords
// count against the account's sign-in limits, so this is no side door for guessing.
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { methodsOf } from '../identity/second-factors.ts';
import { confirmPassword } from '../passwords/confirm.ts';
import { markMfa } from '../sessions/store.ts';

export async function stepUpWithPassword(
  ctx: AppContext,
  caller: { userId: string; sessionId: string; ip: string; deviceKey: string },
  typed: string,
): Promise<void> {
  const { db } = ctx;
  // An account with a second factor steps up with it, as the spec says.
  if ((await methodsOf(db, caller.userId)).length > 0) throw new ApiError('second_factor_required');
  await confirmPassword(ctx, caller, typed, {
    code: 'invalid_credentials',
    failed: { type: 'mfa_failed', detail: { method: 'password' } },
  });
  await markMfa(db, caller.sessionId);
  await recordEvent(db, {
    type: 'mfa_step_up',
    userId: caller.userId,
    ip: caller.ip,
    deviceKey: caller.deviceKey,
    detail: { method: 'password' },
  });
}
