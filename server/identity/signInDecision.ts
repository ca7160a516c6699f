// What a right password leads to, typed at sign-in or just chosen at the end of an onboarding: a
// second factor to pass (unless this device was trusted after one), else the session itself, scoped
// to setting up a second factor when the account must have one (docs/decisions/forced-mfa.md). The
// one place that decides: every way in by password (server/login, server/onboarding) goes through
// signInWithPassword.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MfaRequiredAnswer, TokenAnswer } from '../../contract/baseSchemas.ts';
import type { AppContext } from '../context.ts';
import { methodsOf, summary } from './second-factors.ts';
import type { SetupMfaFacts } from '../sessions/setupMfa.ts';
import { isTrustedDevice } from '../sessions/devices.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { issueTicket } from '../sessions/tickets.ts';

/** The account whose password was right, with the facts its look-up read (findByLoginName). */
export type RightPassword = { userId: string; secondFactor: SetupMfaFacts };

type SignInDecision =
  /** The second factor is due: the ticket (`payload`) a code on one of these methods spends. */
  | { kind: 'second_factor'; payload: string; methods: ReturnType<typeof summary>[] }
  /** The session opens now, with what the enrolment rule needs to know. */
  | { kind: 'session'; enrolment: SetupMfaFacts };

async function decideSignIn(
  ctx: AppContext,
  outcome: RightPassword,
  input: { deviceKey: string; clientId: string | undefined },
): Promise<SignInDecision> {
  // The account's look-up said whether it has a second factor: an account without asks nothing
  // more of the database.
  const methods = outcome.secondFactor.enrolled ? await methodsOf(ctx.db, outcome.userId) : [];
  if (methods.length > 0 && !(await isTrustedDevice(ctx.db, outcome.userId, input.deviceKey))) {
    // The ticket remembers the client the sign-in is for: the session the code opens is for it too.
    const payload = await issueTicket(
      ctx.db,
      outcome.userId,
      'mfa_login',
      ctx.config.mfa.codeTtlSeconds,
      input.clientId ? { client_id: input.clientId } : undefined,
    );
    return { kind: 'second_factor', payload, methods: methods.map(summary) };
  }
  return { kind: 'session', enrolment: { ...outcome.secondFactor, enrolled: methods.length > 0 } };
}

export type PasswordSignIn =
  { kind: 'second_factor'; mfa: MfaRequiredAnswer['mfa'] } | { kind: 'session'; token: TokenAnswer };

/** Decides, and opens the session (its cookie set on `reply`) when no second factor is due. */
export async function signInWithPassword(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: RightPassword,
  clientId: string | undefined,
): Promise<PasswordSignIn> {
  const next = await decideSignIn(ctx, outcome, { deviceKey: request.deviceKey, clientId });
  if (next.kind === 'second_factor') {
    return { kind: 'second_factor', mfa: { payload: next.payload, methods: next.methods } };
  }
  const token = await completeSignIn(ctx, request, reply, {
    userId: outcome.userId,
    clientId: clientId ?? null,
    viaMfa: false,
    enrolment: next.enrolment,
  });
  return { kind: 'session', token };
}
