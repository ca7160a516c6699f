// What a password sign-in leads to once the password is right: a second factor to pass (unless
// this device was trusted after one), else the session itself.
import type { AppContext } from '../context.ts';
import { methodsOf, summary } from '../identity/second-factors.ts';
import type { SetupMfaFacts } from '../sessions/setupMfa.ts';
import { isTrustedDevice } from '../sessions/devices.ts';
import { issueTicket } from '../sessions/tickets.ts';
import type { LoginOutcome } from './authenticate.ts';

export type SignInDecision =
  /** The second factor is due: the ticket (`payload`) a code on one of these methods spends. */
  | { kind: 'second_factor'; payload: string; methods: ReturnType<typeof summary>[] }
  /** The session opens now, with what the enrolment rule needs to know. */
  | { kind: 'session'; enrolment: SetupMfaFacts };

export async function decideSignIn(
  ctx: AppContext,
  outcome: Extract<LoginOutcome, { kind: 'success' }>,
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
