// POST /token: password sign-in by email or phone.
import type { FastifyInstance } from 'fastify';
import { LoginRequest, TokenAnswer, WeakPasswordAnswer, MfaRequiredAnswer } from '../../contract/schemas.ts';
import { ERROR_MESSAGES } from '../../contract/errors.ts';
import { variantOfHost } from '../../contract/constants.ts';
import type { AppContext } from '../context.ts';
import { touchDevice } from '../devices/queries.ts';
import { recordEvent } from '../events/record.ts';
import { deviceKeyOf } from '../http/auth.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { authCookieOptions } from '../sessions/cookie.ts';
import { createSession } from '../sessions/store.ts';
import { authenticate } from './authenticate.ts';

export async function loginRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Body: LoginRequest }>('/token', {
    schema: {
      tags: ['login'],
      summary: 'Sign in with an email or phone number and a password',
      body: jsonSchema(LoginRequest),
      response: { ...responses({ 200: TokenAnswer }), 401: jsonSchema(MfaRequiredAnswer), 403: jsonSchema(WeakPasswordAnswer) },
    },
  }, async (request, reply) => {
    const deviceKey = deviceKeyOf(request);
    const outcome = await authenticate(ctx, {
      username: request.body.username,
      password: request.body.password,
      variant: variantOfHost(request.host),
      ip: request.ip,
      deviceKey,
    });
    if (outcome.kind === 'weak_password') {
      return reply.code(403).send({ code: 'weak_password', message: ERROR_MESSAGES.weak_password, payload: outcome.payload });
    }
    const userAgent = request.headers['user-agent']?.slice(0, 512) ?? null;
    const deviceId = await touchDevice(ctx.db, outcome.userId, deviceKey, userAgent);
    const { token, expiresIn } = await createSession(ctx.db, {
      userId: outcome.userId, deviceId, clientId: request.body.client_id ?? null, ip: request.ip, ttlDays: ctx.config.sessionTtlDays,
    });
    await recordEvent(ctx.db, { type: 'login_succeeded', userId: outcome.userId, ip: request.ip, deviceKey });
    reply.setCookie(ctx.cookieName, token, authCookieOptions(ctx.config, request.host));
    return { access_token: token, token_type: 'Bearer' as const, expires_in: expiresIn };
  });
}
