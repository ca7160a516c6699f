// GET /user: the signed-in user's profile.
import type { FastifyInstance } from 'fastify';
import { UserAnswer } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { responses } from '../http/schema.ts';
import { loadProfile } from './queries.ts';

export async function profileRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get('/user', {
    schema: { tags: ['profile'], summary: 'The signed-in user', response: responses({ 200: UserAnswer }, [400, 401, 503]) },
    preHandler: requireSession(ctx.db, ctx.cookieName, { enrolment: true }),
  }, async (request) => {
    const profile = await loadProfile(ctx.db, request.session!.userId);
    if (!profile) throw new ApiError('unauthorized');
    return { data: profile };
  });
}
