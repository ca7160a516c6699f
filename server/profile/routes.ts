// GET /user: the signed-in user's profile; PUT /user: the personal information; PUT /user/iban:
// the bank account (a sensitive change: a recent second factor first).
import type { FastifyInstance } from 'fastify';
import { IbanRequest, ProfileInfoRequest } from '../../contract/profile.ts';
import { UserAnswer } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { requireSession, tokenOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';
import { saveIban, saveInfo } from './edit.ts';
import { profileOfToken } from './queries.ts';

export async function profileRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  /** The profile as it is now, for the answer of a change. */
  const currentProfile = async (token: string | null) => {
    const found = token ? await profileOfToken(ctx.db, token) : null;
    if (!found) throw new ApiError('unauthorized');
    return { data: found.profile };
  };

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

  app.put<{ Body: ProfileInfoRequest }>('/user', {
    schema: { tags: ['profile'], summary: 'Change the personal information: names, birth date, gender, language', body: jsonSchema(ProfileInfoRequest), response: responses({ 200: UserAnswer }, [400, 401, 403, 503]) },
    preHandler: signedIn,
  }, async (request) => {
    await saveInfo(ctx, request.session!.userId, request.body, { ip: request.ip, deviceKey: request.deviceKey });
    return currentProfile(tokenOf(request, ctx.cookieName));
  });

  app.put<{ Body: IbanRequest }>('/user/iban', {
    schema: { tags: ['profile'], summary: 'Change the bank account (IBAN and its country); the primary email and phone are told', body: jsonSchema(IbanRequest), response: responses({ 200: UserAnswer }, [400, 401, 403, 422, 503]) },
    preHandler: [signedIn, requireRecentMfa(ctx.config)],
  }, async (request) => {
    await saveIban(ctx, request.session!.userId, request.body, { ip: request.ip, deviceKey: request.deviceKey });
    return currentProfile(tokenOf(request, ctx.cookieName));
  });
}
