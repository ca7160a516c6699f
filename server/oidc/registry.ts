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
  findOidcClient,
  isFirstParty,
  jsonColumn,
  registerClient,
  updateClient,
  type ClientRegistration,
  type OidcClientRow,
} from './clients.ts';

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
 * NAME_LOCALES. On an edit, what is not said stays as it is; a `null` link or email removes it. */
export type ClientInput = Partial<Omit<ClientRegistration, 'client_id' | 'names' | 'secret'>> & {
  names?: Partial<Record<NameLocale, string>>;
};

const LINKS = ['logo_uri', 'policy_uri', 'tos_uri', 'backchannel_logout_uri'] as const;
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
 * email lower-cased); throws a ClientInputError naming the first bad field. */
export function checkClientInput(input: ClientInput): ClientInput {
  const out: ClientInput = {};
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
  if (input.first_party !== undefined) out.first_party = input.first_party;
  if (input.require_mfa !== undefined) out.require_mfa = input.require_mfa;
  return out;
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
  logo_uri: string | null;
  policy_uri: string | null;
  tos_uri: string | null;
  backchannel_logout_uri: string | null;
  admin_email: string | null;
  require_mfa: boolean;
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
    logo_uri: row.logo_uri,
    policy_uri: row.policy_uri,
    tos_uri: row.tos_uri,
    backchannel_logout_uri: row.backchannel_logout_uri,
    admin_email: row.admin_email,
    require_mfa: isTrue(row.require_mfa),
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
  const { names, ...rest } = checked;
  const update: Partial<Omit<ClientRegistration, 'client_id'>> = { ...rest };
  if (names !== undefined)
    update.names = { ...jsonColumn<Record<string, string>>(current.names, {}), ...(names as Record<string, string>) };
  const secret = options.secret === 'new' ? newClientSecret() : null;
  if (options.secret) update.secret = secret;
  if (!(await updateClient(db, clientId, update))) throw new UnknownClient(`no client has the id "${clientId}"`);
  return { secret };
}

/** Removes a client and, in the same transaction, everything the provider issued to it: its grants,
 * whatever was issued under them (codes, access and refresh tokens), and any other model naming it
 * (an interaction in progress, say); and the access requests its users sent. Gives what went. */
export async function removeClient(db: Db, clientId: string): Promise<{ grants: number; models: number }> {
  return db.transaction().execute(async (trx) => {
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
}
