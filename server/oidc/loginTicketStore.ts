// The one-time sign-in tickets of loginTickets.ts (`login_tickets`): stored as digests, bound to
// their client, living LOGIN_TICKET_TTL_S seconds, spent once.
import { nowIso, type Db } from '../db/index.ts';
import { hashToken, newToken } from '../sessions/tokens.ts';
import { guarded } from './adapter.ts';

export const LOGIN_TICKET_TTL_S = 60;

/** A new ticket for the account, for the client to hand to the browser. */
export async function issueLoginTicket(db: Db, userId: string, clientId: string): Promise<string> {
  const ticket = newToken();
  const now = Date.now();
  await guarded(() =>
    db
      .insertInto('login_tickets')
      .values({
        ticket_hash: hashToken(ticket),
        user_id: userId,
        client_id: clientId,
        expires_at: nowIso(now + LOGIN_TICKET_TTL_S * 1000),
        used_at: null,
        created_at: nowIso(now),
      })
      .execute(),
  );
  return ticket;
}

/** Spends a live ticket of this client: of parallel spends, the conditional update lets exactly one
 * through. Answers the account it signs in, or null. */
export async function spendLoginTicket(db: Db, ticket: string, clientId: string): Promise<string | null> {
  const now = nowIso();
  const spent = await db
    .updateTable('login_tickets')
    .set({ used_at: now })
    .where('ticket_hash', '=', hashToken(ticket))
    .where('client_id', '=', clientId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return spent?.user_id ?? null;
}
