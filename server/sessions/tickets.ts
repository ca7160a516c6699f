// Tickets: short-lived, single-use proofs that an account passed one step (e.g. its password was
// right but is weak), handed to the browser as an opaque payload and stored hashed.
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { hashToken, newId, newToken } from './tokens.ts';

export async function issueTicket(
  db: Db,
  userId: string,
  kind: string,
  ttlSeconds: number,
  detail?: Record<string, unknown>,
): Promise<string> {
  const ticket = newToken();
  const now = Date.now();
  await db
    .insertInto('tickets')
    .values({
      id: newId(),
      user_id: userId,
      kind,
      ticket_hash: hashToken(ticket),
      created_at: nowIso(now),
      expires_at: nowIso(now + ttlSeconds * 1000),
      used_at: null,
      detail: detail ? JSON.stringify(detail) : null,
    })
    .execute();
  return ticket;
}

/** What a ticket carries besides its user (issueTicket's detail), or {}. */
export function ticketDetail(row: { detail: string | null } | undefined): Record<string, unknown> {
  return row?.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : {};
}

/** Uses a ticket once: returns its user when it is of this kind, unexpired and unused. */
export async function redeemTicket(db: Db, ticket: string, kind: string): Promise<string | null> {
  const now = nowIso();
  const row = await db
    .updateTable('tickets')
    .set({ used_at: now })
    .where('ticket_hash', '=', hashToken(ticket))
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id ?? null;
}

/** Uses a ticket once by its stored hash (a challenge keeps the hash of its sign-in's ticket, never
 * the ticket): returns its detail when it is of this kind, unexpired and unused, else null. */
export async function redeemTicketHash(
  db: Db,
  ticketHash: string,
  kind: string,
): Promise<Record<string, unknown> | null> {
  const row = await db
    .updateTable('tickets')
    .set({ used_at: nowIso() })
    .where('ticket_hash', '=', ticketHash)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .returning('detail')
    .executeTakeFirst();
  return row ? ticketDetail(row) : null;
}

/** Reads a ticket without using it: its user when it is of this kind, unexpired and unused. */
/** Reads a ticket of one of these kinds without using it: its user and kind, or null. */
export async function peekTicketOf(
  db: Db,
  ticket: string,
  kinds: readonly string[],
): Promise<{ userId: string; kind: string } | null> {
  const row = await db
    .selectFrom('tickets')
    .select(['user_id', 'kind'])
    .where('ticket_hash', '=', hashToken(ticket))
    .where('kind', 'in', kinds)
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .executeTakeFirst();
  return row ? { userId: row.user_id, kind: row.kind } : null;
}

export async function peekTicket(db: Db, ticket: string, kind: string): Promise<string | null> {
  const row = await db
    .selectFrom('tickets')
    .select('user_id')
    .where('ticket_hash', '=', hashToken(ticket))
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .executeTakeFirst();
  return row?.user_id ?? null;
}
