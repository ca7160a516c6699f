// GET /api/tokens and DELETE /api/token/{client_id} (spec §7): the partner applications that hold
// access to the signed-in account, and revoking one: its grants and tokens go, and every session of
// the account that signed in to it signs it out, with a back-channel logout (logout.ts).
import type { FastifyInstance } from 'fastify';
import { AccessGrantList, AccessGrantParams } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { localeOfRequest } from '../http/locale.ts';
import { publicOriginOf } from '../http/origin.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { listAccessGrants, revokeAccessGrants } from './grants.ts';
import { signOutClient } from './logout.ts';
import type { OidcProviders } from './provider.ts';

export async function accessRoutes(app: FastifyInstance, ctx: AppContext, providers: OidcProviders) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  app.get(
    '/tokens',
    {
      schema: {
        tags: ['access'],
        summary:
          'The applications that hold access to the account: one entry per client, its scopes by name, when granted and last used',
        response: responses({ 200: AccessGrantList }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { origin } = publicOriginOf(ctx.config, request);
      return { data: await listAccessGrants(ctx.db, request.session!.userId, localeOfRequest(request), origin) };
    },
  );

  app.delete<{ Params: AccessGrantParams }>(
    '/token/:client_id',
    {
      schema: {
        tags: ['access'],
        summary: "Revoke an application's access: every grant of that client and every token issued under them",
        params: jsonSchema(AccessGrantParams),
        response: responses({ 204: null }, [400, 401, 403, 404, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      const userId = request.session!.userId;
      const clientId = request.params.client_id;
      const revoked = await revokeAccessGrants(ctx.db, userId, clientId);
      if (revoked === 0) throw new ApiError('not_found');
      await signOutClient(ctx.db, providers.forIssuer, request.log)(userId, clientId);
      await recordEvent(ctx.db, {
        type: 'partner_access_revoked',
        userId,
        ip: request.ip,
        deviceKey: request.deviceKey,
        detail: { client_id: clientId, grants: revoked },
      });
      return reply.code(204).send();
    },
  );
}
