// Clients are data: oidc-provider reads a client it does not hold statically through the adapter
// of its `Client` model (`find(client_id)`), so that adapter reads our `oauth_clients` table and
// answers client metadata. It is read-only: clients are registered by the seed (and, next, the CLI).
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { FIRST_PARTY_CLIENT_IDS } from '../../contract/constants.ts';
import { isTrue, type Db } from '../db/index.ts';
import { guarded } from './adapter.ts';

export type OidcClientRow = { client_id: string; name: string; redirect_uris: string; first_party: number | boolean };

function redirectUrisOf(row: OidcClientRow): string[] {
  try {
    const uris: unknown = JSON.parse(row.redirect_uris);
    return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
  } catch {
    return [];
  }
}

/** The client's row, if registered. */
export function findOidcClient(db: Db, clientId: string): Promise<OidcClientRow | undefined> {
  return guarded(() => db.selectFrom('oauth_clients').select(['client_id', 'name', 'redirect_uris', 'first_party'])
    .where('client_id', '=', clientId).executeTakeFirst());
}

/** A first-party client never asks for consent (spec: 2, 17, 51, 66, or flagged in its row). */
export function isFirstParty(row: OidcClientRow): boolean {
  return (FIRST_PARTY_CLIENT_IDS as readonly string[]).includes(row.client_id) || isTrue(row.first_party);
}

/** The metadata oidc-provider validates: public clients (no secret is stored yet), the code flow
 * with refresh tokens, exact redirect URIs. */
export function clientMetadata(row: OidcClientRow): AdapterPayload {
  return {
    client_id: row.client_id,
    client_name: row.name,
    redirect_uris: redirectUrisOf(row),
    response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  };
}

export class OidcClientAdapter implements Adapter {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const row = await findOidcClient(this.db, id);
    return row ? clientMetadata(row) : undefined;
  }

  private readOnly(): never {
    throw new Error('OIDC clients are registered in oauth_clients, not through the provider');
  }
  upsert(): Promise<void> { return this.readOnly(); }
  findByUid(): Promise<undefined> { return Promise.resolve(undefined); }
  findByUserCode(): Promise<undefined> { return Promise.resolve(undefined); }
  consume(): Promise<void> { return this.readOnly(); }
  destroy(): Promise<void> { return this.readOnly(); }
  revokeByGrantId(): Promise<void> { return Promise.resolve(); }
}
