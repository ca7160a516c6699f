// The MFA calls of spec §7, registered by what they do, in this order:
//   - the methods the user has (list, status): method-routes.ts;
//   - the challenges (send and verify a code, for a sign-in or a step-up) and the step-up by
//     password: step-up-routes.ts;
//   - the set-up offer's "not now": setup-mfa-routes.ts;
//   - the changes to the methods (primary switch, deletion, recovery keys): method-routes.ts;
//   - adding a method (activate): setup-mfa-routes.ts.
// Each handler reads the request and calls the domain (manage.ts, challenge.ts, activation.ts,
// password-step-up.ts).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { activationRoutes, setupMfaRoutes } from './setup-mfa-routes.ts';
import { mfaGuards } from './guards.ts';
import { methodChangeRoutes, methodListRoutes } from './method-routes.ts';
import { challengeRoutes, passwordStepUpRoutes } from './step-up-routes.ts';

export async function mfaRoutes(app: FastifyInstance, ctx: AppContext) {
  const guards = mfaGuards(ctx);
  await methodListRoutes(app, ctx, guards);
  await challengeRoutes(app, ctx);
  await passwordStepUpRoutes(app, ctx, guards);
  await setupMfaRoutes(app, ctx, guards);
  await methodChangeRoutes(app, ctx, guards);
  await activationRoutes(app, ctx, guards);
}
