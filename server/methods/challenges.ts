// An account's challenges: one per code sent. A challenge is held by an opaque payload (stored
// hashed), dies after its expiry, after the maximum of wrong codes, or on success; a new code
// (resend) replaces the challenge after the server-enforced wait (30 s, then 15 s). The same
// machinery serves a sign-in ('login'), a step-up ('sudo'), adding a method ('activate') and a
// forgotten password ('reset'), on the rules of the challenge store; an onboarding, which has no
// account yet, opens its challenges on the store from its flow.
import { createHmac } from 'node:crypto';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { countFailure, passCeiling, type Ceiling } from '../captcha/ceilings.ts';
import type { AppContext } from '../context.ts';
import type { Channel } from '../delivery/index.ts';
import { nowIso, type Db } from '../db/index.ts';
import { lockUser } from '../db/locks.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { forget, refund, spend, spendInTurn, standing } from '../ratelimit/index.ts';
import { hashToken, newId, newToken } from '../sessions/tokens.ts';
import {
  closeChallenge,
  countWrongAnswer,
  openChallenge,
  resendWait,
  retireChallenge,
  sendingBudgets,
  waitAfterSend,
} from './challenge-store.ts';
import { hashCode, maskTarget, sameHash } from './codes.ts';
import { methodOfKind } from './index.ts';
import type { NewPasskey } from './passkey.ts';
import type { PasskeyCredential, PasskeyOptions } from '../../contract/schemas.ts';

export type Purpose = 'login' | 'sudo' | 'activate' | 'reset' | 'contact' | 'merge';
const DAY_MS = 24 * 3600 * 1000;

/** What a challenge is about: an existing method (id), or for activation and reset a kind and
 * target (id null); an activation may replace an existing method (new target, reset authenticator). */
export type ChallengeSubject = {
  id: number | null;
  method: string;
  target: string | null;
  secret?: string | null;
  replaces?: number | null;
};

export type StartedChallenge = {
  payload: string;
  method: string;
  target?: string;
  expires_at: string;
  expires_in: number;
  resend_at?: string;
  resend_in?: number;
  /** For a passkey: what the browser asks its authenticator. */
  passkey?: PasskeyOptions;
};

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
 * address, so it replaces nothing: a code a stranger asks for never spoils the owner's. It waits
 * all the same: codes to one destination are spaced as resends are (30 s, then 15 s after each),
 * whoever asks, decided under the account's row lock, so of thirty requests at once one sends. */
export async function startChallenge(
  ctx: AppContext,
  input: {
    userId: string;
    language: string;
    subject: ChallengeSubject;
    purpose: Purpose;
    deviceKey: string;
    channel?: string;
    loginTicket?: string;
    /** The client address, as resolved through the trusted proxies: its own sending budget bites first. */
    ip: string;
    /** The signed-in session asking (a step-up, a new method): only it may answer. */
    sessionId?: string;
    /** The hash of a payload already handed out (a forgotten-password request answered before its
     * challenge existed); without it a new payload is made. */
    payloadHash?: string;
  },
): Promise<StartedChallenge> {
  const { db, config } = ctx;
  const { subject } = input;
  const now = Date.now();
  const method = methodOfKind(subject.method);
  // Only a code Tessera sends costs a sending budget and waits before it is replaced.
  const coded = method.start !== undefined;
  const replacing = input.purpose !== 'reset';
  // The last code for this subject: the one a new code replaces, or for a forgotten password (which
  // replaces nothing) the last one sent, used or not: the spacing counts sends, not valid codes.
  const previousOf = (reader: Db) => {
    let query = reader
      .selectFrom('mfa_challenges')
      .select(['id', 'sends', 'resend_at'])
      .where('user_id', '=', input.userId)
      .where('purpose', '=', input.purpose)
      .where('expires_at', '>', nowIso(now))
      .$if(replacing, (q) => q.where('completed_at', 'is', null));
    query =
      subject.id !== null
        ? query.where('method_id', '=', subject.id)
        : query.where('new_method', '=', subject.method).where('target', '=', subject.target ?? '');
    return query.orderBy('created_at', 'desc').executeTakeFirst();
  };
  // A cheap look first, so a burst of resends is refused before it spends any sending budget.
  const early = coded ? resendWait(await previousOf(db), now) : 0;
  if (early > 0) throw ApiError.resendTooSoon(early);

  const spent = coded ? sendingBudgets(ctx, input.ip, subject.target!, input.userId) : [];
  const blocked = await spendInTurn(spent);
  if (blocked > 0) throw ApiError.tooMany(blocked);

  const id = newId();
  const payload = newToken();
  const ttl = method.ttlSeconds ?? config.mfa.codeTtlSeconds;
  const expiresAt = nowIso(now + ttl * 1000);
  // A method the browser answers by itself is asked its question now (it sends nothing).
  const asked = await method.ask?.(ctx, { challengeId: id, userId: input.userId, methodId: subject.id });
  let wait = config.mfa.resendFirstWaitSeconds;
  try {
    await db.transaction().execute(async (trx) => {
      // One writer per account at a time: of thirty simultaneous resends, one finds the wait over.
      await lockUser(trx, input.userId);
      const previous = await previousOf(trx);
      const tooSoon = coded ? resendWait(previous, now) : 0;
      if (tooSoon > 0) throw new TooSoon(tooSoon);
      const sends = (previous?.sends ?? 0) + 1;
      wait = waitAfterSend(config, sends > 1);
      if (previous && replacing) await retireChallenge(ctx, trx, previous.id, now);
      // Challenges are kept a day past their expiry (the resend wait reads them), then go.
      await trx
        .deleteFrom('mfa_challenges')
        .where('user_id', '=', input.userId)
        .where('expires_at', '<', nowIso(now - DAY_MS))
        .execute();
      await openChallenge(
        ctx,
        trx,
        {
          id,
          purpose: input.purpose,
          method: subject.method,
          language: input.language,
          ...(input.channel ? { channel: input.channel } : {}),
          userId: input.userId,
          methodId: subject.id,
          newMethod: subject.id === null ? subject.method : null,
          // For a new authenticator the sealed secret waits here until its first code proves the setup.
          target: subject.id === null ? (subject.secret ?? subject.target) : null,
          payloadHash: input.payloadHash ?? hashToken(payload),
          sends,
          resendWaitSeconds: wait,
          deviceKey: input.deviceKey,
          loginTicketHash: input.loginTicket ? hashToken(input.loginTicket) : null,
          replacesMethodId: subject.replaces ?? null,
          replacedId: previous && replacing ? previous.id : null,
          ...(coded ? { sendTo: subject.target! } : {}),
          ...(asked ? { codeHash: asked.codeHash } : {}),
          sessionId: input.sessionId ?? null,
        },
        now,
      );
    });
  } catch (error) {
    // Nothing was sent: the budget spent on the way is given back.
    await Promise.all(spent.map(([limiter, key]) => refund(limiter, key)));
    if (error instanceof TooSoon) throw ApiError.resendTooSoon(error.wait);
    throw error;
  }
  ctx.outbox.kick();
  return {
    payload,
    method: subject.method,
    expires_at: expiresAt,
    expires_in: ttl,
    ...(asked ? { passkey: asked.options } : {}),
    ...(subject.target && coded ? { target: maskTarget(subject.target) } : {}),
    ...(coded ? { resend_at: nowIso(now + wait * 1000), resend_in: wait } : {}),
  };
}

export type PassedChallenge = {
  userId: string;
  purpose: Purpose;
  methodId: number | null;
  method: string;
  /** For activation: the new method's kind and target (or sealed TOTP secret), and the method it replaces. */
  newMethod: string | null;
  target: string | null;
  replacesMethodId: number | null;
  /** The authenticator time step accepted (a new authenticator starts from it: its first code is spent). */
  step: number | null;
  loginTicketHash: string | null;
  /** After a recovery key: how many unused keys remain. */
  recoveryKeysLeft?: number;
  /** How the factor was given, where OIDC's amr names it (a passkey's 'hwk' or 'swk'). */
  amr?: string;
  /** A new passkey's credential, for its binding. */
  credential?: NewPasskey;
};

/** What a forgotten-password challenge's failures are counted by: the name that was typed, keyed
 * with the server's key. A real account's challenge holds the name it was sent to; a stand-in (an
 * unknown name, or a request that sent nothing) holds only this key, never the name itself. */
export function resetNameKey(secretKey: string, name: string): string {
  return `name:${createHmac('sha256', secretKey).update(`reset-name:${name}`).digest('base64url')}`;
}

/** A forgotten password's stand-in challenge, for a request that sent nothing (an unknown name, or
 * a code too soon): no user and no code, its failures counted by the name's key, so a wrong answer
 * to it costs the same work as to a real one, and no answer is ever right. */
export async function openStandInReset(
  ctx: AppContext,
  input: { method: 'email' | 'sms'; name: string; payloadHash: string; deviceKey: string | null },
): Promise<void> {
  await openChallenge(
    ctx,
    ctx.db,
    {
      id: newId(),
      purpose: 'reset',
      method: input.method,
      language: 'en',
      userId: null,
      methodId: null,
      newMethod: input.method,
      target: resetNameKey(ctx.config.secretKey, input.name),
      payloadHash: input.payloadHash,
      sends: 1,
      resendWaitSeconds: ctx.config.mfa.resendFirstWaitSeconds,
      deviceKey: input.deviceKey,
    },
    Date.now(),
  );
}

function resetKeyOf(secretKey: string, challenge: { id: string; target: string | null }, standIn: boolean): string {
  if (standIn) return challenge.target ?? `request:${challenge.id}`;
  return resetNameKey(secretKey, challenge.target ?? '');
}

/** What a wrong code is called: the code of the challenge this one replaced (a resend) was replaced
 * by a newer one; any other is invalid. Both count as a wrong code: only the words differ, and only
 * for the person who received the older code. */
function wrongCodeOf(
  secretKey: string,
  challenge: { replaced_id: string | null; replaced_code_hash: string | null },
  code: string,
): 'code_replaced' | 'invalid_code' {
  const { replaced_id: id, replaced_code_hash: hash } = challenge;
  return id !== null && hash !== null && sameHash(hash, hashCode(secretKey, id, code))
    ? 'code_replaced'
    : 'invalid_code';
}

/** A challenge's answer: a typed code, or a passkey's credential (as its method reads it). */
export type ChallengeAnswer = { code?: string | undefined; credential?: PasskeyCredential | undefined };

/** The answer as its method reads it; neither of the two is a malformed request. */
export function answerOf(answer: ChallengeAnswer): string {
  if (answer.code !== undefined) return answer.code;
  if (answer.credential !== undefined) return JSON.stringify(answer.credential);
  throw new ApiError('validation_failed', { fields: [{ field: 'code', code: 'required' }] });
}

/** Thrown inside the closing transaction: the answer was right but lost a race (replayed authenticator code, key spent). */
class Lost extends Error {}
class Closed extends Error {}

/** Checks a code against its challenge; on success closes it, atomically, and says for whom and why.
 * A challenge of another purpose than the caller expects, or a sign-in's challenge answered from
 * another device, reads as closed and costs no attempt. */
export async function verifyChallenge(
  ctx: AppContext,
  payload: string,
  code: string,
  options: {
    purposes?: readonly Purpose[];
    deviceKey?: string;
    ip?: string;
    /** A solved CAPTCHA, for past the account's ceiling; without it, the request's X-Captcha header. */
    captcha?: string;
    /** The session answering: a challenge a session asked for is answered only in it. */
    sessionId?: string | null;
  } = {},
): Promise<PassedChallenge> {
  const { db, config } = ctx;
  const now = nowIso();
  const challenge = await db
    .selectFrom('mfa_challenges')
    .leftJoin('mfa_methods', 'mfa_methods.id', 'mfa_challenges.method_id')
    .leftJoin('mfa_challenges as replaced', 'replaced.id', 'mfa_challenges.replaced_id')
    .select([
      'mfa_challenges.id',
      'mfa_challenges.user_id',
      'mfa_challenges.purpose',
      'mfa_challenges.code_hash',
      'mfa_challenges.attempts',
      'mfa_challenges.expires_at',
      'mfa_challenges.completed_at',
      'mfa_challenges.login_ticket_hash',
      'mfa_challenges.new_method',
      'mfa_challenges.target',
      'mfa_challenges.method_id',
      'mfa_challenges.device_key',
      'mfa_challenges.replaces_method_id',
      'mfa_challenges.flow_id',
      'mfa_challenges.replaced_id',
      'mfa_challenges.session_id',
      'replaced.code_hash as replaced_code_hash',
      'mfa_methods.method',
      'mfa_methods.secret',
      'mfa_methods.last_step',
    ])
    .where('mfa_challenges.payload_hash', '=', hashToken(payload))
    .executeTakeFirst();
  // A forgotten-password request for an unknown account holds a challenge too, with no user and no
  // code: a wrong answer to it costs the same work as to a real one, and no answer is ever right.
  // An onboarding's challenge (no user either) is answered through its flow, never here.
  const standIn = challenge?.user_id === null && challenge.purpose === 'reset' && challenge.flow_id === null;
  if (
    !challenge ||
    (challenge.user_id === null && !standIn) ||
    challenge.completed_at ||
    challenge.attempts >= config.mfa.maxAttempts
  ) {
    throw new ApiError('challenge_closed');
  }
  const userId = challenge.user_id ?? '';
  const purpose = challenge.purpose as Purpose;
  if (options.purposes && !options.purposes.includes(purpose)) throw new ApiError('challenge_closed');
  if (
    purpose === 'login' &&
    options.deviceKey !== undefined &&
    challenge.device_key !== null &&
    challenge.device_key !== options.deviceKey
  ) {
    throw new ApiError('challenge_closed');
  }
  if (challenge.session_id !== null && challenge.session_id !== options.sessionId) {
    throw new ApiError('challenge_closed');
  }
  if (challenge.expires_at <= now) throw new ApiError('code_expired');

  // Wrong answers are counted per account and address, then under the account's ceiling: a
  // password holder cannot guess authenticator codes across endless challenges, and a stranger
  // guessing from many addresses makes every try on the account need a harder proof of work, never
  // a wait (server/captcha/ceilings.ts). A forgotten-password request is anonymous, so its failures
  // are counted apart, by the name typed (a stand-in's the same as a real account's, so the puzzle
  // tells nothing), and never touch the owner's sign-in.
  const accountKey = purpose === 'reset' ? resetKeyOf(ctx.config.secretKey, challenge, standIn) : userId;
  const perAddress: [RateLimiterAbstract, string] = [
    purpose === 'reset' ? ctx.limiters.resetFailuresUserIp : ctx.limiters.mfaFailuresUserIp,
    `${accountKey}|${options.ip ?? ''}`,
  ];
  const ceiling: Ceiling = purpose === 'reset' ? 'resetFailuresAccount' : 'mfaFailures';
  const blocked = (await standing(...perAddress)).wait;
  if (blocked > 0) throw ApiError.tooMany(blocked);
  await passCeiling(ctx, ceiling, accountKey, options.captcha);

  const existing = challenge.method_id !== null;
  const kind = (existing ? challenge.method : challenge.new_method) ?? '';
  const method = methodOfKind(kind);
  const verdict = await method.verify(
    ctx,
    {
      id: challenge.id,
      userId,
      codeHash: challenge.code_hash,
      methodId: existing ? Number(challenge.method_id) : null,
      // A new authenticator's sealed secret waits in the challenge until its first code proves the setup.
      secret: existing ? challenge.secret : challenge.target,
      lastStep: existing && challenge.last_step !== null ? Number(challenge.last_step) : null,
    },
    code,
  );

  const refuse = async (): Promise<never> => {
    const counted = await countWrongAnswer(ctx, challenge.id);
    if (counted === null) throw new ApiError('challenge_closed');
    const [wait, next] = await Promise.all([spend(...perAddress), countFailure(ctx.limiters, ceiling, accountKey)]);
    await recordEvent(db, {
      type: 'mfa_failed',
      userId: challenge.user_id,
      ip: options.ip ?? null,
      deviceKey: options.deviceKey ?? null,
      detail: { method: kind, purpose },
    });
    if (wait > 0) throw ApiError.tooMany(wait);
    const left = Math.max(0, config.mfa.maxAttempts - counted);
    // Past the ceiling now: the next try needs a puzzle, said at once so the form can show it.
    const puzzle = next > 0 && config.captcha.enabled ? { captcha: true, captcha_level: next } : {};
    const wrong = method.wrong ?? wrongCodeOf(config.secretKey, challenge, code);
    throw new ApiError(left > 0 ? wrong : 'challenge_closed', { attempts_left: left, ...puzzle });
  };
  if (!verdict.right || standIn) return refuse();

  // Exactly one of two racing verifications wins: the one whose update finds the challenge open.
  // What the answer uses up (the authenticator's step, the recovery key) is spent in the same transaction.
  try {
    await db.transaction().execute(async (trx) => {
      if (!(await closeChallenge(ctx, trx, challenge.id, now))) throw new Closed();
      if (verdict.spend && !(await verdict.spend(trx))) throw new Lost();
    });
  } catch (error) {
    if (error instanceof Closed) throw new ApiError('challenge_closed');
    if (error instanceof Lost) return refuse();
    throw error;
  }
  // The owner got in from here: this address's count starts again (a ceiling keeps its count).
  await forget(...perAddress);
  return {
    userId,
    purpose,
    method: kind,
    methodId: existing ? Number(challenge.method_id) : null,
    newMethod: challenge.new_method,
    target: challenge.target,
    replacesMethodId: challenge.replaces_method_id === null ? null : Number(challenge.replaces_method_id),
    step: verdict.step ?? null,
    loginTicketHash: challenge.login_ticket_hash,
    ...(verdict.after ? await verdict.after(db) : {}),
    ...(verdict.amr ? { amr: verdict.amr } : {}),
    ...(verdict.credential ? { credential: verdict.credential } : {}),
  };
}

// An onboarding's codes: no account yet, so its flow holds the challenge. One code is outstanding
// per flow (a new one retires the one before, whatever its address); the flow numbers its sends,
// which caps them and decides a race: of thirty requests at once, one inserts the next number.

/** The flow's latest challenge (its sends are numbered), open or not. */
export async function latestFlowChallenge(ctx: Pick<AppContext, 'db'>, flowId: string) {
  return ctx.db
    .selectFrom('mfa_challenges')
    .leftJoin('mfa_challenges as replaced', 'replaced.id', 'mfa_challenges.replaced_id')
    .select([
      'mfa_challenges.id',
      'mfa_challenges.new_method',
      'mfa_challenges.target',
      'mfa_challenges.code_hash',
      'mfa_challenges.attempts',
      'mfa_challenges.sends',
      'mfa_challenges.expires_at',
      'mfa_challenges.resend_at',
      'mfa_challenges.completed_at',
      'mfa_challenges.replaced_id',
      'replaced.code_hash as replaced_code_hash',
    ])
    .where('mfa_challenges.flow_id', '=', flowId)
    .where('mfa_challenges.purpose', '=', 'onboarding')
    .orderBy('mfa_challenges.sends', 'desc')
    .executeTakeFirst();
}

export type FlowChallenge = NonNullable<Awaited<ReturnType<typeof latestFlowChallenge>>>;

class LostSend extends Error {}

/** Sends a flow's code to `target`, on the one resend rule: a new code to the same address waits
 * for the last one's resend time, and is itself a resend while that one can still be typed. `write`
 * is the flow's own change, in the challenge's transaction (the address it now waits on). */
export async function startFlowChallenge(
  ctx: AppContext,
  input: {
    flowId: string;
    method: 'email' | 'sms';
    channel: Channel;
    language: string;
    target: string;
    ip: string;
    maxSends: number;
    write: (trx: Db) => Promise<void>;
  },
): Promise<{ expiresAt: string; resendAt: string; wait: number }> {
  const { config, db } = ctx;
  const now = Date.now();
  const previous = await latestFlowChallenge(ctx, input.flowId);
  const open = previous !== undefined && previous.completed_at === null;
  const sameTarget = open && previous.target === input.target;
  if (sameTarget) {
    const tooSoon = resendWait(previous, now);
    if (tooSoon > 0) throw ApiError.resendTooSoon(tooSoon);
  }
  const sendsSoFar = previous?.sends ?? 0;
  if (sendsSoFar >= input.maxSends) throw new ApiError('too_many_attempts');
  // The requester's own budget for this destination bites before the destination's.
  const spent = sendingBudgets(ctx, input.ip, input.target);
  const blocked = await spendInTurn(spent);
  if (blocked > 0) throw ApiError.tooMany(blocked);

  const wait = waitAfterSend(config, sameTarget && previous.expires_at > nowIso(now));
  const won = await db
    .transaction()
    .execute(async (trx) => {
      const opened = await openChallenge(
        ctx,
        trx,
        {
          id: newId(),
          purpose: 'onboarding',
          method: input.method,
          channel: input.channel,
          language: input.language,
          userId: null,
          flowId: input.flowId,
          methodId: null,
          newMethod: input.method,
          target: input.target,
          // Nobody holds this challenge by a payload: the flow's token leads to it.
          payloadHash: hashToken(newToken()),
          sends: sendsSoFar + 1,
          resendWaitSeconds: wait,
          deviceKey: null,
          replacedId: open ? previous.id : null,
          sendTo: input.target,
        },
        now,
      );
      // Lost the race: throwing rolls back the message queued with it.
      if (!opened) throw new LostSend();
      if (open) await retireChallenge(ctx, trx, previous.id, now);
      await input.write(trx);
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof LostSend) return false;
      throw error;
    });
  if (!won) {
    await Promise.all(spent.map(([limiter, key]) => refund(limiter, key)));
    throw ApiError.resendTooSoon(wait);
  }
  ctx.outbox.kick();
  return {
    expiresAt: nowIso(now + config.mfa.codeTtlSeconds * 1000),
    resendAt: nowIso(now + wait * 1000),
    wait,
  };
}

/** Checks a code against the flow's open challenge. A wrong one is counted (`invalid_code` with the
 * attempts left, or `challenge_closed`); the right one closes it, once, in a transaction where
 * `prove` writes what it proves, or says the address is taken (then it stays unproven). */
export async function verifyFlowChallenge<T extends string>(
  ctx: AppContext,
  challenge: FlowChallenge,
  code: string,
  prove: (trx: Db, now: string) => Promise<T>,
): Promise<T> {
  const { config, db } = ctx;
  if (challenge.attempts >= config.mfa.maxAttempts) throw new ApiError('challenge_closed');
  if (challenge.expires_at <= nowIso()) throw new ApiError('code_expired');
  const verdict = await methodOfKind(challenge.new_method ?? '').verify(
    ctx,
    { id: challenge.id, userId: null, codeHash: challenge.code_hash, methodId: null, secret: null, lastStep: null },
    code,
  );
  if (!verdict.right) {
    const counted = await countWrongAnswer(ctx, challenge.id);
    const left = counted === null ? 0 : Math.max(0, config.mfa.maxAttempts - counted);
    throw new ApiError(left > 0 ? wrongCodeOf(config.secretKey, challenge, code) : 'challenge_closed', {
      attempts_left: left,
    });
  }
  const now = nowIso();
  // Spent once: of two racing checks of the right code, one closes the challenge.
  const outcome = await db.transaction().execute(async (trx) => {
    if (!(await closeChallenge(ctx, trx, challenge.id, now))) return null;
    return prove(trx, now);
  });
  if (outcome === null) throw new ApiError('challenge_closed');
  return outcome;
}
