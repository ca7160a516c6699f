// The challenges of spec §7: GET /mfa/sudo starts one on a method (for a sign-in that asks its
// second factor, or a step-up of the session), POST /mfa/sudo checks its code, and
// POST /mfa/sudo/password steps up by the password where the account has no second factor.
import { publicOriginOf } from '../http/origin.ts';
import type { FastifyInstance } from 'fastify';
import { variantLocaleOf } from '../../contract/constants.ts';
import {
  MfaChallengeAnswer,
  MfaChallengeQuery,
  MfaVerifyAnswer,
  MfaVerifyRequest,
  PasswordStepUpRequest,
} from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { tokenOf } from '../http/auth.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { keysLeft, passMfaChallenge, signInByMfa, startMfaChallenge, stepUpByMfa } from './challenge.ts';
import type { MfaGuards } from './guards.ts';
import { stepUpWithPassword } from './password-step-up.ts';

/** GET and POST /mfa/sudo: a login payload or the session's token says whose challenge it is. */
export async function challengeRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Querystring: MfaChallengeQuery }>(
    '/mfa/sudo',
    {
      // The spec's GET sends a code: a repeat of it with its key must not send another.
      config: { changes: true },
      schema: {
        tags: ['mfa'],
        summary:
          'Start a challenge on one method: deliver a code (or expect an authenticator code, recovery key or card number)',
        querystring: jsonSchema(MfaChallengeQuery),
        response: responses({ 200: MfaChallengeAnswer }, [400, 401, 404, 429, 503]),
      },
    },
    async (request) =>
      startMfaChallenge(ctx, {
        mfaId: request.query.mfaId,
        payload: request.query.payload,
        channel: request.query.channel,
        token: request.query.payload ? null : tokenOf(request, ctx.cookieName),
        screenLanguage: variantLocaleOf(
          request.headers['accept-language'],
          publicOriginOf(ctx.config, request).variant,
        ),
        deviceKey: request.deviceKey,
        ip: request.ip,
      }),
  );

  app.post<{ Body: MfaVerifyRequest }>(
    '/mfa/sudo',
    {
      schema: {
        tags: ['mfa'],
        summary: "Verify a code; completes a sign-in (access_token) or refreshes this session's MFA check",
        body: jsonSchema(MfaVerifyRequest),
        response: responses({ 200: MfaVerifyAnswer }, [400, 401, 410, 422, 429, 503]),
      },
    },
    async (request, reply) => {
      const token = tokenOf(request, ctx.cookieName);
      const passed = await passMfaChallenge(ctx, request, request.body.payload, request.body, token);
      if (passed.purpose === 'login') {
        const signedIn = await signInByMfa(ctx, request, reply, passed, request.body.isTrustedDevice === true);
        return { ...signedIn, ...keysLeft(passed) };
      }
      await stepUpByMfa(ctx, request, token, passed);
      return keysLeft(passed);
    },
  );
}

/** POST /mfa/sudo/password: only for an account without a second factor. */
export async function passwordStepUpRoutes(app: FastifyInstance, ctx: AppContext, { enrolling }: MfaGuards) {
  app.post<{ Body: PasswordStepUpRequest }>(
    '/mfa/sudo/password',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Step up by typing the password again: only for an account without a second factor',
        body: jsonSchema(PasswordStepUpRequest),
        response: responses({ 204: null }, [400, 401, 403, 409, 429, 503]),
      },
      preHandler: enrolling,
    },
    async (request, reply) => {
      const session = request.session!;
      await stepUpWithPassword(
        ctx,
        { userId: session.userId, sessionId: session.sessionId, ip: request.ip, deviceKey: request.deviceKey },
        request.body.password,
      );
      return reply.code(204).send();
    },
  );
}
