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
import { logoUriOf, saveLogo, type Logo } from './logos.ts';

export const CLIENT_COLUMNS = [
  'client_id',
  'name',
  'names',
  'redirect_uris',
  'first_party',
  'logo_version',
  'policy_uri',
  'tos_uri',
  'backchannel_logout_uri',
  'post_logout_redirect_uris',
  'admin_email',
  'scopes',
  'secret_hash',
  'require_mfa',
  'token_endpoint_auth_method',
  'profile',
  'jwks',
  'jwks_uri',
  'events_endpoint',
] as const;

/** How a confidential client may present its secret at the token endpoint: as itself, by HTTP Basic
 * or in the form body (a client_secret_jwt would sign with the stored digest). */
export const SECRET_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
export type SecretAuthMethod = (typeof SECRET_AUTH_METHODS)[number];
/** Every method a client can be registered with (`none`: a public client, PKCE alone;
 * `private_key_jwt`: a FAPI 2.0 client, by its own key): what discovery advertises, and nothing else. */
export const TOKEN_AUTH_METHODS = ['none', ...SECRET_AUTH_METHODS, 'private_key_jwt'] as const;

/** The profile a client may be marked with (the FAPI 2.0 Security Profile), as stored. */
export const FAPI2 = 'fapi2';
/** The signing algorithms FAPI 2.0 allows, for a client's assertion. */
export const FAPI_ALGORITHMS = ['PS256', 'ES256', 'EdDSA'] as const;

/** The method a row's client authenticates with at the token endpoint. */
export function tokenAuthMethodOf(
  row: Pick<OidcClientRow, 'secret_hash' | 'token_endpoint_auth_method'> & Partial<Pick<OidcClientRow, 'profile'>>,
): (typeof TOKEN_AUTH_METHODS)[number] {
  if (row.profile === FAPI2) return 'private_key_jwt';
  if (!row.secret_hash) return 'none';
  const method = row.token_endpoint_auth_method;
  return (SECRET_AUTH_METHODS as readonly string[]).includes(method ?? '')
    ? (method as SecretAuthMethod)
    : 'client_secret_basic';
}

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

/** How long an instance trusts a client row it read. Another process's change (the command line's)
 * is announced to every instance through Redis, which then drops its rows at once
 * (server/cluster/invalidation.ts); without Redis this bounds how long an instance goes on with the
 * old row, as the signing keys' 30 s poll does for them. */
export const CLIENT_ROW_TTL_MS = 30_000;
/** Rows kept per instance: far more than are registered; an id nobody registered is never kept. */
const MAX_CACHED_CLIENTS = 1000;

type ClientCache = { rows: Map<string, { row: OidcClientRow; until: number }>; generation: number };
/** Per database handle: one per instance (two apps in one process keep theirs apart). */
const clientCaches = new WeakMap<Db, ClientCache>();
const clientCacheOf = (db: Db): ClientCache => {
  let cache = clientCaches.get(db);
  if (!cache) clientCaches.set(db, (cache = { rows: new Map(), generation: 0 }));
  return cache;
};

/** The client's row as the provider reads it on every token, authorisation and userinfo request:
 * kept in this instance's memory (clients change seldom; every change drops the rows, see
 * `forgetCachedClients`). Tokens, codes and grants are never kept: revoking one takes effect at once. */
export async function cachedOidcClient(
  db: Db,
  clientId: string,
  now: () => number = Date.now,
): Promise<OidcClientRow | undefined> {
  const cache = clientCacheOf(db);
  const kept = cache.rows.get(clientId);
  if (kept && kept.until > now()) return kept.row;
  const generation = cache.generation;
  const row = await findOidcClient(db, clientId);
  // A change heard while this read was under way may have come after it: the row is not kept.
  if (row && cache.generation === generation) {
    cache.rows.delete(clientId);
    if (cache.rows.size >= MAX_CACHED_CLIENTS) cache.rows.delete(cache.rows.keys().next().value!);
    cache.rows.set(clientId, { row, until: now() + CLIENT_ROW_TTL_MS });
  }
  return row;
}

/** Drops the client rows this instance keeps: after any change to a client, on the instance that
 * made it (below) and on every other one the change is announced to. */
export function forgetCachedClients(db: Db): void {
  const cache = clientCacheOf(db);
  cache.rows.clear();
  cache.generation += 1;
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

/** The client as the person sees it; its logo's address under `origin`, the configured origin. */
export function clientView(row: OidcClientRow, locale: string, origin: string): PartnerClient {
  return {
    client_id: row.client_id,
    name: clientNameIn(row, locale),
    logo_uri: logoUriOf(origin, row),
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

/** The metadata oidc-provider validates: the code flow with refresh tokens, exact redirect URIs and
 * post-logout redirect URIs, the scopes the client may ask for; a public client (PKCE only) or a
 * confidential one (its secret by HTTP Basic or in the form body, stored as a digest: see
 * `clientSecretMatches`). Its logo is served by us, under the issuer's configured origin. */
export function clientMetadata(row: OidcClientRow, origin: string): AdapterPayload {
  const logoUri = logoUriOf(origin, row);
  return {
    client_id: row.client_id,
    client_name: row.name,
    redirect_uris: strings(jsonColumn(row.redirect_uris, [])),
    post_logout_redirect_uris: strings(jsonColumn(row.post_logout_redirect_uris, [])),
    response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: allowedScopes(row).join(' '),
    // Read by the login prompt's check (policy.ts) from the client the provider holds.
    require_mfa: isTrue(row.require_mfa),
    ...(logoUri ? { logo_uri: logoUri } : {}),
    ...(row.policy_uri ? { policy_uri: row.policy_uri } : {}),
    ...(row.tos_uri ? { tos_uri: row.tos_uri } : {}),
    ...(row.backchannel_logout_uri
      ? { backchannel_logout_uri: row.backchannel_logout_uri, backchannel_logout_session_required: true }
      : {}),
    token_endpoint_auth_method: tokenAuthMethodOf(row),
    ...(row.profile === FAPI2 ? fapiMetadata(row) : row.secret_hash ? { client_secret: row.secret_hash } : {}),
  };
}

/** What marks a FAPI 2.0 client: its keys (a registered JWKS or its jwks_uri), pushed authorization
 * requests and DPoP-bound access tokens required, and the profile the provider applies to it
 * (provider.ts: features.fapi.profile). */
function fapiMetadata(row: OidcClientRow): AdapterPayload {
  return {
    ...(row.jwks_uri ? { jwks_uri: row.jwks_uri } : { jwks: jsonColumn(row.jwks, { keys: [] }) }),
    require_pushed_authorization_requests: true,
    dpop_bound_access_tokens: true,
    fapi_profile: '2.0',
  };
}

export class OidcClientAdapter implements Adapter {
  private readonly db: Db;
  /** The configured origin of the provider this adapter serves (its logos' addresses). */
  private readonly origin: string;
  constructor(db: Db, origin: string) {
    this.db = db;
    this.origin = origin;
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const row = await cachedOidcClient(this.db, id);
    return row ? clientMetadata(row, this.origin) : undefined;
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
  /** The logo, checked (logos.ts `checkLogo`); null removes it. */
  logo?: Logo | null;
  policy_uri?: string | null;
  tos_uri?: string | null;
  backchannel_logout_uri?: string | null;
  /** Exact URIs an RP-initiated logout may return to (empty: none). */
  post_logout_redirect_uris?: string[];
  admin_email?: string | null;
  require_mfa?: boolean;
  /** A confidential client's secret; only its digest is kept. */
  secret?: string | null;
  /** How a confidential client presents its secret; null or absent: client_secret_basic. */
  token_endpoint_auth_method?: SecretAuthMethod | null;
  /** 'fapi2': the FAPI 2.0 Security Profile (with `jwks` or `jwks_uri`); null: the plain rules. */
  profile?: typeof FAPI2 | null;
  jwks?: { keys: Array<Record<string, unknown>> } | null;
  jwks_uri?: string | null;
  /** Where its security event tokens are pushed, and the bearer token that endpoint expects
   * (sealed with the server's key by the caller: server/config/secrets.ts). */
  events_endpoint?: string | null;
  events_token?: string | null;
};

/** The row of a registration (what it does not say stays as it is on an update). */
function rowOf(client: Partial<ClientRegistration>) {
  const row: Record<string, unknown> = {};
  if (client.name !== undefined) row.name = client.name;
  if (client.redirect_uris !== undefined) row.redirect_uris = JSON.stringify(client.redirect_uris);
  if (client.post_logout_redirect_uris !== undefined)
    row.post_logout_redirect_uris = JSON.stringify(client.post_logout_redirect_uris);
  if (client.token_endpoint_auth_method !== undefined)
    row.token_endpoint_auth_method = client.token_endpoint_auth_method;
  if (client.first_party !== undefined) row.first_party = client.first_party ? 1 : 0;
  if (client.names !== undefined) row.names = JSON.stringify(client.names);
  if (client.scopes !== undefined) row.scopes = JSON.stringify(client.scopes);
  for (const key of ['policy_uri', 'tos_uri', 'backchannel_logout_uri', 'admin_email'] as const) {
    if (client[key] !== undefined) row[key] = client[key];
  }
  if (client.require_mfa !== undefined) row.require_mfa = client.require_mfa ? 1 : 0;
  if (client.profile !== undefined) row.profile = client.profile;
  if (client.jwks !== undefined) row.jwks = client.jwks === null ? null : JSON.stringify(client.jwks);
  if (client.jwks_uri !== undefined) row.jwks_uri = client.jwks_uri;
  if (client.events_endpoint !== undefined) row.events_endpoint = client.events_endpoint;
  if (client.events_token !== undefined) row.events_token = client.events_token;
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
  const added = Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  if (added && client.logo) await saveLogo(db, client.client_id, client.logo);
  if (added) forgetCachedClients(db);
  return added;
}

/** Changes what the update says of a registered client; gives whether it exists. */
export async function updateClient(
  db: Db,
  clientId: string,
  update: Partial<Omit<ClientRegistration, 'client_id'>>,
): Promise<boolean> {
  const row = rowOf(update);
  const exists =
    Object.keys(row).length === 0
      ? Boolean(await findOidcClient(db, clientId))
      : Number(
          (
            await db
              .updateTable('oauth_clients')
              .set(row as never)
              .where('client_id', '=', clientId)
              .executeTakeFirst()
          ).numUpdatedRows,
        ) > 0;
  if (exists && update.logo !== undefined) await saveLogo(db, clientId, update.logo);
  if (exists) forgetCachedClients(db);
  return exists;
}

/** The parameters of a live authorisation request, by its interaction's uid (the request's secret);
 * null when the request is unknown or over. */
export async function paramsOfInteraction(db: Db, uid: string): Promise<Record<string, unknown> | null> {
  if (!INTERACTION_UID.test(uid)) return null;
  const row = await db
    .selectFrom('oidc_models')
    .select('payload')
    .where('model', '=', 'Interaction')
    .where('id', '=', uid)
    .where('expires_at', '>', new Date().toISOString())
    .executeTakeFirst();
  return row ? (jsonColumn<{ params?: Record<string, unknown> }>(row.payload, {}).params ?? {}) : null;
}

/** The uid of the interaction a way back to it names (`/oidc/interaction/<uid>`), or null. */
export function interactionUidOf(redirect: string): string | null {
  return redirect.startsWith(`${INTERACTION_PATH}/`) ? redirect.slice(INTERACTION_PATH.length + 1) : null;
}

/** The application an authorisation request is signing someone in to, by the way back to its
 * interaction (`/oidc/interaction/<uid>`): its name in the locale and its logo (under `origin`, the
 * configured one); null when the request is unknown or over. The uid is the request's secret; the
 * answer is public anyway. */
export async function clientOfInteraction(
  db: Db,
  redirect: string,
  locale: string,
  origin: string,
): Promise<{ client_id: string; name: string; logo_uri: string | null; first_party: boolean } | null> {
  const uid = interactionUidOf(redirect);
  const clientId = uid === null ? undefined : (await paramsOfInteraction(db, uid))?.client_id;
  if (typeof clientId !== 'string') return null;
  const client = await findOidcClient(db, clientId);
  return client
    ? {
        client_id: client.client_id,
        name: clientNameIn(client, locale),
        logo_uri: logoUriOf(origin, client),
        first_party: isFirstParty(client),
      }
    : null;
}
