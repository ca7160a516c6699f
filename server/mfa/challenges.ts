// MFA challenges: one per code sent. A challenge is held by an opaque payload (stored hashed),
// dies after its expiry, after the maximum of wrong codes, or on success; a new code (resend)
// replaces the challenge after the server-enforced wait (30 s, then 15 s). The same machinery
// serves a sign-in ('login'), a step-up ('sudo'), adding a method ('activate') and a forgotten
// password ('reset').
import { TOTP } from 'otpauth';
import { CODE_LENGTH } from '../../contract/rules.ts';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { lockUser } from '../db/locks.ts';
import type { Channel } from '../delivery/index.ts';
import { codeMessage } from '../delivery/messages.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { forget, refund, spend, spendInTurn, standing } from '../ratelimit/index.ts';
import { hashToken, newId, newToken } from '../sessions/tokens.ts';
import { hashCode, maskTarget, newCode, sameHash } from './codes.ts';
import { CODED } from './methods.ts';
import { findRecoveryKey, spendRecoveryKey, unusedRecoveryKeys } from './recovery.ts';
import { decryptSecret } from './secrets.ts';

export type Purpose = 'login' | 'sudo' | 'activate' | 'reset';
const DAY_MS = 24 * 3600 * 1000;

/** What a challenge is about: an existing method (id), or for activation and reset a kind and
 * target (id null); an activation may replace an existing method (new target, reset authenticator). */
export type ChallengeSubject = { id: number | null; method: string; target: string | null; secret?: string | null; replaces?: number | null };

export type StartedChallenge = {
  payload: string; method: string; target?: string;
  expires_at: string; expires_in: number; resend_at?: string; resend_in?: number;
};

/** The wait before another code, when the previous one for the same subject was sent too recently. */
function resendWait(previous: { resend_at: string } | undefined, now: number): number {
  if (!previous || previous.resend_at <= nowIso(now)) return 0;
  return Math.max(1, Math.ceil((Date.parse(previous.resend_at) - now) / 1000));
}

/** Lost the race for the resend wait to a concurrent request for the same subject. */
class TooSoon extends Error {
  readonly wait: number;
  constructor(wait: number) {
    super('resend too soon');
    this.wait = wait;
  }
}

/** Starts a challenge on a method and, for a method whose code Tessera sends, queues the code.
 * A challenge of a signed-in person or a sign-in replaces the previous one on the same method,
 * after the resend wait. A forgotten-password challenge is asked for by anybody who knows an
 * address, so it replaces nothing: a code a stranger asks for never spoils the owner's. */
export async function startChallenge(ctx: AppContext, input: {
  userId: string; language: string; subject: ChallengeSubject; purpose: Purpose; deviceKey: string; channel?: string;
  loginTicket?: string;
  /** The client address, as resolved through the trusted proxies: its own sending budget bites first. */
  ip: string;
  /** The hash of a payload already handed out (a forgotten-password request answered before its
   * challenge existed); without it a new payload is made. */
  payloadHash?: string;
}): Promise<StartedChallenge> {
  const { db, config } = ctx;
  const { subject } = input;
  const now = Date.now();
  const coded = CODED.has(subject.method);
  const replacing = input.purpose !== 'reset';
  const previousOf = (reader: Db) => {
    let query = reader.selectFrom('mfa_challenges').select(['id', 'sends', 'resend_at'])
      .where('user_id', '=', input.userId).where('purpose', '=', input.purpose).where('expires_at', '>', nowIso(now))
      .where('completed_at', 'is', null);
    query = subject.id !== null
      ? query.where('method_id', '=', subject.id)
      : query.where('new_method', '=', subject.method).where('target', '=', subject.target ?? '');
    return query.orderBy('created_at', 'desc').executeTakeFirst();
  };
  // A cheap look first, so a burst of resends is refused before it spends any sending budget.
  const early = replacing && coded ? resendWait(await previousOf(db), now) : 0;
  if (early > 0) throw ApiError.resendTooSoon(early);

  // Nobody may use the portal to flood an inbox or a phone: sends are counted per requester and
  // destination (lowest, so a stranger runs out before the owner), per destination and per account.
  const spent: Array<[RateLimiterAbstract, string]> = coded ? [
    [ctx.limiters.codeRequester, `${input.ip}|${subject.target}`],
    [ctx.limiters.codeDestination, subject.target!],
    [ctx.limiters.codeAccount, input.userId],
  ] : [];
  const blocked = await spendInTurn(spent);
  if (blocked > 0) throw ApiError.tooMany(blocked);

  const id = newId();
  const payload = newToken();
  const code = coded ? newCode(CODE_LENGTH.email) : null;
  const expiresAt = nowIso(now + config.mfa.codeTtlSeconds * 1000);
  let wait = config.mfa.resendFirstWaitSeconds;
  try {
    await db.transaction().execute(async (trx) => {
      // One writer per account at a time: of thirty simultaneous resends, one finds the wait over.
      await lockUser(trx, input.userId);
      const previous = replacing ? await previousOf(trx) : undefined;
      const tooSoon = coded ? resendWait(previous, now) : 0;
      if (tooSoon > 0) throw new TooSoon(tooSoon);
      const sends = (previous?.sends ?? 0) + 1;
      wait = sends === 1 ? config.mfa.resendFirstWaitSeconds : config.mfa.resendNextWaitSeconds;
      // The new code replaces the old one: the previous challenge can no longer be used.
      if (previous) await trx.updateTable('mfa_challenges').set({ completed_at: nowIso(now), attempts: config.mfa.maxAttempts }).where('id', '=', previous.id).execute();
      // Challenges are kept a day past their expiry (the resend wait reads them), then go.
      await trx.deleteFrom('mfa_challenges').where('user_id', '=', input.userId).where('expires_at', '<', nowIso(now - DAY_MS)).execute();
      await trx.insertInto('mfa_challenges').values({
        id, user_id: input.userId, method_id: subject.id, purpose: input.purpose,
        new_method: subject.id === null ? subject.method : null,
        // For a new authenticator the sealed secret waits here until its first code proves the setup.
        target: subject.id === null ? (subject.secret ?? subject.target) : null,
        payload_hash: input.payloadHash ?? hashToken(payload),
        code_hash: code ? hashCode(config.secretKey, id, code) : null, attempts: 0, sends, expires_at: expiresAt,
        resend_at: nowIso(now + wait * 1000),
        device_key: input.deviceKey, login_ticket_hash: input.loginTicket ? hashToken(input.loginTicket) : null,
        completed_at: null, created_at: nowIso(now), replaces_method_id: subject.replaces ?? null,
      }).execute();
      if (code) {
        // A phone method can take its code by SMS, voice call or WhatsApp.
        const channel = (subject.method !== 'email' && input.channel && input.channel !== 'email' ? input.channel : subject.method) as Channel;
        const text = codeMessage(input.language, code, config.mfa.codeTtlSeconds, { purpose: input.purpose, channel });
        await ctx.outbox.enqueue(trx, { channel, to: subject.target!, ...text, ttlSeconds: config.mfa.codeTtlSeconds });
      }
    });
  } catch (error) {
    // Nothing was sent: the budget spent on the way is given back.
    await Promise.all(spent.map(([limiter, key]) => refund(limiter, key)));
    if (error instanceof TooSoon) throw ApiError.resendTooSoon(error.wait);
    throw error;
  }
  ctx.outbox.kick();
  return {
    payload, method: subject.method, expires_at: expiresAt, expires_in: config.mfa.codeTtlSeconds,
    ...(subject.target && coded ? { target: maskTarget(subject.target) } : {}),
    ...(coded ? { resend_at: nowIso(now + wait * 1000), resend_in: wait } : {}),
  };
}

export type PassedChallenge = {
  userId: string; purpose: Purpose; methodId: number | null; method: string;
  /** For activation: the new method's kind and target (or sealed TOTP secret), and the method it replaces. */
  newMethod: string | null; target: string | null; replacesMethodId: number | null;
  /** The authenticator time step accepted (a new authenticator starts from it: its first code is spent). */
  step: number | null;
  loginTicketHash: string | null;
  /** After a recovery key: how many unused keys remain. */
  recoveryKeysLeft?: number;
};

/** Thrown inside the closing transaction: the answer was right but lost a race (replayed authenticator code, key spent). */
class Lost extends Error {}
class Closed extends Error {}

/** Checks a code against its challenge; on success closes it, atomically, and says for whom and why.
 * A challenge of another purpose than the caller expects, or a sign-in's challenge answered from
 * another device, reads as closed and costs no attempt. */
export async function verifyChallenge(ctx: AppContext, payload: string, code: string, options: {
  purposes?: readonly Purpose[]; deviceKey?: string; ip?: string;
} = {}): Promise<PassedChallenge> {
  const { db, config } = ctx;
  const now = nowIso();
  const challenge = await db.selectFrom('mfa_challenges')
    .leftJoin('mfa_methods', 'mfa_methods.id', 'mfa_challenges.method_id')
    .select(['mfa_challenges.id', 'mfa_challenges.user_id', 'mfa_challenges.purpose', 'mfa_challenges.code_hash', 'mfa_challenges.attempts',
      'mfa_challenges.expires_at', 'mfa_challenges.completed_at', 'mfa_challenges.login_ticket_hash', 'mfa_challenges.new_method',
      'mfa_challenges.target', 'mfa_challenges.method_id', 'mfa_challenges.device_key', 'mfa_challenges.replaces_method_id',
      'mfa_methods.method', 'mfa_methods.secret', 'mfa_methods.last_step'])
    .where('mfa_challenges.payload_hash', '=', hashToken(payload)).executeTakeFirst();
  if (!challenge || challenge.completed_at || challenge.attempts >= config.mfa.maxAttempts) throw new ApiError('challenge_closed');
  const purpose = challenge.purpose as Purpose;
  if (options.purposes && !options.purposes.includes(purpose)) throw new ApiError('challenge_closed');
  if (purpose === 'login' && options.deviceKey !== undefined && challenge.device_key !== null && challenge.device_key !== options.deviceKey) {
    throw new ApiError('challenge_closed');
  }
  if (challenge.expires_at <= now) throw new ApiError('code_expired');

  // Wrong answers are counted per account too: a password holder cannot guess authenticator codes
  // across endless challenges. A forgotten-password request is anonymous, so its failures are
  // counted apart, per account and address first: a stranger guessing codes runs out long before
  // the owner's right code is refused, and never touches the owner's sign-in.
  const failures: Array<[RateLimiterAbstract, string]> = purpose === 'reset'
    ? [[ctx.limiters.resetFailuresUserIp, `${challenge.user_id}|${options.ip ?? ''}`], [ctx.limiters.resetFailuresAccount, challenge.user_id]]
    : [[ctx.limiters.mfaFailures, challenge.user_id]];
  const blocked = Math.max(...(await Promise.all(failures.map(([limiter, key]) => standing(limiter, key)))).map((s) => s.wait));
  if (blocked > 0) throw ApiError.tooMany(blocked);

  const existing = challenge.method_id !== null;
  const kind = (existing ? challenge.method : challenge.new_method) ?? '';
  let step: number | null = null;
  let right = false;
  let recoveryKeyId: string | null = null;
  if (kind === 'totp') {
    const sealed = existing ? challenge.secret : challenge.target;
    const totp = new TOTP({ secret: decryptSecret(config.secretKey, sealed!), digits: 6, period: 30 });
    const delta = /^\d{6}$/.test(code) ? totp.validate({ token: code, window: 1 }) : null;
    if (delta !== null) {
      step = Math.floor(Date.now() / 30_000) + delta;
      // Never the same code twice: the step must be newer than the last one accepted.
      const lastStep = existing && challenge.last_step !== null ? Number(challenge.last_step) : null;
      right = lastStep === null || step > lastStep;
    }
  } else if (kind === 'totpRecovery') {
    recoveryKeyId = await findRecoveryKey(ctx, challenge.user_id, code);
    right = recoveryKeyId !== null;
  } else if (kind === 'card') {
    // The card challenge: the number of one of the user's activated cards.
    const card = await db.selectFrom('cards').select('id').where('user_id', '=', challenge.user_id)
      .where('number', '=', code.replace(/\s+/g, '')).where('activated_at', 'is not', null).executeTakeFirst();
    right = card !== undefined;
  } else if (challenge.code_hash) {
    right = sameHash(challenge.code_hash, hashCode(config.secretKey, challenge.id, code));
  }

  const refuse = async (): Promise<never> => {
    const counted = await db.updateTable('mfa_challenges').set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', challenge.id).where('attempts', '<', config.mfa.maxAttempts).where('completed_at', 'is', null)
      .returning('attempts').executeTakeFirst();
    if (!counted) throw new ApiError('challenge_closed');
    const wait = Math.max(...(await Promise.all(failures.map(([limiter, key]) => spend(limiter, key)))));
    await recordEvent(db, { type: 'mfa_failed', userId: challenge.user_id, ip: options.ip ?? null, deviceKey: options.deviceKey ?? null, detail: { method: kind, purpose } });
    if (wait > 0) throw ApiError.tooMany(wait);
    const left = Math.max(0, config.mfa.maxAttempts - Number(counted.attempts));
    throw new ApiError(left > 0 ? 'invalid_code' : 'challenge_closed', { attempts_left: left });
  };
  if (!right) return refuse();

  // Exactly one of two racing verifications wins: the one whose update finds the challenge open.
  // The authenticator's step and the recovery key are spent in the same transaction.
  try {
    await db.transaction().execute(async (trx) => {
      const closed = await trx.updateTable('mfa_challenges').set({ completed_at: now })
        .where('id', '=', challenge.id).where('completed_at', 'is', null).where('attempts', '<', config.mfa.maxAttempts).executeTakeFirst();
      if (Number(closed.numUpdatedRows) === 0) throw new Closed();
      if (step !== null && existing) {
        const stepped = await trx.updateTable('mfa_methods').set({ last_step: step })
          .where('id', '=', Number(challenge.method_id))
          .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)])).executeTakeFirst();
        if (Number(stepped.numUpdatedRows) === 0) throw new Lost();
      }
      if (recoveryKeyId && !(await spendRecoveryKey(trx, recoveryKeyId))) throw new Lost();
    });
  } catch (error) {
    if (error instanceof Closed) throw new ApiError('challenge_closed');
    if (error instanceof Lost) return refuse();
    throw error;
  }
  // The owner got in from here: this address's count starts again (a ceiling keeps its count).
  await forget(...failures[0]!);
  return {
    userId: challenge.user_id, purpose, method: kind,
    methodId: existing ? Number(challenge.method_id) : null,
    newMethod: challenge.new_method, target: challenge.target,
    replacesMethodId: challenge.replaces_method_id === null ? null : Number(challenge.replaces_method_id),
    step, loginTicketHash: challenge.login_ticket_hash,
    ...(recoveryKeyId ? { recoveryKeysLeft: await unusedRecoveryKeys(db, challenge.user_id) } : {}),
  };
}
