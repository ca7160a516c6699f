// The partner pages' API (spec §2 `/partner`, `/partner/request-access`): a partner application as
// its landing page shows it, and a person's request for access to it, sent to the administrator
// registered with the client (`admin_email`). First-party clients have no landing page and take no
// requests: they answer 404, as unknown ones do.
import type { FastifyInstance } from 'fastify';
import { AccessRequestAnswer, PartnerAnswer, PartnerParams } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { localeOfRequest } from '../http/locale.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { partnerOf, requestAccess } from './accessRequests.ts';
import { allowedScopes, clientView } from './clients.ts';

export async function partnerRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  app.get<{ Params: PartnerParams }>(
    '/partners/:client_id',
    {
      schema: {
        tags: ['partners'],
        summary: 'A partner application as its landing page shows it: name, logo, links and the scopes it may ask for',
        params: jsonSchema(PartnerParams),
        response: responses({ 200: PartnerAnswer }, [400, 404, 503]),
      },
    },
    async (request) => {
      const row = await partnerOf(ctx.db, request.params.client_id);
      return { client: clientView(row, localeOfRequest(request)), scopes: allowedScopes(row) };
    },
  );

  app.post<{ Params: PartnerParams }>(
    '/partners/:client_id/access-requests',
    {
      schema: {
        tags: ['partners'],
        summary: "Ask the partner application's administrator for access (once per person and application)",
        params: jsonSchema(PartnerParams),
        response: responses({ 200: AccessRequestAnswer }, [400, 401, 403, 404, 409, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => {
      const userId = request.session!.userId;
      const row = await partnerOf(ctx.db, request.params.client_id);
      const { requested_at, created } = await requestAccess(ctx, userId, row);
      if (created) {
        await recordEvent(ctx.db, {
          type: 'partner_access_requested',
          userId,
          ip: request.ip,
          deviceKey: request.deviceKey ?? null,
          detail: { client_id: row.client_id },
        });
      }
      return { client_id: row.client_id, requested_at };
    },
  );
}
