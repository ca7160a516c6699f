// The MFA calls of spec §7: list, status, start a challenge (send a code), verify it.
import type { FastifyInstance } from 'fastify';
import { MfaChallengeAnswer, MfaChallengeQuery, MfaMethodList, MfaStatus, MfaVerifyAnswer, MfaVerifyRequest } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { tokenOf, requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { findSession, markMfa } from '../sessions/store.ts';
import { peekTicket } from '../sessions/tickets.ts';
import { nowIso } from '../db/index.ts';
import { startChallenge, verifyChallenge } from './challenges.ts';
import { methodOf, methodsOf, summary } from './methods.ts';
import { hasRecentMfa } from './stepup.ts';

export async function mfaRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  app.get('/mfa', {
    schema: { tags: ['mfa'], summary: 'The signed-in user\'s second factors', response: responses({ 200: MfaMethodList }, [400, 401, 503]) },
    preHandler: signedIn,
  }, async (request) => ({ data: (await methodsOf(ctx.db, request.session!.userId)).map(summary) }));

  app.get('/mfa/status', {
    schema: { tags: ['mfa'], summary: 'Whether this session passed MFA recently', response: responses({ 200: MfaStatus }, [400, 401, 503]) },
    preHandler: signedIn,
  }, async (request) => ({ sudo: hasRecentMfa(request.session!.mfaAt, ctx.config), single: false, need_card: false }));

  app.get<{ Querystring: MfaChallengeQuery }>('/mfa/sudo', {
    schema: {
      tags: ['mfa'], summary: 'Start a challenge on one method: deliver a code (or expect an authenticator code)',
      querystring: jsonSchema(MfaChallengeQuery), response: responses({ 200: MfaChallengeAnswer }, [400, 401, 404, 429, 503]),
    },
  }, async (request) => {
    const { mfaId, payload, channel } = request.query;
    // With a login payload the challenge completes a sign-in; without, it is a step-up of this session.
    let userId: string | null;
    if (payload) {
      userId = await peekTicket(ctx.db, payload, 'mfa_login');
    } else {
      const token = tokenOf(request, ctx.cookieName);
      userId = token ? (await findSession(ctx.db, token))?.userId ?? null : null;
    }
    if (!userId) throw new ApiError('unauthorized');
    const method = await methodOf(ctx.db, userId, Number(mfaId));
    if (!method) throw new ApiError('not_found');
    const user = await ctx.db.selectFrom('users').select('language').where('id', '=', userId).executeTakeFirstOrThrow();
    return startChallenge(ctx, {
      userId, language: user.language, method, purpose: payload ? 'login' : 'sudo', deviceKey: request.deviceKey,
      ...(channel ? { channel } : {}), ...(payload ? { loginTicket: payload } : {}), log: request.log,
    });
  });

  app.post<{ Body: MfaVerifyRequest }>('/mfa/sudo', {
    schema: {
      tags: ['mfa'], summary: 'Verify a code; completes a sign-in (access_token) or refreshes this session\'s MFA check',
      body: jsonSchema(MfaVerifyRequest), response: responses({ 200: MfaVerifyAnswer }, [400, 401, 410, 422, 429, 503]),
    },
  }, async (request, reply) => {
    const passed = await verifyChallenge(ctx, request.body.payload, request.body.code);
    if (passed.purpose === 'login') {
      // The sign-in's ticket is spent with it: one password check, one session.
      const spent = await ctx.db.updateTable('tickets').set({ used_at: nowIso() })
        .where('ticket_hash', '=', passed.loginTicketHash ?? '').where('kind', '=', 'mfa_login')
        .where('used_at', 'is', null).where('expires_at', '>', nowIso()).executeTakeFirst();
      if (Number(spent.numUpdatedRows) === 0) throw new ApiError('unauthorized');
      return completeSignIn(ctx, request, reply, {
        userId: passed.userId, clientId: null, viaMfa: true, trustDevice: request.body.isTrustedDevice === true,
      });
    }
    const token = tokenOf(request, ctx.cookieName);
    const session = token ? await findSession(ctx.db, token) : null;
    if (!session || session.userId !== passed.userId) throw new ApiError('unauthorized');
    await markMfa(ctx.db, session.sessionId);
    return {};
  });
}
