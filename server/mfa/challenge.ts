// A challenge on one of the account's methods, for a sign-in that asks its second factor (the
// login ticket names the account) or for a step-up of the session (the session names it).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { languageOf } from '../identity/accounts.ts';
import { methodOf } from '../identity/second-factors.ts';
import {
  answerOf,
  startChallenge,
  verifyChallenge,
  type ChallengeAnswer,
  type PassedChallenge,
} from '../methods/challenges.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { findSession, markMfa } from '../sessions/store.ts';
import { peekTicket, redeemTicketHash } from '../sessions/tickets.ts';
import { recordMfaEvent } from './manage.ts';

type Caller = { ip: string; deviceKey: string };

/** Starts a challenge on a method. With a login payload it completes a sign-in; without, it is a
 * step-up of the session the token opens. */
export async function startMfaChallenge(
  ctx: AppContext,
  input: Caller & {
    mfaId: string;
    payload?: string | undefined;
    channel?: string | undefined;
    /** The session token, for a step-up. */
    token: string | null;
    /** A sign-in's code speaks the language of the screen the person is looking at; the account's otherwise. */
    screenLanguage: string | null;
  },
) {
  const { mfaId, payload, channel } = input;
  let userId: string | null;
  let sessionId: string | undefined;
  if (payload) {
    userId = await peekTicket(ctx.db, payload, 'mfa_login');
  } else {
    const session = input.token ? await findSession(ctx.db, input.token) : null;
    userId = session?.userId ?? null;
    sessionId = session?.sessionId;
  }
  if (!userId) throw new ApiError('unauthorized');
  const method = await methodOf(ctx.db, userId, Number(mfaId));
  if (!method) throw new ApiError('not_found');
  return startChallenge(ctx, {
    userId,
    subject: method,
    purpose: payload ? 'login' : 'sudo',
    deviceKey: input.deviceKey,
    language: (payload ? input.screenLanguage : null) ?? (await languageOf(ctx.db, userId)),
    ...(channel ? { channel } : {}),
    ...(payload ? { loginTicket: payload } : {}),
    ...(sessionId ? { sessionId } : {}),
    ip: input.ip,
  });
}

/** Checks the answer to a sign-in's or a step-up's challenge; a recovery key's use, and a passkey's,
 * are recorded. `token`: the session answering, for a step-up. */
export async function passMfaChallenge(
  ctx: AppContext,
  caller: Caller,
  payload: string,
  answer: ChallengeAnswer,
  token: string | null,
) {
  const session = token ? await findSession(ctx.db, token) : null;
  const passed = await verifyChallenge(ctx, payload, answerOf(answer), {
    purposes: ['login', 'sudo'],
    deviceKey: caller.deviceKey,
    ip: caller.ip,
    sessionId: session?.sessionId ?? null,
  });
  if (passed.method === 'passkey')
    await recordMfaEvent(
      ctx.db,
      { userId: passed.userId, ip: caller.ip, deviceKey: caller.deviceKey },
      'passkey_used',
      {
        id: passed.methodId,
        purpose: passed.purpose,
      },
    );
  if (passed.recoveryKeysLeft !== undefined)
    await recordMfaEvent(
      ctx.db,
      { userId: passed.userId, ip: caller.ip, deviceKey: caller.deviceKey },
      'recovery_key_used',
      {
        left: passed.recoveryKeysLeft,
      },
    );
  return passed;
}

/** What the answer says of the recovery keys left, after one was used. */
export function keysLeft(passed: PassedChallenge): { recovery_keys_left?: number } {
  return passed.recoveryKeysLeft !== undefined ? { recovery_keys_left: passed.recoveryKeysLeft } : {};
}

/** A sign-in's challenge passed: its ticket is spent with it (one password check, one session). */
export async function signInByMfa(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  passed: PassedChallenge,
  trustDevice: boolean,
) {
  const spent = await redeemTicketHash(ctx.db, passed.loginTicketHash ?? '', 'mfa_login');
  if (!spent) throw new ApiError('unauthorized');
  const clientId = spent.client_id;
  return completeSignIn(ctx, request, reply, {
    userId: passed.userId,
    clientId: typeof clientId === 'string' ? clientId : null,
    viaMfa: true,
    ...(passed.amr ? { mfaAmr: passed.amr } : {}),
    trustDevice,
    ...(typeof spent.microsoft_tenant === 'string' ? { microsoftTenant: spent.microsoft_tenant } : {}),
  });
}

/** A step-up's challenge passed: the session it belongs to counts a recent second factor. */
export async function stepUpByMfa(
  ctx: AppContext,
  caller: Caller,
  token: string | null,
  passed: PassedChallenge,
): Promise<void> {
  const session = token ? await findSession(ctx.db, token) : null;
  if (!session || session.userId !== passed.userId) throw new ApiError('unauthorized');
  await markMfa(ctx.db, session.sessionId, passed.amr ?? null);
  await recordMfaEvent(ctx.db, { userId: passed.userId, ip: caller.ip, deviceKey: caller.deviceKey }, 'mfa_step_up', {
    method: passed.method,
  });
}
