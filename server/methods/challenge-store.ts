// The challenge store: every code the server sends lives in mfa_challenges, whatever it is for (a
// sign-in, a step-up, a new method, a forgotten password, an onboarding). Here are the rules they
// share: the code (its length and HMAC are the method's), its expiry, its attempts, the resend
// wait, the sending budgets and the race-safe closing.
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import type { MessagePurpose } from '../delivery/messages.ts';
import { methodOfKind } from './index.ts';

/** The wait before another code, when the previous one for the same subject was sent too recently. */
export function resendWait(previous: { resend_at: string } | undefined, now: number): number {
  if (!previous || previous.resend_at <= nowIso(now)) return 0;
  return Math.max(1, Math.ceil((Date.parse(previous.resend_at) - now) / 1000));
}

/** The one resend rule (spec §4): the first code to a destination may be replaced after 30 s, each
 * later one after 15 s (the configured waits). */
export function waitAfterSend(config: AppContext['config'], resend: boolean): number {
  return resend ? config.mfa.resendNextWaitSeconds : config.mfa.resendFirstWaitSeconds;
}

/** Nobody may use the portal to flood an inbox or a phone: sends are counted per requester and
 * destination (first, so a stranger runs out before the owner), per destination and, when there
 * is one, per account. Spend them in this order with spendInTurn. */
export function sendingBudgets(
  ctx: Pick<AppContext, 'limiters'>,
  ip: string,
  target: string,
  userId?: string,
): Array<[RateLimiterAbstract, string]> {
  return [
    [ctx.limiters.codeRequester, `${ip}|${target}`],
    [ctx.limiters.codeDestination, target],
    ...(userId !== undefined ? [[ctx.limiters.codeAccount, userId] as [RateLimiterAbstract, string]] : []),
  ];
}

export type NewChallenge = {
  id: string;
  purpose: MessagePurpose;
  method: string;
  language: string;
  channel?: string;
  userId: string | null;
  flowId?: string | null;
  methodId: number | null;
  newMethod: string | null;
  target: string | null;
  payloadHash: string;
  sends: number;
  resendWaitSeconds: number;
  deviceKey: string | null;
  loginTicketHash?: string | null;
  replacesMethodId?: number | null;
  /** The challenge this one replaces (a new code for the same subject). */
  replacedId?: string | null;
  /** Where the code goes, for a method whose code is sent. */
  sendTo?: string;
  /** The keyed hash of what the browser was asked, for a method it answers by itself (a passkey). */
  codeHash?: string;
  /** The only session that may answer it, where one asked. */
  sessionId?: string | null;
};

/** Writes a challenge and, for a method whose code Tessera sends, makes the code and queues its
 * message, all in the caller's transaction. Returns false when a concurrent request already took
 * this flow's send number (only flows number their sends). */
export async function openChallenge(
  ctx: Pick<AppContext, 'config' | 'outbox'>,
  trx: Db,
  challenge: NewChallenge,
  now: number,
): Promise<boolean> {
  const method = methodOfKind(challenge.method);
  const sent =
    method.start && challenge.sendTo
      ? await method.start(ctx, trx, {
          challengeId: challenge.id,
          target: challenge.sendTo,
          language: challenge.language,
          purpose: challenge.purpose,
          ...(challenge.channel ? { channel: challenge.channel } : {}),
        })
      : null;
  const inserted = await trx
    .insertInto('mfa_challenges')
    .values({
      id: challenge.id,
      user_id: challenge.userId,
      flow_id: challenge.flowId ?? null,
      method_id: challenge.methodId,
      purpose: challenge.purpose,
      new_method: challenge.newMethod,
      target: challenge.target,
      payload_hash: challenge.payloadHash,
      code_hash: sent?.codeHash ?? challenge.codeHash ?? null,
      attempts: 0,
      sends: challenge.sends,
      expires_at: nowIso(now + (method.ttlSeconds ?? ctx.config.mfa.codeTtlSeconds) * 1000),
      resend_at: nowIso(now + challenge.resendWaitSeconds * 1000),
      device_key: challenge.deviceKey,
      login_ticket_hash: challenge.loginTicketHash ?? null,
      completed_at: null,
      created_at: nowIso(now),
      replaces_method_id: challenge.replacesMethodId ?? null,
      replaced_id: challenge.replacedId ?? null,
      session_id: challenge.sessionId ?? null,
    })
    // A flow's send number taken already: DO NOTHING rather than an error, which would abort a
    // PostgreSQL transaction. Any other conflict is an error.
    .$if(challenge.flowId != null, (insert) => insert.onConflict((c) => c.columns(['flow_id', 'sends']).doNothing()))
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** A new code replaces the old one: the previous challenge can no longer be used. */
export async function retireChallenge(
  ctx: Pick<AppContext, 'config'>,
  trx: Db,
  id: string,
  now: number,
): Promise<void> {
  await trx
    .updateTable('mfa_challenges')
    .set({ completed_at: nowIso(now), attempts: ctx.config.mfa.maxAttempts })
    .where('id', '=', id)
    .execute();
}

/** Counts a wrong answer while the challenge is open; the attempts so far, or null when it was
 * closed meanwhile (spent, replaced or out of attempts). */
export async function countWrongAnswer(ctx: Pick<AppContext, 'config' | 'db'>, id: string): Promise<number | null> {
  const counted = await ctx.db
    .updateTable('mfa_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('attempts', '<', ctx.config.mfa.maxAttempts)
    .where('completed_at', 'is', null)
    .returning('attempts')
    .executeTakeFirst();
  return counted ? Number(counted.attempts) : null;
}

/** Closes the challenge on a right answer. Of racing answers exactly one finds it open: the
 * conditional update's row count decides. */
export async function closeChallenge(
  ctx: Pick<AppContext, 'config'>,
  trx: Db,
  id: string,
  now: string,
): Promise<boolean> {
  const closed = await trx
    .updateTable('mfa_challenges')
    .set({ completed_at: now })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .where('attempts', '<', ctx.config.mfa.maxAttempts)
    .executeTakeFirst();
  return Number(closed.numUpdatedRows) === 1;
}
