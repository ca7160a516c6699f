// Forgotten password: a code to the account's email or phone, then a ticket to choose a new
// password. The answers are the same whether the account exists or not: what the user typed,
// masked, and a payload (for an unknown account it leads nowhere).
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { loginName } from '../login/authenticate.ts';
import { maskTarget } from '../mfa/codes.ts';
import { startChallenge, verifyChallenge } from '../mfa/challenges.ts';
import { spend, standing } from '../ratelimit/index.ts';
import { issueTicket } from '../sessions/tickets.ts';
import { newToken } from '../sessions/tokens.ts';
import type { Variant } from '../../contract/constants.ts';
import { looksLikeEmail } from '../../contract/rules.ts';

export const RESET_TICKET_SECONDS = 900;
export type Technology = 'EMAIL' | 'sms' | 'call' | 'whatsapp';

function tooMany(wait: number): ApiError {
  return new ApiError('too_many_attempts', { retry_after: wait }, { 'retry-after': String(wait) });
}

export async function requestReset(ctx: AppContext, input: {
  username: string; channel: 'sms' | 'call' | 'whatsapp' | null; variant: Variant; ip: string; deviceKey: string;
}): Promise<{ recipient: string[]; technology: Technology; payload: string }> {
  // The same throttle as failed sign-ins, per IP: a flood of requests is a probe.
  const wait = await spend(ctx.limiters.ip, input.ip);
  if (wait > 0) throw tooMany(wait);
  const name = loginName(input.username, input.variant);
  // The resend wait, per address and name: the same for real and unknown accounts, and a
  // stranger's request elsewhere never delays the owner's.
  const typed = name ? `${name.kind}:${name.value}` : `raw:${input.username.trim().toLowerCase()}`;
  const again = await spend(ctx.limiters.resetRequests, `${input.ip}|${typed}`);
  if (again > 0) throw new ApiError('resend_too_soon', { retry_after: again }, { 'retry-after': String(again) });
  // Decided by what was typed, not by what was found.
  const technology: Technology = looksLikeEmail(input.username) ? 'EMAIL' : input.channel ?? 'sms';
  const shown = { recipient: [maskTarget(name?.value ?? input.username.trim())], technology };
  if (!name) return { ...shown, payload: newToken() };
  const table = name.kind === 'email' ? 'user_emails' : 'user_phones';
  const owner = await ctx.db.selectFrom(table).innerJoin('users', 'users.id', `${table}.user_id`)
    .select(['users.id', 'users.language']).where(`${table}.value`, '=', name.value).executeTakeFirst();
  if (!owner) return { ...shown, payload: newToken() };
  try {
    // The code is queued, not sent: the answer goes out before any mail server or provider is
    // spoken to, so neither its speed nor its failure shows here.
    const started = await startChallenge(ctx, {
      userId: owner.id, language: owner.language, purpose: 'reset', deviceKey: input.deviceKey, ip: input.ip,
      subject: { id: null, method: name.kind === 'email' ? 'email' : 'sms', target: name.value },
      ...(input.channel ? { channel: input.channel } : {}),
    });
    return { ...shown, payload: started.payload };
  } catch (error) {
    // Sending caps must not tell a real account from an unknown one either.
    if (error instanceof ApiError && error.code === 'too_many_attempts') return { ...shown, payload: newToken() };
    throw error;
  }
}

/** A right code for a reset challenge buys a single-use ticket to choose a new password. Every
 * failure reads the same, a real account's or a made-up payload's: `invalid_code` with nothing
 * more (no attempts left, no expiry), and wrong codes from one address are counted either way. */
export async function verifyReset(ctx: AppContext, payload: string, code: string, ip: string): Promise<string> {
  const blocked = (await standing(ctx.limiters.ip, ip)).wait;
  if (blocked > 0) throw tooMany(blocked);
  try {
    const passed = await verifyChallenge(ctx, payload, code, { purposes: ['reset'], ip });
    return await issueTicket(ctx.db, passed.userId, 'reset', RESET_TICKET_SECONDS);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const wait = await spend(ctx.limiters.ip, ip);
    if (wait > 0) throw tooMany(wait);
    throw new ApiError('invalid_code');
  }
}
