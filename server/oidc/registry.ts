// The operator's side of OIDC clients (`npm run cli -- clients …`): what a registration may say, checked
// in full before anything is written; listing; adding and editing through `registerClient` and
// `updateClient` (clients.ts); a confidential client's secret, made here and shown once; and removal,
// which takes with it everything the provider issued to the client.
import { randomBytes } from 'node:crypto';
import { CONSENT_SCOPES, LOCALES } from '../../contract/constants.ts';
import { isEmail } from '../../contract/rules.ts';
import { isTrue, type Db } from '../db/index.ts';
import {
  CLIENT_COLUMNS,
  FAPI2,
  FAPI_ALGORITHMS,
  findOidcClient,
  forgetCachedClients,
  isFirstParty,
  jsonColumn,
  registerClient,
  SECRET_AUTH_METHODS,
  tokenAuthMethodOf,
  updateClient,
  type ClientRegistration,
  type OidcClientRow,
} from './clients.ts';
import { LogoError, checkLogo, type Logo } from './logos.ts';

/** A client id: letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 64. */
export const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_CLIENT_NAME = 100;
export const MAX_URI = 2000;
/** Locales a client's name may be given in besides its default name (which is the English one). */
export const NAME_LOCALES = LOCALES.filter((locale) => locale !== 'en');
export type NameLocale = (typeof NAME_LOCALES)[number];

/** A value the registration refuses; `field` names it (the CLI turns it into its option). */
export class ClientInputError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/** What an operator may say of a client: a registration but its id and secret, with names only in
 * NAME_LOCALES and the logo as the bytes of its image file. On an edit, what is not said stays as it
 * is; a `null` link, email or logo removes it. */
export type ClientInput = Partial<Omit<ClientRegistration, 'client_id' | 'names' | 'secret' | 'logo'>> & {
  names?: Partial<Record<NameLocale, string>>;
  logo?: Uint8Array | null;
};

/** A client input checked: its logo too (logos.ts). */
export type CheckedClientInput = Omit<ClientInput, 'logo'> & { logo?: Logo | null };

const LINKS = ['policy_uri', 'tos_uri', 'backchannel_logout_uri'] as const;
const hasControl = (value: string) => /\p{Cc}/u.test(value);
const LOOPBACK = /^(localhost|.+\.localhost|127\.0\.0\.1|\[::1\])$/;

/** Why a URI may not be registered, or null: absolute https (http only on a loopback host), no
 * fragment, no user name or password. */
export function uriProblem(value: string): string | null {
  if (value.length > MAX_URI) return `is longer than ${MAX_URI} characters`;
  if (hasControl(value) || /\s/.test(value)) return 'contains spaces or control characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be https';
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname))
    return 'must be https (http only for localhost and 127.0.0.1)';
  if (value.includes('#')) return 'may not have a fragment (#)';
  if (url.username || url.password) return 'may not carry a user name or password';
  return null;
}

function checkName(field: string, value: string): string {
  const name = value.trim();
  if (!name) throw new ClientInputError(field, 'may not be empty');
  if (name.length > MAX_CLIENT_NAME) throw new ClientInputError(field, `is longer than ${MAX_CLIENT_NAME} characters`);
  if (hasControl(name)) throw new ClientInputError(field, 'contains control characters');
  return name;
}

function checkUri(field: string, value: string): string {
  const problem = uriProblem(value);
  if (problem) throw new ClientInputError(field, `"${value}" ${problem}`);
  return value;
}

export function checkClientId(clientId: string): string {
  if (!CLIENT_ID.test(clientId)) {
    throw new ClientInputError(
      'client_id',
      `"${clientId}" must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return clientId;
}

/** Checks every value of the input and gives it cleaned (names trimmed, duplicates dropped, the
 * email lower-cased, the logo's metadata stripped); throws a ClientInputError naming the first bad field. */
export function checkClientInput(input: ClientInput): CheckedClientInput {
  const out: CheckedClientInput = {};
  if (input.name !== undefined) out.name = checkName('name', input.name);
  if (input.names !== undefined) {
    const names: Partial<Record<NameLocale, string>> = {};
    for (const [locale, name] of Object.entries(input.names)) {
      if (!(NAME_LOCALES as readonly string[]).includes(locale))
        throw new ClientInputError('names', `"${locale}" is not one of ${NAME_LOCALES.join(', ')}`);
      if (name !== undefined) names[locale as NameLocale] = checkName(`name-${locale}`, name);
    }
    out.names = names;
  }
  if (input.redirect_uris !== undefined) {
    if (input.redirect_uris.length === 0) throw new ClientInputError('redirect_uris', 'at least one is required');
    out.redirect_uris = [...new Set(input.redirect_uris.map((uri) => checkUri('redirect_uris', uri)))];
  }
  // An empty list removes them: a logout then ends on our own page.
  if (input.post_logout_redirect_uris !== undefined) {
    out.post_logout_redirect_uris = [
      ...new Set(input.post_logout_redirect_uris.map((uri) => checkUri('post_logout_redirect_uris', uri))),
    ];
  }
  if (input.token_endpoint_auth_method !== undefined && input.token_endpoint_auth_method !== null) {
    if (!(SECRET_AUTH_METHODS as readonly string[]).includes(input.token_endpoint_auth_method))
      throw new ClientInputError(
        'token_endpoint_auth_method',
        `"${input.token_endpoint_auth_method}" is not one of ${SECRET_AUTH_METHODS.join(', ')}`,
      );
    out.token_endpoint_auth_method = input.token_endpoint_auth_method;
  }
  if (input.scopes !== undefined) {
    for (const scope of input.scopes) {
      if (!(CONSENT_SCOPES as readonly string[]).includes(scope)) {
        throw new ClientInputError('scopes', `"${scope}" is not a consent scope (${CONSENT_SCOPES.join(', ')})`);
      }
    }
    out.scopes = [...new Set(input.scopes)];
  }
  for (const key of LINKS) {
    const value = input[key];
    if (value !== undefined) out[key] = value === null ? null : checkUri(key, value);
  }
  if (input.admin_email !== undefined) {
    const email = input.admin_email?.trim().toLowerCase() ?? null;
    if (email !== null && !isEmail(email))
      throw new ClientInputError('admin_email', `"${input.admin_email}" is not a valid email address`);
    out.admin_email = email;
  }
  if (input.logo !== undefined) {
    try {
      out.logo = input.logo === null ? null : checkLogo(input.logo);
    } catch (error) {
      if (error instanceof LogoError) throw new ClientInputError('logo', `the image ${error.message}`);
      throw error;
    }
  }
  if (input.first_party !== undefined) out.first_party = input.first_party;
  if (input.require_mfa !== undefined) out.require_mfa = input.require_mfa;
  if (input.profile !== undefined) {
    if (input.profile !== null && input.profile !== FAPI2)
      throw new ClientInputError('profile', `"${String(input.profile)}" is not a profile (${FAPI2})`);
    out.profile = input.profile;
  }
  if (input.jwks !== undefined) out.jwks = input.jwks === null ? null : checkJwks(input.jwks);
  if (input.jwks_uri !== undefined)
    out.jwks_uri = input.jwks_uri === null ? null : checkUri('jwks_uri', input.jwks_uri);
  if (input.events_endpoint !== undefined)
    out.events_endpoint = input.events_endpoint === null ? null : checkUri('events_endpoint', input.events_endpoint);
  if (input.events_token !== undefined) {
    const token = input.events_token;
    if (token !== null && (token.length === 0 || token.length > 1024 || hasControl(token)))
      throw new ClientInputError('events_token', 'must be 1 to 1024 characters, without control characters');
    out.events_token = token;
  }
  return out;
}

/** Members only a private or secret key has: a client registers its public keys, never those. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** A client's public signing keys: one to ten, each EC, RSA or OKP, for signing, with an algorithm
 * FAPI 2.0 allows where it names one. */
export function checkJwks(jwks: unknown): { keys: Array<Record<string, unknown>> } {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > 10)
    throw new ClientInputError('jwks', 'must be a JWKS with one to ten keys ({"keys": [...]})');
  for (const key of keys as Array<Record<string, unknown>>) {
    if (typeof key !== 'object' || key === null || !['EC', 'RSA', 'OKP'].includes(String(key.kty)))
      throw new ClientInputError('jwks', 'each key must be an EC, RSA or OKP public key');
    if (PRIVATE_MEMBERS.some((member) => member in key))
      throw new ClientInputError('jwks', 'holds a private key: register the public keys only');
    if (key.use !== undefined && key.use !== 'sig') throw new ClientInputError('jwks', 'a key\'s "use" must be "sig"');
    if (key.alg !== undefined && !(FAPI_ALGORITHMS as readonly string[]).includes(String(key.alg)))
      throw new ClientInputError('jwks', `a key's "alg" must be one of ${FAPI_ALGORITHMS.join(', ')}`);
  }
  return { keys: keys as Array<Record<string, unknown>> };
}

/** A new client secret: 32 random bytes, base64url (43 characters). Only its digest is stored. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A registered client as the operator reads it. */
export type ClientSummary = {
  client_id: string;
  name: string;
  names: Record<string, string>;
  first_party: boolean;
  confidential: boolean;
  redirect_uris: string[];
  scopes: string[];
  /** The version (digest) of its logo, served by us; null without one. */
  logo: string | null;
  policy_uri: string | null;
  tos_uri: string | null;
  backchannel_logout_uri: string | null;
  post_logout_redirect_uris: string[];
  admin_email: string | null;
  require_mfa: boolean;
  /** How it authenticates at the token endpoint: none (public), client_secret_basic,
   * client_secret_post, or private_key_jwt (a FAPI 2.0 client). */
  token_endpoint_auth_method: string;
  /** 'fapi2' for a client that follows the FAPI 2.0 Security Profile; null otherwise. */
  profile: string | null;
  /** Where its keys are: 'jwks' (registered), its jwks_uri, or null. */
  keys: string | null;
  /** Where its security event tokens are pushed; null: it hears none. */
  events_endpoint: string | null;
};

function summaryOf(row: OidcClientRow): ClientSummary {
  return {
    client_id: row.client_id,
    name: row.name,
    names: jsonColumn(row.names, {}),
    first_party: isFirstParty(row),
    confidential: Boolean(row.secret_hash),
    redirect_uris: jsonColumn(row.redirect_uris, []),
    scopes: jsonColumn(row.scopes, []),
    logo: row.logo_version,
    policy_uri: row.policy_uri,
    tos_uri: row.tos_uri,
    backchannel_logout_uri: row.backchannel_logout_uri,
    post_logout_redirect_uris: jsonColumn(row.post_logout_redirect_uris, []),
    admin_email: row.admin_email,
    require_mfa: isTrue(row.require_mfa),
    token_endpoint_auth_method: tokenAuthMethodOf(row),
    profile: row.profile,
    keys: row.jwks_uri ?? (row.jwks ? 'jwks' : null),
    events_endpoint: row.events_endpoint,
  };
}

/** Every registered client, by id. */
export async function listClients(db: Db): Promise<ClientSummary[]> {
  const rows = await db.selectFrom('oauth_clients').select(CLIENT_COLUMNS).orderBy('client_id').execute();
  return rows.map(summaryOf);
}

/** The client, if registered. */
export async function getClient(db: Db, clientId: string): Promise<ClientSummary | undefined> {
  const row = await findOidcClient(db, clientId);
  return row ? summaryOf(row) : undefined;
}

export class ClientExists extends Error {}

/** A token endpoint method that presents a secret, for a client without one. */
const secretless = () =>
  new ClientInputError('token_endpoint_auth_method', 'needs a confidential client (one with a secret)');
export class UnknownClient extends Error {}

/** Registers a new client (checked in full first); gives its secret when it is confidential, which
 * is the only time the secret exists outside the client. An existing id is refused. */
export async function addClient(
  db: Db,
  clientId: string,
  input: ClientInput & { name: string; redirect_uris: string[] },
  options: { confidential?: boolean } = {},
): Promise<{ secret: string | null }> {
  checkClientId(clientId);
  const checked = checkClientInput(input);
  if (checked.token_endpoint_auth_method && !options.confidential) throw secretless();
  if (checked.profile === FAPI2) fapiKeysOf(checked, null, options.confidential === true);
  const secret = options.confidential ? newClientSecret() : null;
  const registration: ClientRegistration = {
    ...checked,
    client_id: clientId,
    name: checked.name!,
    redirect_uris: checked.redirect_uris!,
    secret,
    scopes: checked.scopes ?? [],
    names: (checked.names as Record<string, string> | undefined) ?? {},
  };
  if (!(await registerClient(db, registration)))
    throw new ClientExists(`a client with the id "${clientId}" is already registered`);
  return { secret };
}

/** Changes what `input` says of a registered client. `secret`: 'new' gives it a new secret (it
 * becomes or stays confidential; the old secret stops working at once), 'none' makes it public.
 * Names given per locale replace those locales' names and keep the others. */
export async function editClient(
  db: Db,
  clientId: string,
  input: ClientInput,
  options: { secret?: 'new' | 'none' } = {},
): Promise<{ secret: string | null }> {
  const checked = checkClientInput(input);
  const current = await findOidcClient(db, clientId);
  if (!current) throw new UnknownClient(`no client has the id "${clientId}"`);
  const confidential = options.secret === 'new' || (options.secret === undefined && Boolean(current.secret_hash));
  if (checked.token_endpoint_auth_method && !confidential) throw secretless();
  if ((checked.profile ?? current.profile) === FAPI2) fapiKeysOf(checked, current, options.secret === 'new');
  const { names, ...rest } = checked;
  const update: Partial<Omit<ClientRegistration, 'client_id'>> = { ...rest };
  // A public client presents no secret at all; nor does a FAPI 2.0 one, which signs with its key.
  if (options.secret === 'none' || checked.profile === FAPI2) update.token_endpoint_auth_method = null;
  if (checked.profile === FAPI2) update.secret = null;
  if (names !== undefined)
    update.names = { ...jsonColumn<Record<string, string>>(current.names, {}), ...(names as Record<string, string>) };
  const secret = options.secret === 'new' ? newClientSecret() : null;
  if (options.secret) update.secret = secret;
  if (!(await updateClient(db, clientId, update))) throw new UnknownClient(`no client has the id "${clientId}"`);
  return { secret };
}

/** A FAPI 2.0 client authenticates with its own key: it has a JWKS or a jwks_uri (exactly one), and
 * no secret. */
function fapiKeysOf(input: CheckedClientInput, current: OidcClientRow | null, secret: boolean): void {
  if (secret) throw new ClientInputError('profile', 'a FAPI 2.0 client signs with its own key: it has no secret');
  const jwks = input.jwks !== undefined ? input.jwks !== null : Boolean(current?.jwks);
  const uri = input.jwks_uri !== undefined ? input.jwks_uri !== null : Boolean(current?.jwks_uri);
  if (jwks === uri)
    throw new ClientInputError('jwks', 'a FAPI 2.0 client needs its public keys: a JWKS or a jwks_uri, one of the two');
}

/** Removes a client and, in the same transaction, everything the provider issued to it: its grants,
 * whatever was issued under them (codes, access and refresh tokens), and any other model naming it
 * (an interaction in progress, say); and the access requests its users sent. Gives what went. */
export async function removeClient(db: Db, clientId: string): Promise<{ grants: number; models: number }> {
  const removed = await db.transaction().execute(async (trx) => {
    const client = await trx.deleteFrom('oauth_clients').where('client_id', '=', clientId).executeTakeFirst();
    if (Number(client.numDeletedRows) === 0) throw new UnknownClient(`no client has the id "${clientId}"`);
    const grants = await trx
      .selectFrom('oidc_models')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('model', '=', 'Grant')
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    const issuedUnder = trx
      .selectFrom('oidc_models')
      .select('id')
      .where('model', '=', 'Grant')
      .where('client_id', '=', clientId);
    const models = await trx
      .deleteFrom('oidc_models')
      .where((eb) => eb.or([eb('client_id', '=', clientId), eb('grant_id', 'in', issuedUnder)]))
      .executeTakeFirst();
    await trx.deleteFrom('partner_access_requests').where('client_id', '=', clientId).execute();
    return { grants: Number(grants.n), models: Number(models.numDeletedRows) };
  });
  forgetCachedClients(db);
  return removed;
}
