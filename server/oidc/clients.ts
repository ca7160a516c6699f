// Clients are data: oidc-provider reads a client it does not hold statically through the adapter
// of its `Client` model (`find(client_id)`), so that adapter reads our `oauth_clients` table and
// answers client metadata. It is read-only: clients are registered by the seed and the CLI
// (`npm run cli -- clients …`). What the person sees of a client (its name in their language, its
// logo and links) comes from here too.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import {
  CONSENT_SCOPES,
  isFirstPartyClient,
  INTERACTION_PATH,
  INTERACTION_UID,
  STANDARD_SCOPES,
} from '../../contract/constants.ts';
import type { PartnerClient } from '../../contract/schemas.ts';
import { clientNameIn, jsonColumn } from '../db/columns.ts';
import { isTrue, type Db } from '../db/index.ts';
import type { OAuthClientsTable } from '../db/schema.ts';
import { guarded } from './adapter.ts';

export const CLIENT_COLUMNS = [
  'client_id',
  'name',
  'names',
  'redirect_uris',
  'first_party',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'backchannel_logout_uri',
  'admin_email',
  'scopes',
  'secret_hash',
  'require_mfa',
] as const;

/** A registered client, as CLIENT_COLUMNS read it. */
export type OidcClientRow = Pick<Selectable<OAuthClientsTable>, (typeof CLIENT_COLUMNS)[number]>;

export { clientNameIn, jsonColumn };

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** The client's row, if registered. */
export function findOidcClient(db: Db, clientId: string): Promise<OidcClientRow | undefined> {
  return guarded(() =>
    db.selectFrom('oauth_clients').select(CLIENT_COLUMNS).where('client_id', '=', clientId).executeTakeFirst(),
  );
}

/** A first-party client never asks for consent (spec: 2, 17, 51, 66, or flagged in its row). */
export function isFirstParty(row: Pick<OidcClientRow, 'client_id' | 'first_party'>): boolean {
  return isFirstPartyClient(row.client_id, isTrue(row.first_party));
}

/** The scopes the client may ask for: the standard ones, and the consent scopes its row lists. */
export function allowedScopes(row: Pick<OidcClientRow, 'scopes'>): string[] {
  const listed = new Set(strings(jsonColumn(row.scopes, [])));
  return [...STANDARD_SCOPES, ...CONSENT_SCOPES.filter((scope) => listed.has(scope))];
}

/** The client as the person sees it. */
export function clientView(row: OidcClientRow, locale: string): PartnerClient {
  return {
    client_id: row.client_id,
    name: clientNameIn(row, locale),
    logo_uri: row.logo_uri,
    policy_uri: row.policy_uri,
    tos_uri: row.tos_uri,
  };
}

/** A confidential client's secret as stored: a digest. The secret is random and long (the CLI makes
 * it), so a fast digest hides it as well as a slow one would; the provider compares digests. */
export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Compares a presented secret with the stored digest, in constant time. */
export function clientSecretMatches(storedDigest: string | undefined, presented: string): boolean {
  if (!storedDigest) return false;
  const a = Buffer.from(hashClientSecret(presented));
  const b = Buffer.from(storedDigest);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The metadata oidc-provider validates: the code flow with refresh tokens, exact redirect URIs, the
 * scopes the client may ask for; a public client (PKCE only) or a confidential one (its secret by
 * HTTP Basic, stored as a digest: see `clientSecretMatches`). */
export function clientMetadata(row: OidcClientRow): AdapterPayload {
  return {
    client_id: row.client_id,
    client_name: row.name,
    redirect_uris: strings(jsonColumn(row.redirect_uris, [])),
    response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: allowedScopes(row).join(' '),
    // Read by the login prompt's check (policy.ts) from the client the provider holds.
    require_mfa: isTrue(row.require_mfa),
    ...(row.logo_uri ? { logo_uri: row.logo_uri } : {}),
    ...(row.policy_uri ? { policy_uri: row.policy_uri } : {}),
    ...(row.tos_uri ? { tos_uri: row.tos_uri } : {}),
    ...(row.backchannel_logout_uri
      ? { backchannel_logout_uri: row.backchannel_logout_uri, backchannel_logout_session_required: true }
      : {}),
    ...(row.secret_hash
      ? { token_endpoint_auth_method: 'client_secret_basic', client_secret: row.secret_hash }
      : { token_endpoint_auth_method: 'none' }),
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
  upsert(): Promise<void> {
    return this.readOnly();
  }
  findByUid(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  consume(): Promise<void> {
    return this.readOnly();
  }
  destroy(): Promise<void> {
    return this.readOnly();
  }
  revokeByGrantId(): Promise<void> {
    return Promise.resolve();
  }
}

/** What registering a client takes (the seed, the CLI and the tests all register through here). */
export type ClientRegistration = {
  client_id: string;
  name: string;
  redirect_uris: string[];
  first_party?: boolean;
  names?: Record<string, string>;
  scopes?: string[];
  logo_uri?: string | null;
  policy_uri?: string | null;
  tos_uri?: string | null;
  backchannel_logout_uri?: string | null;
  admin_email?: string | null;
  require_mfa?: boolean;
  /** A confidential client's secret; only its digest is kept. */
  secret?: string | null;
};

/** The row of a registration (what it does not say stays as it is on an update). */
function rowOf(client: Partial<ClientRegistration>) {
  const row: Record<string, unknown> = {};
  if (client.name !== undefined) row.name = client.name;
  if (client.redirect_uris !== undefined) row.redirect_uris = JSON.stringify(client.redirect_uris);
  if (client.first_party !== undefined) row.first_party = client.first_party ? 1 : 0;
  if (client.names !== undefined) row.names = JSON.stringify(client.names);
  if (client.scopes !== undefined) row.scopes = JSON.stringify(client.scopes);
  for (const key of ['logo_uri', 'policy_uri', 'tos_uri', 'backchannel_logout_uri', 'admin_email'] as const) {
    if (client[key] !== undefined) row[key] = client[key];
  }
  if (client.require_mfa !== undefined) row.require_mfa = client.require_mfa ? 1 : 0;
  if (client.secret !== undefined) row.secret_hash = client.secret === null ? null : hashClientSecret(client.secret);
  return row;
}

/** Registers a client; gives whether it was new (an existing id is left as it is). */
export async function registerClient(db: Db, client: ClientRegistration): Promise<boolean> {
  const result = await db
    .insertInto('oauth_clients')
    .values({ ...rowOf(client), client_id: client.client_id, created_at: new Date().toISOString() } as never)
    .onConflict((c) => c.column('client_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Changes what the update says of a registered client; gives whether it exists. */
export async function updateClient(
  db: Db,
  clientId: string,
  update: Partial<Omit<ClientRegistration, 'client_id'>>,
): Promise<boolean> {
  const row = rowOf(update);
  if (Object.keys(row).length === 0) return Boolean(await findOidcClient(db, clientId));
  const result = await db
    .updateTable('oauth_clients')
    .set(row as never)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The application an authorisation request is signing someone in to, by the way back to its
 * interaction (`/oidc/interaction/<uid>`): its name in the locale and its logo; null when the
 * request is unknown or over. The uid is the request's secret; the answer is public anyway. */
export async function clientOfInteraction(
  db: Db,
  redirect: string,
  locale: string,
): Promise<{ client_id: string; name: string; logo_uri: string | null; first_party: boolean } | null> {
  if (!redirect.startsWith(`${INTERACTION_PATH}/`)) return null;
  const uid = redirect.slice(INTERACTION_PATH.length + 1);
  if (!INTERACTION_UID.test(uid)) return null;
  const row = await db
    .selectFrom('oidc_models')
    .select('payload')
    .where('model', '=', 'Interaction')
    .where('id', '=', uid)
    .where('expires_at', '>', new Date().toISOString())
    .executeTakeFirst();
  const clientId = jsonColumn<{ params?: { client_id?: unknown } }>(row?.payload, {}).params?.client_id;
  if (typeof clientId !== 'string') return null;
  const client = await findOidcClient(db, clientId);
  return client
    ? {
        client_id: client.client_id,
        name: clientNameIn(client, locale),
        logo_uri: client.logo_uri,
        first_party: isFirstParty(client),
      }
    : null;
}
