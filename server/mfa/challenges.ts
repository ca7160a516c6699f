// MFA challenges: one per code sent. A challenge is held by an opaque payload (stored hashed),
// dies after its expiry, after the maximum of wrong codes, or on success; a new code (resend)
// replaces the challenge after the server-enforced wait (30 s, then 15 s). The same machinery
// serves a sign-in ('login'), a step-up ('sudo') and adding a method ('activate').
import { TOTP } from 'otpauth';
import { CODE_LENGTH } from '../../contract/rules.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { codeMessage } from '../delivery/messages.ts';
import { ApiError } from '../http/errors.ts';
import { spend } from '../ratelimit/index.ts';
import { hashToken, newId, newToken } from '../sessions/tokens.ts';
import { hashCode, maskTarget, newCode, sameHash } from './codes.ts';
import { useRecoveryKey } from './recovery.ts';
import { decryptSecret } from './secrets.ts';

export type Purpose = 'login' | 'sudo' | 'activate' | 'reset';
const CODED = new Set(['email', 'sms', 'call', 'whatsapp']);

/** What a challenge is about: an existing method (id) or, for activation, a new one (id null). */
export type ChallengeSubject = { id: number | null; method: string; target: string | null; secret?: string | null };

export type StartedChallenge = { payload: string; method: string; target?: string; expires_at: string; resend_at?: string };

export async function startChallenge(ctx: AppContext, input: {
  userId: string; language: string; subject: ChallengeSubject; purpose: Purpose; deviceKey: string; channel?: string;
  loginTicket?: string;
  log: { warn(data: object, message: string): void };
}): Promise<StartedChallenge> {
  const { db, config } = ctx;
  const { subject } = input;
  const now = Date.now();
  let previousQuery = db.selectFrom('mfa_challenges').select(['id', 'sends', 'resend_at'])
    .where('user_id', '=', input.userId).where('purpose', '=', input.purpose).where('expires_at', '>', nowIso(now))
    .where('completed_at', 'is', null);
  previousQuery = subject.id !== null
    ? previousQuery.where('method_id', '=', subject.id)
    : previousQuery.where('new_method', '=', subject.method).where('target', '=', subject.target ?? '');
  const previous = await previousQuery.orderBy('created_at', 'desc').executeTakeFirst();
  const coded = CODED.has(subject.method);
  if (coded && previous && previous.resend_at > nowIso(now)) {
    const wait = Math.max(1, Math.ceil((Date.parse(previous.resend_at) - now) / 1000));
    throw new ApiError('resend_too_soon', { retry_after: wait }, { 'retry-after': String(wait) });
  }
  const sends = (previous?.sends ?? 0) + 1;
  const wait = sends === 1 ? config.mfa.resendFirstWaitSeconds : config.mfa.resendNextWaitSeconds;
  const id = newId();
  const payload = newToken();
  const code = coded ? newCode(CODE_LENGTH.email) : null;
  const expiresAt = nowIso(now + config.mfa.codeTtlSeconds * 1000);
  const resendAt = nowIso(now + wait * 1000);

  if (code) {
    // Nobody may use the portal to flood an inbox or a phone: sends are counted per destination and per account.
    const waits = await Promise.all([spend(ctx.limiters.codeDestination, subject.target!), spend(ctx.limiters.codeAccount, input.userId)]);
    const blocked = Math.max(...waits);
    if (blocked > 0) throw new ApiError('too_many_attempts', { retry_after: blocked }, { 'retry-after': String(blocked) });
    // A phone method can take its code by SMS, voice call or WhatsApp.
    const channel = (subject.method !== 'email' && input.channel && input.channel !== 'email' ? input.channel : subject.method) as 'email';
    const text = codeMessage(input.language, code, config.mfa.codeTtlSeconds);
    try {
      await ctx.delivery.send({ channel, to: subject.target!, ...text });
    } catch (error) {
      input.log.warn({ err: error }, 'code delivery failed');
      throw new ApiError('delivery_failed');
    }
  }
  await db.transaction().execute(async (trx) => {
    // The new code replaces the old one: the previous challenge can no longer be used.
    if (previous) await trx.updateTable('mfa_challenges').set({ completed_at: nowIso(now), attempts: config.mfa.maxAttempts }).where('id', '=', previous.id).execute();
    await trx.insertInto('mfa_challenges').values({
      id, user_id: input.userId, method_id: subject.id, purpose: input.purpose,
      new_method: subject.id === null ? subject.method : null,
      // For a new authenticator the sealed secret waits here until its first code proves the setup.
      target: subject.id === null ? (subject.secret ?? subject.target) : null,
      payload_hash: hashToken(payload),
      code_hash: code ? hashCode(config.secretKey, id, code) : null, attempts: 0, sends, expires_at: expiresAt, resend_at: resendAt,
      device_key: input.deviceKey, login_ticket_hash: input.loginTicket ? hashToken(input.loginTicket) : null,
      completed_at: null, created_at: nowIso(now),
    }).execute();
  });
  return {
    payload, method: subject.method, expires_at: expiresAt,
    ...(subject.target && coded ? { target: maskTarget(subject.target) } : {}),
    ...(coded ? { resend_at: resendAt } : {}),
  };
}

export type PassedChallenge = {
  userId: string; purpose: Purpose; methodId: number | null; method: string;
  /** For activation: the new method's kind and target (or sealed TOTP secret). */
  newMethod: string | null; target: string | null;
  loginTicketHash: string | null;
  /** After a recovery key: how many unused keys remain. */
  recoveryKeysLeft?: number;
};

/** Checks a code against its challenge; on success closes it, atomically, and says for whom and why. */
export async function verifyChallenge(ctx: AppContext, payload: string, code: string): Promise<PassedChallenge> {
  const { db, config } = ctx;
  const now = nowIso();
  const challenge = await db.selectFrom('mfa_challenges')
    .leftJoin('mfa_methods', 'mfa_methods.id', 'mfa_challenges.method_id')
    .select(['mfa_challenges.id', 'mfa_challenges.user_id', 'mfa_challenges.purpose', 'mfa_challenges.code_hash', 'mfa_challenges.attempts',
      'mfa_challenges.expires_at', 'mfa_challenges.completed_at', 'mfa_challenges.login_ticket_hash', 'mfa_challenges.new_method',
      'mfa_challenges.target', 'mfa_challenges.method_id', 'mfa_methods.method', 'mfa_methods.secret', 'mfa_methods.last_step'])
    .where('mfa_challenges.payload_hash', '=', hashToken(payload)).executeTakeFirst();
  if (!challenge || challenge.completed_at || challenge.attempts >= config.mfa.maxAttempts) throw new ApiError('challenge_closed');
  if (challenge.expires_at <= now) throw new ApiError('code_expired');
  const kind = challenge.method ?? challenge.new_method ?? '';

  let step: number | null = null;
  let right = false;
  let recoveryKeysLeft: number | undefined;
  if (kind === 'totp') {
    const sealed = challenge.secret ?? challenge.target;
    const totp = new TOTP({ secret: decryptSecret(config.secretKey, sealed!), digits: 6, period: 30 });
    const delta = /^\d{6}$/.test(code) ? totp.validate({ token: code, window: 1 }) : null;
    if (delta !== null) {
      step = Math.floor(Date.now() / 30_000) + delta;
      // Never the same code twice: the step must be newer than the last one accepted.
      right = challenge.last_step === null || step > Number(challenge.last_step);
    }
  } else if (kind === 'totpRecovery') {
    const left = await useRecoveryKey(ctx, challenge.user_id, code);
    right = left !== null;
    if (left !== null) recoveryKeysLeft = left;
  } else if (kind === 'card') {
    // The card challenge: the number of one of the user's activated cards.
    const card = await db.selectFrom('cards').select('id').where('user_id', '=', challenge.user_id)
      .where('number', '=', code.replace(/\s+/g, '')).where('activated_at', 'is not', null).executeTakeFirst();
    right = card !== undefined;
  } else if (challenge.code_hash) {
    right = sameHash(challenge.code_hash, hashCode(config.secretKey, challenge.id, code));
  }

  if (!right) {
    const counted = await db.updateTable('mfa_challenges').set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', challenge.id).where('attempts', '<', config.mfa.maxAttempts).where('completed_at', 'is', null).executeTakeFirst();
    if (Number(counted.numUpdatedRows) === 0) throw new ApiError('challenge_closed');
    const left = config.mfa.maxAttempts - challenge.attempts - 1;
    throw new ApiError(left > 0 ? 'invalid_code' : 'challenge_closed', { attempts_left: Math.max(0, left) });
  }

  // Exactly one of two racing verifications wins: the one whose update finds the challenge open.
  const closed = await db.updateTable('mfa_challenges').set({ completed_at: now })
    .where('id', '=', challenge.id).where('completed_at', 'is', null).where('attempts', '<', config.mfa.maxAttempts).executeTakeFirst();
  if (Number(closed.numUpdatedRows) === 0) throw new ApiError('challenge_closed');
  if (step !== null && challenge.method_id !== null) {
    const stepped = await db.updateTable('mfa_methods').set({ last_step: step })
      .where('id', '=', Number(challenge.method_id))
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)])).executeTakeFirst();
    if (Number(stepped.numUpdatedRows) === 0) throw new ApiError('invalid_code', { attempts_left: 0 });
  }
  return {
    userId: challenge.user_id, purpose: challenge.purpose as Purpose, method: kind,
    methodId: challenge.method_id === null ? null : Number(challenge.method_id),
    newMethod: challenge.new_method, target: challenge.target, loginTicketHash: challenge.login_ticket_hash,
    ...(recoveryKeysLeft !== undefined ? { recoveryKeysLeft } : {}),
  };
}
