// The partner pages' API (spec §2 `/partner`, `/partner/request-access`): a partner application as
// its landing page shows it, and a person's request for access to it, sent to the administrator
// registered with the client (`admin_email`). First-party clients have no landing page and take no
// requests: they answer 404, as unknown ones do.
import type { FastifyInstance } from 'fastify';
import { AccessRequestAnswer, PartnerAnswer, PartnerParams } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { accessRequestMessage } from '../delivery/messages.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { localeOfRequest } from '../http/locale.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { newId } from '../sessions/tokens.ts';
import {
  allowedScopes,
  clientNameIn,
  clientView,
  findOidcClient,
  isFirstParty,
  type OidcClientRow,
} from './clients.ts';

/** How long the administrator's mail may wait for delivery before it is given up. */
const ACCESS_REQUEST_MAIL_TTL_S = 7 * 24 * 3600;

async function partnerOf(db: Db, clientId: string): Promise<OidcClientRow> {
  const row = await findOidcClient(db, clientId);
  if (!row || isFirstParty(row)) throw new ApiError('not_found');
  return row;
}

/** Stores the request once per person and application, and queues the administrator's mail in the
 * same transaction; asking again answers the first request. The insert's conflict clause decides,
 * so parallel requests make one row and one mail (PostgreSQL waits on the unique index). */
export async function requestAccess(
  ctx: AppContext,
  userId: string,
  client: OidcClientRow,
): Promise<{ requested_at: string; created: boolean }> {
  const adminEmail = client.admin_email?.trim();
  if (!adminEmail) throw new ApiError('access_request_unavailable');
  const created = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('partner_access_requests')
      .values({ id: newId(), user_id: userId, client_id: client.client_id, created_at: nowIso() })
      .onConflict((c) => c.columns(['user_id', 'client_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
    const person = await trx
      .selectFrom('users')
      .select(['firstname', 'lastname'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const email = await trx
      .selectFrom('user_emails')
      .select('value')
      .where('user_id', '=', userId)
      .orderBy('is_default', 'desc')
      .orderBy('created_at')
      .executeTakeFirst();
    const text = accessRequestMessage({
      application: clientNameIn(client, 'en'),
      clientId: client.client_id,
      name: `${person.firstname} ${person.lastname}`.trim(),
      email: email?.value ?? null,
    });
    await ctx.outbox.enqueue(trx, { channel: 'email', to: adminEmail, ...text, ttlSeconds: ACCESS_REQUEST_MAIL_TTL_S });
    return true;
  });
  if (created) ctx.outbox.kick();
  const row = await ctx.db
    .selectFrom('partner_access_requests')
    .select('created_at')
    .where('user_id', '=', userId)
    .where('client_id', '=', client.client_id)
    .executeTakeFirstOrThrow();
  return { requested_at: row.created_at, created };
}

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
