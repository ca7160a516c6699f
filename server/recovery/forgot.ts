// Forgotten password: a code to the account's email or phone, then a ticket to choose a new
// password. The answers are the same whether the account exists or not: what the user typed,
// masked, and a payload (for an unknown account it leads nowhere).
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { loginName } from '../login/authenticate.ts';
import { maskTarget } from '../mfa/codes.ts';
import { startChallenge, verifyChallenge } from '../mfa/challenges.ts';
import { spend } from '../ratelimit/index.ts';
import { issueTicket } from '../sessions/tickets.ts';
import { newToken } from '../sessions/tokens.ts';
import type { Variant } from '../../contract/constants.ts';
import { looksLikeEmail } from '../../contract/rules.ts';

export const RESET_TICKET_SECONDS = 900;
export type Technology = 'EMAIL' | 'sms' | 'call' | 'whatsapp';

export async function requestReset(ctx: AppContext, input: {
  username: string; channel: 'sms' | 'call' | 'whatsapp' | null; variant: Variant; ip: string; deviceKey: string;
  log: { warn(data: object, message: string): void };
}): Promise<{ recipient: string[]; technology: Technology; payload: string }> {
  // The same throttle as failed sign-ins, per IP: a flood of requests is a probe.
  const wait = await spend(ctx.limiters.ip, input.ip);
  if (wait > 0) throw new ApiError('too_many_attempts', { retry_after: wait }, { 'retry-after': String(wait) });
  const name = loginName(input.username, input.variant);
  // Decided by what was typed, not by what was found.
  const technology: Technology = looksLikeEmail(input.username) ? 'EMAIL' : input.channel ?? 'sms';
  const shown = { recipient: [maskTarget(name?.value ?? input.username.trim())], technology };
  if (!name) return { ...shown, payload: newToken() };
  const table = name.kind === 'email' ? 'user_emails' : 'user_phones';
  const owner = await ctx.db.selectFrom(table).innerJoin('users', 'users.id', `${table}.user_id`)
    .select(['users.id', 'users.language']).where(`${table}.value`, '=', name.value).executeTakeFirst();
  if (!owner) return { ...shown, payload: newToken() };
  try {
    const started = await startChallenge(ctx, {
      userId: owner.id, language: owner.language, purpose: 'reset', deviceKey: input.deviceKey, log: input.log,
      subject: { id: null, method: name.kind === 'email' ? 'email' : 'sms', target: name.value },
      ...(input.channel ? { channel: input.channel } : {}),
    });
    return { ...shown, payload: started.payload };
  } catch (error) {
    // Waits and caps must not tell a real account from an unknown one either.
    if (error instanceof ApiError && (error.code === 'resend_too_soon' || error.code === 'too_many_attempts')) return { ...shown, payload: newToken() };
    throw error;
  }
}

/** A right code for a reset challenge buys a single-use ticket to choose a new password. */
export async function verifyReset(ctx: AppContext, payload: string, code: string): Promise<string> {
  const passed = await verifyChallenge(ctx, payload, code).catch((error: unknown) => {
    // An unknown payload reads like a wrong code: the answer does not say whether the account exists.
    if (error instanceof ApiError && error.code === 'challenge_closed') throw new ApiError('invalid_code');
    throw error;
  });
  if (passed.purpose !== 'reset') throw new ApiError('invalid_code');
  return issueTicket(ctx.db, passed.userId, 'reset', RESET_TICKET_SECONDS);
}
