// A person's request for access to a partner application (spec §2 `/partner/request-access`), sent
// to the administrator registered with the client (`admin_email`); first-party clients, as unknown
// ones, are no partner.
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { accessRequestMessage } from '../delivery/messages.ts';
import { ApiError } from '../http/errors.ts';
import { firstEmailOf, nameOf } from '../identity/accounts.ts';
import { newId } from '../sessions/tokens.ts';
import { hasAccessGrant } from './grants.ts';
import { clientNameIn, findOidcClient, isFirstParty, type OidcClientRow } from './clients.ts';

/** How long the administrator's mail may wait for delivery before it is given up. */
const ACCESS_REQUEST_MAIL_TTL_S = 7 * 24 * 3600;

export async function partnerOf(db: Db, clientId: string): Promise<OidcClientRow> {
  const row = await findOidcClient(db, clientId);
  if (!row || isFirstParty(row)) throw new ApiError('not_found');
  return row;
}

/** Where the person stands with the client before asking (see PartnerAccessAnswer). */
export async function accessOf(
  db: Db,
  userId: string,
  client: OidcClientRow,
): Promise<{ access: 'granted' | 'requested' | 'unavailable' | 'none'; requested_at: string | null }> {
  const request = await db
    .selectFrom('partner_access_requests')
    .select('created_at')
    .where('user_id', '=', userId)
    .where('client_id', '=', client.client_id)
    .executeTakeFirst();
  const requested_at = request?.created_at ?? null;
  if (await hasAccessGrant(db, userId, client.client_id)) return { access: 'granted', requested_at };
  if (requested_at) return { access: 'requested', requested_at };
  return { access: client.admin_email?.trim() ? 'none' : 'unavailable', requested_at };
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
    const person = await nameOf(trx, userId);
    const email = await firstEmailOf(trx, userId);
    const text = accessRequestMessage({
      application: clientNameIn(client, 'en'),
      clientId: client.client_id,
      name: `${person.firstname} ${person.lastname}`.trim(),
      email,
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
