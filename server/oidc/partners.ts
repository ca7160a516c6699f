// The partner pages' API (spec §2 `/partner`, `/partner/request-access`): a partner application as
// its landing page shows it, and a person's request for access to it, sent to the administrator
// registered with the client (`admin_email`), and where the person stands before asking. First-party clients have no landing page and take no
// requests: they answer 404, as unknown ones do. Every client's logo is served here too, to anyone
// (the sign-in for an application shows it before anyone is signed in).
import type { FastifyInstance } from 'fastify';
import { AccessRequestAnswer, PartnerAccessAnswer, PartnerAnswer, PartnerParams } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { localeOfRequest } from '../http/locale.ts';
import { publicOriginOf } from '../http/origin.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { accessOf, partnerOf, requestAccess } from './accessRequests.ts';
import { allowedScopes, clientView } from './clients.ts';
import { logoOf } from './logos.ts';
import { ApiError } from '../http/errors.ts';

/** How long a browser keeps a logo without asking again: its address names its version. */
const LOGO_MAX_AGE_SECONDS = 86_400;

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
      const { origin } = publicOriginOf(ctx.config, request);
      return { client: clientView(row, localeOfRequest(request), origin), scopes: allowedScopes(row) };
    },
  );

  app.get<{ Params: PartnerParams }>(
    '/clients/:client_id/logo',
    {
      schema: {
        tags: ['partners'],
        summary: "A client's logo (PNG, JPEG or WebP), as its registration stored it; an <img> loads it",
        params: jsonSchema(PartnerParams),
        response: responses({}, [400, 404, 503]),
      },
      config: { withoutDeviceId: true },
    },
    async (request, reply) => {
      const logo = await logoOf(ctx.db, request.params.client_id);
      if (!logo) throw new ApiError('not_found');
      const etag = `"${logo.version}"`;
      // Only ever an image, never run as anything else; kept a day, then asked for again by its ETag.
      reply
        .header('etag', etag)
        .header('cache-control', `public, max-age=${LOGO_MAX_AGE_SECONDS}`)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox");
      const known = request.headers['if-none-match']?.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
      if (known?.includes(etag)) return reply.code(304).send();
      return reply.type(logo.contentType).send(logo.bytes);
    },
  );

  app.get<{ Params: PartnerParams }>(
    '/partners/:client_id/access-requests',
    {
      schema: {
        tags: ['partners'],
        summary:
          'Where the signed-in person stands with the partner before asking: access granted already, asked already, no administrator to ask, or none',
        params: jsonSchema(PartnerParams),
        response: responses({ 200: PartnerAccessAnswer }, [400, 401, 403, 404, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => {
      const row = await partnerOf(ctx.db, request.params.client_id);
      return { client_id: row.client_id, ...(await accessOf(ctx.db, request.session!.userId, row)) };
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
