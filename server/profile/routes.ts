// GET /user: the signed-in user's profile.
import type { FastifyInstance } from 'fastify';
import { UserAnswer } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { tokenOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { responses } from '../http/schema.ts';
import { profileOfToken } from './queries.ts';

export async function profileRoutes(app: FastifyInstance, ctx: AppContext) {
  // Any live session may read it, one limited to setting up a second factor too. The session and
  // the account come in one statement (the call that runs most), not through requireSession.
  app.get('/user', {
    schema: { tags: ['profile'], summary: 'The signed-in user', response: responses({ 200: UserAnswer }, [400, 401, 503]) },
  }, async (request) => {
    const token = tokenOf(request, ctx.cookieName);
    const found = token ? await profileOfToken(ctx.db, token) : null;
    if (!found) throw new ApiError('unauthorized');
    request.session = found.session;
    return { data: found.profile };
  });
}
