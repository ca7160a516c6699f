// Forgotten password: a code to the account's email or phone, then a ticket to choose a new
// password. The answers are the same whether the account exists or not: what the user typed,
// masked, and a payload (for an unknown account it leads nowhere).
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { contactHolder } from '../identity/accounts.ts';
import { loginName } from '../identity/usernames.ts';
import { maskTarget } from '../methods/codes.ts';
import { openStandInReset, startChallenge, verifyChallenge } from '../methods/challenges.ts';
import { spend, standing } from '../ratelimit/index.ts';
import { issueTicket } from '../sessions/tickets.ts';
import { hashToken, newId, newToken } from '../sessions/tokens.ts';
import { nowIso } from '../db/index.ts';
import { SqliteAdapter } from 'kysely';
import type { Variant } from '../../contract/constants.ts';
import { looksLikeEmail } from '../../contract/rules.ts';

export const RESET_TICKET_SECONDS = 900;
export type Technology = 'EMAIL' | 'sms' | 'call' | 'whatsapp';

export async function requestReset(
  ctx: AppContext,
  input: {
    username: string;
    channel: 'sms' | 'call' | 'whatsapp' | null;
    variant: Variant;
    ip: string;
    deviceKey: string;
  },
): Promise<{ recipient: string[]; technology: Technology; payload: string; expires_in: number; resend_in: number }> {
  // The same throttle as failed sign-ins, per IP: a flood of requests is a probe.
  const wait = await spend(ctx.limiters.ip, input.ip);
  if (wait > 0) throw ApiError.tooMany(wait);
  const name = loginName(input.username, input.variant);
  // The resend wait, per address and name: the same for real and unknown accounts, and a
  // stranger's request elsewhere never delays the owner's.
  const typed = name ? `${name.kind}:${name.value}` : `raw:${input.username.trim().toLowerCase()}`;
  const again = await spend(ctx.limiters.resetRequests, `${input.ip}|${typed}`);
  if (again > 0) throw ApiError.resendTooSoon(again);
  // Decided by what was typed, not by what was found.
  const technology: Technology = looksLikeEmail(input.username) ? 'EMAIL' : (input.channel ?? 'sms');
  const payload = newToken();
  if (name) {
    // The request is taken as typed and the worker looks the account up: a real account and an
    // unknown one cost the answer the same single write, and no mail server is waited for.
    await ctx.db
      .insertInto('reset_requests')
      .values({
        id: newId(),
        kind: name.kind,
        name: name.value,
        channel: input.channel,
        ip: input.ip,
        device_key: input.deviceKey,
        payload_hash: hashToken(payload),
        created_at: nowIso(),
        locked_until: null,
      })
      .execute();
    ctx.outbox.kick();
  }
  // The timers are the configured ones, not the challenge's (the worker opens it a moment later, or
  // never for an unknown account): the answer must not tell the two apart.
  return {
    recipient: [maskTarget(name?.value ?? input.username.trim())],
    technology,
    payload,
    expires_in: ctx.config.mfa.codeTtlSeconds,
    resend_in: ctx.config.mfa.resendFirstWaitSeconds,
  };
}

/** The worker's step: each queued request of a real account becomes a challenge whose code is
 * queued for delivery, unless a code went to that destination too recently (the resend wait,
 * whoever asked: the owner's code stays valid) or its sending caps are spent. A request that sends
 * nothing, for nobody or held back, becomes a stand-in challenge, with no user, no code and no
 * name (only its keyed hash, which its failures are counted by), so that checking a code against
 * any payload costs what it costs for a real one and counts alike. A request is removed once
 * handled, so a crash in between handles it again (at least once). */
export function queuedResets(ctx: AppContext): () => Promise<void> {
  // The worker passes every second; the sweep of old rows needs doing once a minute at most.
  let sweptAt = 0;
  return async () => {
    if (Date.now() - sweptAt >= 60_000) {
      sweptAt = Date.now();
      await sweepResets(ctx);
    }
    await startQueuedResets(ctx);
  };
}

/** A request that could not be handled for a code's whole life is worth nothing any more: it goes,
 * rather than being tried again forever. Stand-ins go a day after their expiry, as real challenges do. */
async function sweepResets(ctx: AppContext): Promise<void> {
  await ctx.db
    .deleteFrom('reset_requests')
    .where('created_at', '<', nowIso(Date.now() - ctx.config.mfa.codeTtlSeconds * 1000))
    .execute();
  await ctx.db
    .deleteFrom('mfa_challenges')
    .where('user_id', 'is', null)
    .where('flow_id', 'is', null)
    .where('expires_at', '<', nowIso(Date.now() - 24 * 3600 * 1000))
    .execute();
}

async function startQueuedResets(ctx: AppContext): Promise<void> {
  const { db } = ctx;
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const now = nowIso();
  const due = db
    .selectFrom('reset_requests')
    .select('id')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('created_at')
    .limit(20);
  const requests = await db
    .updateTable('reset_requests')
    .set({ locked_until: nowIso(Date.now() + 60_000) })
    .where('id', 'in', sqlite ? due : due.forUpdate().skipLocked())
    .returningAll()
    .execute();
  for (const request of requests) {
    const owner = await contactHolder(db, request.kind, request.name);
    const method = request.kind === 'email' ? 'email' : 'sms';
    const sent = owner
      ? await startChallenge(ctx, {
          userId: owner.id,
          language: owner.language,
          purpose: 'reset',
          deviceKey: request.device_key,
          ip: request.ip,
          subject: { id: null, method, target: request.name },
          payloadHash: request.payload_hash,
          ...(request.channel ? { channel: request.channel } : {}),
        }).then(
          () => true,
          (error: unknown) => {
            // Too soon after the last code to this destination, or a sending cap reached: this request
            // sends nothing (the answer said nothing either way).
            if (error instanceof ApiError && (error.code === 'resend_too_soon' || error.code === 'too_many_attempts'))
              return false;
            throw error;
          },
        )
      : false;
    if (!sent) {
      await openStandInReset(ctx, {
        method,
        name: request.name,
        payloadHash: request.payload_hash,
        deviceKey: request.device_key,
      });
    }
    await db.deleteFrom('reset_requests').where('id', '=', request.id).execute();
  }
}

/** A right code for a reset challenge buys a single-use ticket to choose a new password. Every
 * failure reads the same, a real account's or a made-up payload's: `invalid_code` with nothing
 * more (no attempts left, no expiry), and wrong codes from one address are counted either way. */
export async function verifyReset(ctx: AppContext, payload: string, code: string, ip: string): Promise<string> {
  const blocked = (await standing(ctx.limiters.ip, ip)).wait;
  if (blocked > 0) throw ApiError.tooMany(blocked);
  try {
    const passed = await verifyChallenge(ctx, payload, code, { purposes: ['reset'], ip });
    return await issueTicket(ctx.db, passed.userId, 'reset', RESET_TICKET_SECONDS);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // Past the name's ceiling, a puzzle is asked for, the same for a real name and an unknown one
    // (their failures count alike): said as it is, or the owner could never get through.
    if (error.code === 'captcha_required' || error.code === 'captcha_invalid') throw error;
    const wait = await spend(ctx.limiters.ip, ip);
    if (wait > 0) throw ApiError.tooMany(wait);
    throw new ApiError('invalid_code');
  }
}
