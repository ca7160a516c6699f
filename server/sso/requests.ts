// What the Microsoft sign-in keeps on the server between its steps:
//   - a sign-in under way (`sso_requests`): state, nonce and PKCE verifier, where to go after, bound
//     to the browser by an HttpOnly cookie whose digest the row keeps; spent once by the callback.
//   - a link ticket (`sso_link_tickets`): an identity no account has, handed to the link-existing
//     screen; spent once by the link. Both are stored as digests and live a few minutes.
import { nowIso, type Db } from '../db/index.ts';
import type { SsoLinkTicketsTable } from '../db/schema.ts';
import { hashToken, newToken } from '../sessions/tokens.ts';
import type { MicrosoftIdentity } from './microsoft.ts';

/** Time to sign in at Microsoft. */
export const SSO_REQUEST_SECONDS = 600;
/** Time to sign in with a password and link, after an unlinked identity came back. */
export const LINK_TICKET_SECONDS = 900;

export type PendingSignIn = {
  tenantId: string;
  nonce: string;
  codeVerifier: string;
  deviceKey: string | null;
  target: string | null;
};

export async function saveRequest(db: Db, browser: string, state: string, pending: PendingSignIn): Promise<void> {
  const now = Date.now();
  await db
    .insertInto('sso_requests')
    .values({
      state_hash: hashToken(state),
      browser_hash: hashToken(browser),
      tenant_id: pending.tenantId,
      nonce: pending.nonce,
      code_verifier: pending.codeVerifier,
      device_key: pending.deviceKey,
      target: pending.target,
      created_at: nowIso(now),
      expires_at: nowIso(now + SSO_REQUEST_SECONDS * 1000),
      used_at: null,
    })
    .execute();
}

/** Spends the sign-in this state names, if this browser started it and it is live: once. */
export async function spendRequest(db: Db, browser: string, state: string): Promise<PendingSignIn | null> {
  const now = nowIso();
  const row = await db
    .updateTable('sso_requests')
    .set({ used_at: now })
    .where('state_hash', '=', hashToken(state))
    .where('browser_hash', '=', hashToken(browser))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['tenant_id', 'nonce', 'code_verifier', 'device_key', 'target'])
    .executeTakeFirst();
  return row
    ? {
        tenantId: row.tenant_id,
        nonce: row.nonce,
        codeVerifier: row.code_verifier,
        deviceKey: row.device_key,
        target: row.target,
      }
    : null;
}

/** A ticket naming an identity no account has, usable only by the browser that signed in with it. */
export async function issueLinkTicket(db: Db, browser: string, identity: MicrosoftIdentity): Promise<string> {
  const ticket = newToken();
  const now = Date.now();
  await db
    .insertInto('sso_link_tickets')
    .values({
      ticket_hash: hashToken(ticket),
      browser_hash: hashToken(browser),
      provider: 'microsoft',
      tenant_id: identity.tenantId,
      object_id: identity.objectId,
      email: identity.email,
      name: identity.name,
      created_at: nowIso(now),
      expires_at: nowIso(now + LINK_TICKET_SECONDS * 1000),
      used_at: null,
    })
    .execute();
  return ticket;
}

export type LinkTicket = MicrosoftIdentity & { expiresAt: string };

const TICKET_COLUMNS = ['tenant_id', 'object_id', 'email', 'name', 'expires_at'] as const;
const ticketOf = (row: Pick<SsoLinkTicketsTable, (typeof TICKET_COLUMNS)[number]>): LinkTicket => ({
  tenantId: row.tenant_id,
  objectId: row.object_id,
  email: row.email,
  name: row.name,
  expiresAt: row.expires_at,
});

/** Reads a live link ticket of this browser without spending it. */
export async function peekLinkTicket(db: Db, browser: string, ticket: string): Promise<LinkTicket | null> {
  const row = await db
    .selectFrom('sso_link_tickets')
    .select(TICKET_COLUMNS)
    .where('ticket_hash', '=', hashToken(ticket))
    .where('browser_hash', '=', hashToken(browser))
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .executeTakeFirst();
  return row ? ticketOf(row) : null;
}

/** Spends a live link ticket of this browser (in the caller's transaction): of parallel spends, one gets it. */
export async function spendLinkTicket(db: Db, browser: string, ticket: string): Promise<LinkTicket | null> {
  const now = nowIso();
  const row = await db
    .updateTable('sso_link_tickets')
    .set({ used_at: now })
    .where('ticket_hash', '=', hashToken(ticket))
    .where('browser_hash', '=', hashToken(browser))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(TICKET_COLUMNS)
    .executeTakeFirst();
  return row ? ticketOf(row) : null;
}

/** Deletes what expired (the OIDC purge's timer runs it). */
export async function purgeExpiredSso(db: Db): Promise<void> {
  const now = nowIso();
  await db.deleteFrom('sso_requests').where('expires_at', '<', now).execute();
  await db.deleteFrom('sso_link_tickets').where('expires_at', '<', now).execute();
}
