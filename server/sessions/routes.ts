// DELETE /token: sign out. The token is revoked on the server and the cookie cleared.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { deviceKeyOf, requireSession } from '../http/auth.ts';
import { responses } from '../http/schema.ts';
import { authCookieOptions } from './cookie.ts';
import { revokeSession } from './store.ts';

export async function sessionRoutes(app: FastifyInstance, ctx: AppContext) {
  app.delete(
    '/token',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Sign out: revoke the current token',
        response: responses({ 204: null }, [400, 401, 503]),
      },
      preHandler: requireSession(ctx.db, ctx.cookieName, { enrolment: true }),
    },
    async (request, reply) => {
      const session = request.session!;
      await revokeSession(ctx.db, session.sessionId);
      // The applications this session signed in to hear it (back-channel logout).
      await ctx.sessionsEnded({ sessionIds: [session.sessionId] });
      await recordEvent(ctx.db, {
        type: 'logout',
        userId: session.userId,
        ip: request.ip,
        deviceKey: deviceKeyOf(request),
      });
      const { maxAge: _drop, ...options } = authCookieOptions(ctx.config, request.host);
      reply.clearCookie(ctx.cookieName, options);
      return reply.code(204).send();
    },
  );
}
