// The operator's command line (`npm run cli -- …`): imports cards, blocks and unblocks them,
// creates invitations, lists and rotates the OIDC signing keys, and registers, edits and removes
// OIDC clients, on the database the server uses. Configuration comes from the environment
// exactly as for the server (DATABASE_URL, SQLITE_PATH, SECRET_KEY): the codes are keyed hashes, so
// the CLI must run with the server's SECRET_KEY. Exit codes: 0 done, 1 error (nothing done, except
// the batches an import wrote before a database failure), 2 an import that refused some rows (the
// good ones are stored).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { isCardNumber, normaliseCardNumber } from '../../contract/rules.ts';
import { CardImportError, importCards } from '../cards/import.ts';
import { setCardStatus, type CardStatus } from '../cards/manage.ts';
import { ConfigError, loadConfig, type Config } from '../config/index.ts';
import { openDatabase, type DatabaseHandle, type Db } from '../db/index.ts';
import { migrate } from '../db/migrations.ts';
import {
  DEFAULT_INVITATION_DAYS,
  InvitationInputError,
  MAX_INVITATION_DAYS,
  checkInvitationInput,
  createInvitation,
  type InvitationField,
} from '../invitations/create.ts';
import { setSsoOnly } from '../identity/sso.ts';
import { RETIRED_KEY_GRACE_SECONDS, listSigningKeys, rotateSigningKeys } from '../oidc/keys.ts';
import { announceChange, type Reloadable } from '../cluster/invalidation.ts';
import { connectRedis } from '../config/redis.ts';
import {
  ClientExists,
  ClientInputError,
  NAME_LOCALES,
  UnknownClient,
  addClient,
  checkClientId,
  checkClientInput,
  editClient,
  getClient,
  listClients,
  removeClient,
  type ClientInput,
  type ClientSummary,
  type NameLocale,
} from '../oidc/registry.ts';
import { FAPI2 } from '../oidc/clients.ts';
import { encryptSecret } from '../config/secrets.ts';
import { LOGO_MAX_BYTES } from '../oidc/logos.ts';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_REFUSED_ROWS = 2;

export type CliIo = {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Where relative file names are resolved: the directory npm was run from. */
  cwd: string;
};

export const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  cards import <file.csv>     import benefit cards from a CSV file (columns: docs/operations/cli.md)
  cards block <number>        block a card (lost, stolen, withdrawn): it can no longer be activated
  cards unblock <number>      make a blocked card usable again
  invitations create --email <email> [--firstname X] [--lastname Y] [--language nl]
      [--company "Acme"] [--user-id U-1] [--customer-id C-1] [--fridom-id F-1]
      [--mfa-forced] [--mfa-customer] [--days ${DEFAULT_INVITATION_DAYS}]
                              create an invitation (valid 1 to ${MAX_INVITATION_DAYS} days) and print its code, once
  oidc-keys list              list the OIDC signing keys (kid, algorithm, created, retired)
  oidc-keys rotate            add a new signing key set and retire the current one (it stays
                              published ${RETIRED_KEY_GRACE_SECONDS / 86_400} more days, so what it signed still verifies)
  clients list                list the OIDC clients: id, name, first-party or partner, public or
                              confidential, redirect URIs, allowed scopes
  clients add <client_id> --name X --redirect-uri U [--redirect-uri U2 …]
      [--name-fr X] [--name-nl X] [--name-de_LU X] [--name-en_LU X] [--name-fr_LU X]
      [--scope balance --scope user …] [--first-party] [--logo FILE] [--policy-uri U]
      [--tos-uri U] [--backchannel-logout-uri U] [--post-logout-redirect-uri U …]
      [--admin-email E] [--require-mfa]
      [--confidential [--token-endpoint-auth-method client_secret_basic|client_secret_post]
       | --fapi2 (--jwks FILE | --jwks-uri U)] [--events-endpoint U --events-token T]
                              register a client (public: PKCE only; --confidential: also a
                              secret, printed once, sent by HTTP Basic unless the method says
                              client_secret_post; --fapi2: the FAPI 2.0 Security Profile, signing
                              with its own key, public keys in a JWKS file or at its jwks_uri;
                              --events-endpoint: where its users' security events are pushed,
                              with --events-token as the bearer token it expects);
                              --logo: a PNG, JPEG or WebP file of at
                              most ${LOGO_MAX_BYTES / 1024} KB, served from this portal;
                              --post-logout-redirect-uri: where a logout it starts may return
  clients edit <client_id> [the options of add] [--no-first-party] [--no-require-mfa] [--no-fapi2]
      [--public | --rotate-secret]
                              change what the options say (--redirect-uri, --post-logout-redirect-uri
                              and --scope replace the lists, --post-logout-redirect-uri "" empties
                              it; an empty link, email or logo removes it); --rotate-secret prints
                              a new secret once, --public drops it; --jwks FILE or --jwks-uri U
                              replaces a FAPI 2.0 client's keys (key rotation)
  clients remove <client_id>  remove a client and revoke every grant, code and token issued to it
  users sso-only <email> on|off
                              make the account of this email sign in with Microsoft only (on:
                              its password sign-in is refused; it needs a linked Microsoft
                              identity), or let it use its password again (off)
  help                        show this text

The database and the secret key come from the environment, as for the server (DATABASE_URL,
SQLITE_PATH, SECRET_KEY); run the CLI with the server's SECRET_KEY.
Exit codes: 0 done, 1 error, 2 import with refused rows (the others are stored).
`;

/** A mistake in the command line or its values: reported on stderr, exit 1. */
class UsageError extends Error {}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Runs one command; gives the exit code. Never throws. */
export async function runCli(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const out: CliIo = {
    stdout:
      io.stdout ??
      ((text) => {
        process.stdout.write(text);
      }),
    stderr:
      io.stderr ??
      ((text) => {
        process.stderr.write(text);
      }),
    env: io.env ?? process.env,
    // npm runs scripts from the project's root; INIT_CWD is where the operator typed the command.
    cwd: io.cwd ?? process.env.INIT_CWD ?? process.cwd(),
  };
  const [command, subcommand, ...rest] = argv;
  if (command === undefined) {
    out.stderr(USAGE);
    return EXIT_ERROR;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    out.stdout(USAGE);
    return EXIT_OK;
  }
  const run = COMMANDS[`${command} ${subcommand ?? ''}`];
  if (!run) {
    out.stderr(`Unknown command "${[command, subcommand].filter(Boolean).join(' ')}".\n\n${USAGE}`);
    return EXIT_ERROR;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    out.stdout(USAGE);
    return EXIT_OK;
  }
  try {
    return await run(rest, out);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof CardImportError) {
      out.stderr(`${error instanceof ConfigError ? 'Configuration error' : 'Error'}: ${error.message}\n`);
    } else if (error instanceof InvitationInputError) {
      out.stderr(`Error: ${OPTION_OF[error.field]} ${error.message}\n`);
    } else if (error instanceof ClientInputError) {
      out.stderr(`Error: ${CLIENT_OPTION_OF[error.field] ?? `--${error.field}`} ${error.message}\n`);
    } else if (error instanceof ClientExists || error instanceof UnknownClient) {
      out.stderr(`Error: ${error.message}\n`);
    } else if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      out.stderr(`Error: ${(error as Error).message}\n\n${USAGE}`);
    } else {
      out.stderr(`Error: ${(error as Error).message ?? String(error)}\n`);
    }
    return EXIT_ERROR;
  }
}

type Command = (args: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  'cards import': cardsImport,
  'cards block': (args, io) => cardStatus(args, io, 'blocked'),
  'cards unblock': (args, io) => cardStatus(args, io, 'issued'),
  'invitations create': invitationsCreate,
  'oidc-keys list': oidcKeysList,
  'oidc-keys rotate': oidcKeysRotate,
  'clients list': clientsList,
  'clients add': clientsAdd,
  'clients edit': clientsEdit,
  'clients remove': clientsRemove,
  'users sso-only': usersSsoOnly,
};

const OPTION_OF: Record<InvitationField, string> = {
  email: '--email',
  firstname: '--firstname',
  lastname: '--lastname',
  language: '--language',
  company: '--company',
  userId: '--user-id',
  customerUserId: '--customer-id',
  fridomUserId: '--fridom-id',
  days: '--days',
};

function noArguments(args: string[]): void {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
}

function onePositional(args: string[], what: string): string {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1)
    throw new UsageError(`expected one ${what}, got ${positionals.length === 0 ? 'none' : positionals.length}`);
  return positionals[0]!;
}

/** Prints the items in columns under the header, each as wide as its widest cell; or, when there are
 * none, the line saying so. */
function printList<T>(io: CliIo, items: T[], none: string, header: string[], cells: (item: T) => string[]): void {
  if (items.length === 0) return io.stdout(`${none}\n`);
  const rows = [header, ...items.map(cells)];
  const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  io.stdout(rows.map((row) => line(row) + '\n').join(''));
}

/** Opens the server's database (migrated to the latest schema), runs `work`, closes it. */
async function withDatabase<T>(io: CliIo, work: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  const where = config.databaseUrl
    ? 'the PostgreSQL database of DATABASE_URL'
    : `the SQLite database at ${config.sqlitePath}`;
  let database: DatabaseHandle;
  try {
    database = openDatabase({ databaseUrl: config.databaseUrl, sqlitePath: config.sqlitePath });
  } catch (error) {
    throw new UsageError(`cannot open ${where}: ${(error as Error).message}`);
  }
  try {
    try {
      await sql`select 1`.execute(database.db);
    } catch (error) {
      throw new UsageError(`cannot reach ${where}: ${(error as Error).message}`);
    }
    await migrate(database.db);
    return await work(database.db, config);
  } finally {
    await database.close();
  }
}

/** A file the command names, from the working directory. */
function readInputFile(io: CliIo, name: string): { file: string; bytes: Buffer } {
  const file = resolve(io.cwd, name);
  try {
    return { file, bytes: readFileSync(file) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

async function cardsImport(args: string[], io: CliIo): Promise<number> {
  const { file, bytes } = readInputFile(io, onePositional(args, 'CSV file'));
  let text: string;
  try {
    // Not ignoring the BOM means the decoder drops it.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${file} is not UTF-8 text: save it as "CSV UTF-8"`);
  }
  const result = await withDatabase(io, (db, config) =>
    importCards(db, config.secretKey, text, ({ done, total }) => io.stderr(`… ${done} of ${total} cards written\n`)),
  );
  if (result.refused.length === 0) {
    io.stdout(`Imported ${plural(result.imported, 'card')}.\n`);
    return EXIT_OK;
  }
  io.stdout(
    `Imported ${plural(result.imported, 'card')}; refused ${plural(result.refused.length, 'row')}:\n` +
      result.refused.map(({ line, reason }) => `  line ${line}: ${reason}\n`).join(''),
  );
  return EXIT_REFUSED_ROWS;
}

async function cardStatus(args: string[], io: CliIo, status: CardStatus): Promise<number> {
  const given = onePositional(args, 'card number');
  if (!isCardNumber(given)) throw new UsageError(`"${given}": the card number must be 16 digits starting with 5065`);
  const number = normaliseCardNumber(given);
  const result = await withDatabase(io, (db) => setCardStatus(db, number, status));
  if (!result) {
    io.stderr(`Error: no card has the number ${number}\n`);
    return EXIT_ERROR;
  }
  const word = status === 'blocked' ? 'blocked' : 'unblocked';
  io.stdout(result.previous === status ? `Card ${number} was already ${word}.\n` : `Card ${number} is now ${word}.\n`);
  return EXIT_OK;
}

async function usersSsoOnly(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  const [email, setting] = positionals;
  if (positionals.length !== 2 || !email || (setting !== 'on' && setting !== 'off')) {
    throw new UsageError('expected an email and on or off: users sso-only <email> on|off');
  }
  const result = await withDatabase(io, (db) => setSsoOnly(db, email, setting === 'on'));
  if (result === 'unknown') {
    io.stderr(`Error: no open account has the email ${email}\n`);
    return EXIT_ERROR;
  }
  if (result === 'no_identity') {
    io.stderr(
      `Error: the account of ${email} has no linked Microsoft identity: with sso-only on it could not sign in at all\n`,
    );
    return EXIT_ERROR;
  }
  const state = setting === 'on' ? 'signs in with Microsoft only' : 'may sign in with its password';
  io.stdout(result.changed ? `The account of ${email} now ${state}.\n` : `The account of ${email} already ${state}.\n`);
  return EXIT_OK;
}

async function invitationsCreate(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      email: { type: 'string' },
      firstname: { type: 'string' },
      lastname: { type: 'string' },
      language: { type: 'string' },
      company: { type: 'string' },
      'user-id': { type: 'string' },
      'customer-id': { type: 'string' },
      'fridom-id': { type: 'string' },
      'mfa-forced': { type: 'boolean' },
      'mfa-customer': { type: 'boolean' },
      days: { type: 'string' },
    },
  });
  if (values.email === undefined) throw new UsageError('--email is required');
  let days = DEFAULT_INVITATION_DAYS;
  if (values.days !== undefined) {
    if (!/^\d{1,3}$/.test(values.days.trim()))
      throw new UsageError(
        `--days must be a whole number of days from 1 to ${MAX_INVITATION_DAYS} (got "${values.days}")`,
      );
    days = Number(values.days.trim());
  }
  const input = {
    email: values.email,
    firstname: values.firstname,
    lastname: values.lastname,
    language: values.language,
    company: values.company,
    userId: values['user-id'],
    customerUserId: values['customer-id'],
    fridomUserId: values['fridom-id'],
    mfaForced: values['mfa-forced'] ?? false,
    mfaCustomer: values['mfa-customer'] ?? false,
    days,
  };
  checkInvitationInput(input); // a bad value is reported before the database is opened
  const invitation = await withDatabase(io, (db, config) => createInvitation(db, config.secretKey, input));
  io.stdout(
    `Invitation created for ${invitation.email}, valid until ${invitation.expiresAt} (${plural(days, 'day')}).\n` +
      `Code: ${invitation.code}\n` +
      'The code is shown only this once (only a keyed hash of it is stored): send it to the person now.\n',
  );
  return EXIT_OK;
}

async function oidcKeysList(args: string[], io: CliIo): Promise<number> {
  noArguments(args);
  const keys = await withDatabase(io, (db) => listSigningKeys(db));
  printList(
    io,
    keys,
    'No OIDC signing keys yet: the server creates them when it first starts (or run oidc-keys rotate).',
    ['KID', 'ALG', 'CREATED', 'RETIRED'],
    (key) => [
      key.kid,
      key.alg,
      key.createdAt,
      key.retiredAt === null
        ? '- (signing)'
        : `${key.retiredAt} (${key.published ? 'still published' : 'no longer published'})`,
    ],
  );
  return EXIT_OK;
}

async function oidcKeysRotate(args: string[], io: CliIo): Promise<number> {
  noArguments(args);
  const rotated = await withDatabase(io, (db, config) => rotateSigningKeys(db, config.secretKey));
  io.stdout(
    `New OIDC signing keys ${rotated.kids.join(', ')} now sign` +
      (rotated.generation === 1
        ? '.\n'
        : `; the previous ones stay published for ${RETIRED_KEY_GRACE_SECONDS / 86_400} days.\n`),
  );
  // The first keys: no instance was running (one creates them as it starts).
  if (rotated.generation > 1) io.stdout(`${await keysReloaded(loadConfig(io.env))}\n`);
  return EXIT_OK;
}

/** Tells the running instances, through Redis, to use the new keys now; says how many did. */
const keysReloaded = (config: Config) => changeAnnounced(config, 'oidc-keys', 'them');

/** Tells the running instances, through Redis, to read a changed client anew (they keep clients'
 * rows in memory); says how many did. */
const clientReloaded = (config: Config) => changeAnnounced(config, 'oidc-clients', 'the change');

/** Announces a change to the running instances through Redis (server/cluster/invalidation.ts); says
 * how many use `it` now. Without Redis, or those that do not answer, catch up within 30 s. */
async function changeAnnounced(config: Config, what: Reloadable, it: string): Promise<string> {
  const later = `The running instances use ${it} within 30 s.`;
  if (!config.redis) return later;
  const redis = connectRedis(config.redis, { maxRetriesPerRequest: 1, commandTimeout: 2000, lazyConnect: true });
  redis.on('error', () => {});
  try {
    const { instances, reloaded } = await announceChange(redis, what);
    if (instances === 0) return `No running instance heard of it. ${later}`;
    return reloaded === instances
      ? `All ${instances} running instances use ${it} now.`
      : `${reloaded} of ${instances} running instances use ${it} now; the others within 30 s.`;
  } catch {
    return `Redis did not answer. ${later}`;
  } finally {
    redis.disconnect();
  }
}

// ---- OIDC clients --------------------------------------------------------------------------------

const CLIENT_OPTION_OF: Record<string, string> = {
  client_id: 'client id',
  name: '--name',
  names: '--name-<locale>',
  redirect_uris: '--redirect-uri',
  scopes: '--scope',
  logo: '--logo',
  policy_uri: '--policy-uri',
  tos_uri: '--tos-uri',
  backchannel_logout_uri: '--backchannel-logout-uri',
  post_logout_redirect_uris: '--post-logout-redirect-uri',
  token_endpoint_auth_method: '--token-endpoint-auth-method',
  admin_email: '--admin-email',
  profile: '--fapi2',
  jwks: '--jwks',
  jwks_uri: '--jwks-uri',
  events_endpoint: '--events-endpoint',
  events_token: '--events-token',
};

const CLIENT_OPTIONS = {
  name: { type: 'string' },
  ...Object.fromEntries(NAME_LOCALES.map((locale) => [`name-${locale}`, { type: 'string' }])),
  'redirect-uri': { type: 'string', multiple: true },
  scope: { type: 'string', multiple: true },
  'first-party': { type: 'boolean' },
  logo: { type: 'string' },
  'policy-uri': { type: 'string' },
  'tos-uri': { type: 'string' },
  'backchannel-logout-uri': { type: 'string' },
  'post-logout-redirect-uri': { type: 'string', multiple: true },
  'token-endpoint-auth-method': { type: 'string' },
  'admin-email': { type: 'string' },
  'require-mfa': { type: 'boolean' },
  confidential: { type: 'boolean' },
  fapi2: { type: 'boolean' },
  jwks: { type: 'string' },
  'jwks-uri': { type: 'string' },
  'events-endpoint': { type: 'string' },
  'events-token': { type: 'string' },
} as const;

type ClientValues = Record<string, string | boolean | string[] | undefined>;

/** The client id and options of `clients add` and `clients edit`. */
function clientArguments(
  args: string[],
  extra: Record<string, { type: 'boolean' }> = {},
): { clientId: string; values: ClientValues } {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    allowNegative: true,
    options: { ...CLIENT_OPTIONS, ...extra },
  });
  if (positionals.length !== 1)
    throw new UsageError(`expected one client id, got ${positionals.length === 0 ? 'none' : positionals.length}`);
  return { clientId: checkClientId(positionals[0]!), values: values as ClientValues };
}

/** What the options say of the client (on an edit, an empty link, email or logo removes it); the
 * logo's file is read from the working directory. */
function clientInputOf(values: ClientValues, io: CliIo): ClientInput {
  const text = (name: string) => values[name] as string | undefined;
  const link = (name: string) =>
    text(name) === undefined ? undefined : text(name)!.trim() === '' ? null : text(name)!.trim();
  const names: Partial<Record<NameLocale, string>> = {};
  for (const locale of NAME_LOCALES) if (text(`name-${locale}`) !== undefined) names[locale] = text(`name-${locale}`)!;
  const list = (name: string) =>
    (values[name] as string[] | undefined)?.flatMap((value) => value.split(/[\s,]+/)).filter(Boolean);
  const input: ClientInput = {
    name: text('name'),
    names: Object.keys(names).length > 0 ? names : undefined,
    redirect_uris: (values['redirect-uri'] as string[] | undefined)?.map((uri) => uri.trim()),
    scopes: list('scope'),
    first_party: values['first-party'] as boolean | undefined,
    logo:
      text('logo') === undefined
        ? undefined
        : text('logo')!.trim() === ''
          ? null
          : readInputFile(io, text('logo')!).bytes,
    policy_uri: link('policy-uri'),
    tos_uri: link('tos-uri'),
    backchannel_logout_uri: link('backchannel-logout-uri'),
    post_logout_redirect_uris: (values['post-logout-redirect-uri'] as string[] | undefined)
      ?.map((uri) => uri.trim())
      .filter(Boolean),
    token_endpoint_auth_method: text('token-endpoint-auth-method')?.trim() as ClientInput['token_endpoint_auth_method'],
    admin_email: link('admin-email'),
    require_mfa: values['require-mfa'] as boolean | undefined,
    profile: values.fapi2 === undefined ? undefined : values.fapi2 === true ? FAPI2 : null,
    // The keys' file is JSON (a JWKS); an empty value removes the registered keys.
    jwks: text('jwks') === undefined ? undefined : text('jwks')!.trim() === '' ? null : jwksFile(io, text('jwks')!),
    jwks_uri: link('jwks-uri'),
    events_endpoint: link('events-endpoint'),
    events_token: link('events-token'),
  };
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as ClientInput;
}

/** The input with its events token sealed with the server's key (it is sent, so it is kept
 * recoverable, never in clear). */
const sealed = (input: ClientInput, config: Config): ClientInput =>
  input.events_token ? { ...input, events_token: encryptSecret(config.secretKey, input.events_token) } : input;

/** A JWKS read from a file; a file that is not JSON is a usage error naming it. */
function jwksFile(io: CliIo, path: string): ClientInput['jwks'] {
  const { bytes } = readInputFile(io, path);
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as ClientInput['jwks'];
  } catch {
    throw new UsageError(`--jwks: ${path} is not a JSON file (a JWKS: {"keys": [...]})`);
  }
}

const secretLines = (secret: string) =>
  `Secret: ${secret}\n` +
  "The secret is shown only this once (only its digest is stored): hand it to the client's developers now.\n";

const kindOf = (
  client: Pick<ClientSummary, 'first_party' | 'confidential' | 'token_endpoint_auth_method' | 'profile'>,
) => `${client.first_party ? 'first-party' : 'partner'}, ${authOf(client)}`;

/** How a client authenticates, as the listing says it. */
const authOf = (client: Pick<ClientSummary, 'confidential' | 'token_endpoint_auth_method' | 'profile'>) =>
  client.profile === FAPI2
    ? 'FAPI 2.0 (private_key_jwt)'
    : client.confidential
      ? `confidential (${client.token_endpoint_auth_method})`
      : 'public';

async function clientsList(args: string[], io: CliIo): Promise<number> {
  noArguments(args);
  const clients = await withDatabase(io, (db) => listClients(db));
  printList(
    io,
    clients,
    'No OIDC clients registered (add one with clients add).',
    ['CLIENT_ID', 'NAME', 'PARTY', 'AUTH', 'REDIRECT_URIS', 'POST_LOGOUT_REDIRECT_URIS', 'SCOPES'],
    (client) => [
      client.client_id,
      client.name,
      client.first_party ? 'first-party' : 'partner',
      authOf(client),
      client.redirect_uris.join(','),
      client.post_logout_redirect_uris.join(',') || '-',
      client.scopes.join(',') || '-',
    ],
  );
  return EXIT_OK;
}

async function clientsAdd(args: string[], io: CliIo): Promise<number> {
  const { clientId, values } = clientArguments(args);
  const input = clientInputOf(values, io);
  if (input.name === undefined) throw new UsageError('--name is required');
  if (input.redirect_uris === undefined) throw new UsageError('--redirect-uri is required (once per URI)');
  // Every value is checked before the database is opened.
  checkClientInput(input);
  const confidential = values.confidential === true;
  if (input.token_endpoint_auth_method && !confidential)
    throw new UsageError('--token-endpoint-auth-method needs --confidential (a public client presents no secret)');
  const { secret, client } = await withDatabase(io, async (db, config) => {
    const added = await addClient(
      db,
      clientId,
      { ...sealed(input, config), name: input.name!, redirect_uris: input.redirect_uris! },
      { confidential },
    );
    return { ...added, client: (await getClient(db, clientId))! };
  });
  io.stdout(
    `Client ${clientId} registered (${kindOf(client)}` +
      `${client.profile === FAPI2 ? ': signs with its own key, pushes its requests, binds its tokens by DPoP' : confidential ? ': authenticates with its secret and PKCE' : ': PKCE, no secret'}).\n${secret ? secretLines(secret) : ''}`,
  );
  io.stdout(`${await clientReloaded(loadConfig(io.env))}\n`);
  return EXIT_OK;
}

async function clientsEdit(args: string[], io: CliIo): Promise<number> {
  const { clientId, values } = clientArguments(args, {
    public: { type: 'boolean' },
    'rotate-secret': { type: 'boolean' },
  });
  const input = clientInputOf(values, io);
  const newSecret = values.confidential === true || values['rotate-secret'] === true;
  if (newSecret && values.public === true)
    throw new UsageError('--public cannot go with --confidential or --rotate-secret');
  if (values.confidential === false || values['rotate-secret'] === false || values.public === false) {
    throw new UsageError(
      '--no-confidential, --no-rotate-secret and --no-public are not options: use --public or --confidential',
    );
  }
  if (Object.keys(input).length === 0 && !newSecret && values.public !== true)
    throw new UsageError('nothing to change: give at least one option');
  checkClientInput(input);
  const secretChange = newSecret ? ('new' as const) : values.public === true ? ('none' as const) : undefined;
  const result = await withDatabase(io, async (db, config) => {
    const { secret } = await editClient(
      db,
      clientId,
      sealed(input, config),
      secretChange ? { secret: secretChange } : {},
    );
    return { secret, client: (await getClient(db, clientId))! };
  });
  io.stdout(
    `Client ${clientId} updated (${kindOf(result.client)}).\n` +
      (secretChange === 'none' ? 'It has no secret any more: it authenticates with PKCE alone.\n' : '') +
      (result.secret ? `${secretLines(result.secret)}The previous secret no longer works.\n` : ''),
  );
  io.stdout(`${await clientReloaded(loadConfig(io.env))}\n`);
  return EXIT_OK;
}

async function clientsRemove(args: string[], io: CliIo): Promise<number> {
  const clientId = checkClientId(onePositional(args, 'client id'));
  const removed = await withDatabase(io, (db) => removeClient(db, clientId));
  const others = removed.models - removed.grants;
  io.stdout(
    `Client ${clientId} removed; revoked ${plural(removed.grants, 'grant')} and ${others} ${others === 1 ? 'code or token' : 'codes and tokens'} issued to it.\n`,
  );
  io.stdout(`${await clientReloaded(loadConfig(io.env))}\n`);
  return EXIT_OK;
}
