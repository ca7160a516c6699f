// The MFA calls of spec §7: list, status, challenges (send and verify a code), primary switch,
// deletion, recovery keys, and adding a method (activate).
import type { FastifyInstance } from 'fastify';
import { variantLocaleOf, variantOfHost } from '../../contract/constants.ts';
import {
  MfaActivateAnswer,
  MfaActivateQuery,
  MfaActivateRequest,
  MfaActivateResult,
  MfaChallengeAnswer,
  MfaChallengeQuery,
  MfaDeleteRequest,
  MfaListQuery,
  MfaMethodList,
  MfaStatus,
  MfaVerifyAnswer,
  MfaVerifyRequest,
  PasswordStepUpRequest,
  RecoveryKeysAnswer,
} from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession, tokenOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { languageOf } from '../identity/accounts.ts';
import { addable, methodOf, methodsOf, removeMethod, summary, switchPrimary } from '../identity/second-factors.ts';
import { enrolmentOf, isMfaForced, offerLater } from '../sessions/enrolment.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { hasRecentMfa, requireRecentMfa } from '../sessions/stepup.ts';
import { clientOfSession, findSession, markMfa } from '../sessions/store.ts';
import { peekTicket, redeemTicketHash } from '../sessions/tickets.ts';
import { confirmActivation, startActivation } from './activation.ts';
import { stepUpWithPassword } from './password-step-up.ts';
import { startChallenge, verifyChallenge } from '../methods/challenges.ts';
import { regenerateRecoveryKeys, unusedRecoveryKeys } from '../methods/recovery-key.ts';

const idParam = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^-?\\d{1,10}$' } },
  required: ['id'],
  additionalProperties: false,
};

export async function mfaRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);
  // What a session limited to enrolment may do: see its methods and add the first one.
  const enrolling = requireSession(ctx.db, ctx.cookieName, { enrolment: true });
  const recentMfa = requireRecentMfa(ctx.config);
  const event = (
    request: { ip: string; deviceKey: string },
    userId: string,
    type: Parameters<typeof recordEvent>[1]['type'],
    detail?: Record<string, unknown>,
  ) =>
    recordEvent(ctx.db, { type, userId, ip: request.ip, deviceKey: request.deviceKey, ...(detail ? { detail } : {}) });

  app.get<{ Querystring: MfaListQuery }>(
    '/mfa',
    {
      schema: {
        tags: ['mfa'],
        summary:
          "The signed-in user's second factors; with includeAll, also the kinds that can be added (negative ids)",
        querystring: jsonSchema(MfaListQuery),
        response: responses({ 200: MfaMethodList }, [400, 401, 403, 503]),
      },
      preHandler: enrolling,
    },
    async (request) => {
      const userId = request.session!.userId;
      const methods = await methodsOf(ctx.db, userId);
      const data = await Promise.all(
        methods.map(async (m) =>
          m.method === 'totpRecovery'
            ? { ...summary(m), recovery_keys_left: await unusedRecoveryKeys(ctx.db, userId) }
            : summary(m),
        ),
      );
      const includeAll = request.query.includeAll !== undefined && !['false', '0'].includes(request.query.includeAll);
      return { data, ...(includeAll ? { available: addable(methods) } : {}) };
    },
  );

  app.get(
    '/mfa/status',
    {
      schema: {
        tags: ['mfa'],
        summary:
          'Whether this session passed MFA recently, and whether the account must (or may) set up a second factor',
        response: responses({ 200: MfaStatus }, [400, 401, 403, 503]),
      },
      preHandler: enrolling,
    },
    async (request) => {
      const session = request.session!;
      const methods = (await methodsOf(ctx.db, session.userId)).filter((m) => m.method !== 'totpRecovery');
      return {
        sudo: hasRecentMfa(session.mfaAt, ctx.config),
        single: methods.length === 1,
        // need_card: the card is the only way this account can pass a second factor.
        need_card: methods.length > 0 && methods.every((m) => m.method === 'card'),
        enrolment: await enrolmentOf(ctx.db, session.userId, await clientOfSession(ctx.db, session.sessionId)),
      };
    },
  );

  app.get<{ Querystring: MfaChallengeQuery }>(
    '/mfa/sudo',
    {
      schema: {
        tags: ['mfa'],
        summary:
          'Start a challenge on one method: deliver a code (or expect an authenticator code, recovery key or card number)',
        querystring: jsonSchema(MfaChallengeQuery),
        response: responses({ 200: MfaChallengeAnswer }, [400, 401, 404, 429, 503]),
      },
    },
    async (request) => {
      const { mfaId, payload, channel } = request.query;
      // With a login payload the challenge completes a sign-in; without, it is a step-up of this session.
      let userId: string | null;
      if (payload) {
        userId = await peekTicket(ctx.db, payload, 'mfa_login');
      } else {
        const token = tokenOf(request, ctx.cookieName);
        userId = token ? ((await findSession(ctx.db, token))?.userId ?? null) : null;
      }
      if (!userId) throw new ApiError('unauthorized');
      const method = await methodOf(ctx.db, userId, Number(mfaId));
      if (!method) throw new ApiError('not_found');
      return startChallenge(ctx, {
        // A sign-in's code speaks the language of the screen the person is looking at; the account's otherwise.
        userId,
        subject: method,
        purpose: payload ? 'login' : 'sudo',
        deviceKey: request.deviceKey,
        language:
          (payload ? variantLocaleOf(request.headers['accept-language'], variantOfHost(request.host)) : null) ??
          (await languageOf(ctx.db, userId)),
        ...(channel ? { channel } : {}),
        ...(payload ? { loginTicket: payload } : {}),
        ip: request.ip,
      });
    },
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
      const passed = await verifyChallenge(ctx, request.body.payload, request.body.code, {
        purposes: ['login', 'sudo'],
        deviceKey: request.deviceKey,
        ip: request.ip,
      });
      const left = passed.recoveryKeysLeft !== undefined ? { recovery_keys_left: passed.recoveryKeysLeft } : {};
      if (passed.recoveryKeysLeft !== undefined)
        await event(request, passed.userId, 'recovery_key_used', { left: passed.recoveryKeysLeft });
      if (passed.purpose === 'login') {
        // The sign-in's ticket is spent with it: one password check, one session.
        const spent = await redeemTicketHash(ctx.db, passed.loginTicketHash ?? '', 'mfa_login');
        if (!spent) throw new ApiError('unauthorized');
        const clientId = spent.client_id;
        const signedIn = await completeSignIn(ctx, request, reply, {
          userId: passed.userId,
          clientId: typeof clientId === 'string' ? clientId : null,
          viaMfa: true,
          trustDevice: request.body.isTrustedDevice === true,
          ...(typeof spent.microsoft_tenant === 'string' ? { microsoftTenant: spent.microsoft_tenant } : {}),
        });
        return { ...signedIn, ...left };
      }
      const token = tokenOf(request, ctx.cookieName);
      const session = token ? await findSession(ctx.db, token) : null;
      if (!session || session.userId !== passed.userId) throw new ApiError('unauthorized');
      await markMfa(ctx.db, session.sessionId);
      await event(request, passed.userId, 'mfa_step_up', { method: passed.method });
      return left;
    },
  );

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

  app.post(
    '/mfa/enrolment/later',
    {
      schema: {
        tags: ['mfa'],
        summary:
          'A customer offered a second factor says "not now": not offered again for 30 days (a forced account may not)',
        response: responses({ 204: null }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      if (!(await offerLater(ctx.db, request.session!.userId))) throw new ApiError('forbidden');
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    '/mfa/switch-primary/:id',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Make a method the primary one',
        params: idParam,
        response: responses({ 204: null }, [400, 401, 403, 404, 503]),
      },
      preHandler: [signedIn, recentMfa],
    },
    async (request, reply) => {
      const userId = request.session!.userId;
      const method = await methodOf(ctx.db, userId, Number(request.params.id));
      if (!method || method.method === 'totpRecovery') throw new ApiError('not_found');
      await switchPrimary(ctx.db, userId, method.id);
      await event(request, userId, 'mfa_primary_changed', { method: method.method, id: method.id });
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: { id: string }; Body: MfaDeleteRequest | undefined }>(
    '/mfa/:id',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Remove a method (never the last email or SMS one); the optional target becomes primary',
        params: idParam,
        body: jsonSchema(MfaDeleteRequest),
        response: responses({ 204: null }, [400, 401, 403, 404, 409, 503]),
      },
      // The body is optional: a bare DELETE validates as an empty object.
      preValidation: async (request) => {
        request.body ??= {};
      },
      preHandler: [signedIn, recentMfa],
    },
    async (request, reply) => {
      const userId = request.session!.userId;
      const target = request.body?.target;
      const removed = await removeMethod(ctx.db, {
        userId,
        id: Number(request.params.id),
        forced: await isMfaForced(ctx.db, userId),
        ...(target !== undefined ? { newPrimary: target } : {}),
      });
      await event(request, userId, 'mfa_method_removed', { method: removed.method, id: removed.id });
      return reply.code(204).send();
    },
  );

  app.post(
    '/mfa/regenerate-recovery',
    {
      schema: {
        tags: ['mfa'],
        summary: 'New recovery keys; the old ones stop working',
        response: responses({ 200: RecoveryKeysAnswer }, [400, 401, 403, 404, 503]),
      },
      preHandler: [signedIn, recentMfa],
    },
    async (request) => {
      const userId = request.session!.userId;
      if (!(await methodsOf(ctx.db, userId)).some((m) => m.method === 'totp')) throw new ApiError('not_found');
      const keys = await regenerateRecoveryKeys(ctx, userId);
      await event(request, userId, 'recovery_keys_regenerated');
      return { recovery_keys: keys };
    },
  );

  app.get<{ Params: { id: string }; Querystring: MfaActivateQuery }>(
    '/mfa/:id/activate',
    {
      schema: {
        tags: ['mfa'],
        summary:
          'Start adding a method (-1 email, -2 sms, -3 authenticator, -4 call, -5 whatsapp) or replacing one (edit=true); 204 when there is nothing to do',
        params: idParam,
        querystring: jsonSchema(MfaActivateQuery),
        response: responses({ 200: MfaActivateAnswer, 204: null }, [400, 401, 403, 404, 429, 503]),
      },
      preHandler: enrolling,
    },
    async (request, reply) => {
      const session = request.session!;
      const answer = await startActivation(
        ctx,
        {
          userId: session.userId,
          mfaAt: session.mfaAt,
          signedInAt: session.signedInAt,
          language: await languageOf(ctx.db, session.userId),
          variant: variantOfHost(request.host),
          deviceKey: request.deviceKey,
          ip: request.ip,
        },
        Number(request.params.id),
        request.query,
      );
      return answer ?? reply.code(204).send();
    },
  );

  app.post<{ Body: MfaActivateRequest }>(
    '/mfa/activate',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Finish adding a method with its first code',
        body: jsonSchema(MfaActivateRequest),
        response: responses({ 200: MfaActivateResult }, [400, 401, 403, 404, 409, 410, 422, 429, 503]),
      },
      preHandler: enrolling,
    },
    async (request) =>
      confirmActivation(
        ctx,
        {
          userId: request.session!.userId,
          sessionId: request.session!.sessionId,
          deviceKey: request.deviceKey,
          ip: request.ip,
        },
        request.body.payload,
        request.body.code,
      ),
  );
}
