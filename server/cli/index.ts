// The operator's command line (`npm run cli -- …`): imports cards, blocks and unblocks them,
// creates invitations, and lists and rotates the OIDC signing keys, on the database the server uses. Configuration comes from the environment
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
import { DEFAULT_INVITATION_DAYS, InvitationInputError, MAX_INVITATION_DAYS, checkInvitationInput, createInvitation, type InvitationField } from '../invitations/create.ts';
import { RETIRED_KEY_GRACE_SECONDS, listSigningKeys, rotateSigningKeys } from '../oidc/keys.ts';

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
  cards import <file.csv>     import benefit cards from a CSV file (columns: docs/operators.md)
  cards block <number>        block a card (lost, stolen, withdrawn): it can no longer be activated
  cards unblock <number>      make a blocked card usable again
  invitations create --email <email> [--firstname X] [--lastname Y] [--language nl]
      [--company "Acme"] [--user-id U-1] [--customer-id C-1] [--fridom-id F-1]
      [--mfa-forced] [--mfa-customer] [--days ${DEFAULT_INVITATION_DAYS}]
                              create an invitation (valid 1 to ${MAX_INVITATION_DAYS} days) and print its code, once
  oidc-keys list              list the OIDC signing keys (kid, algorithm, created, retired)
  oidc-keys rotate            add a new signing key set and retire the current one (it stays
                              published ${RETIRED_KEY_GRACE_SECONDS / 86_400} more days, so what it signed still verifies)
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
    stdout: io.stdout ?? ((text) => { process.stdout.write(text); }),
    stderr: io.stderr ?? ((text) => { process.stderr.write(text); }),
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
  if (positionals.length !== 1) throw new UsageError(`expected one ${what}, got ${positionals.length === 0 ? 'none' : positionals.length}`);
  return positionals[0]!;
}

/** Opens the server's database (migrated to the latest schema), runs `work`, closes it. */
async function withDatabase<T>(io: CliIo, work: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  const where = config.databaseUrl ? 'the PostgreSQL database of DATABASE_URL' : `the SQLite database at ${config.sqlitePath}`;
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

async function cardsImport(args: string[], io: CliIo): Promise<number> {
  const file = resolve(io.cwd, onePositional(args, 'CSV file'));
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  let text: string;
  try {
    // Not ignoring the BOM means the decoder drops it.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${file} is not UTF-8 text: save it as "CSV UTF-8"`);
  }
  const result = await withDatabase(io, (db, config) => importCards(db, config.secretKey, text,
    ({ done, total }) => io.stderr(`… ${done} of ${total} cards written\n`)));
  if (result.refused.length === 0) {
    io.stdout(`Imported ${plural(result.imported, 'card')}.\n`);
    return EXIT_OK;
  }
  io.stdout(`Imported ${plural(result.imported, 'card')}; refused ${plural(result.refused.length, 'row')}:\n`
    + result.refused.map(({ line, reason }) => `  line ${line}: ${reason}\n`).join(''));
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
    if (!/^\d{1,3}$/.test(values.days.trim())) throw new UsageError(`--days must be a whole number of days from 1 to ${MAX_INVITATION_DAYS} (got "${values.days}")`);
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
  io.stdout(`Invitation created for ${invitation.email}, valid until ${invitation.expiresAt} (${plural(days, 'day')}).\n`
    + `Code: ${invitation.code}\n`
    + 'The code is shown only this once (only a keyed hash of it is stored): send it to the person now.\n');
  return EXIT_OK;
}

async function oidcKeysList(args: string[], io: CliIo): Promise<number> {
  noArguments(args);
  const keys = await withDatabase(io, (db) => listSigningKeys(db));
  if (keys.length === 0) {
    io.stdout('No OIDC signing keys yet: the server creates them when it first starts (or run oidc-keys rotate).\n');
    return EXIT_OK;
  }
  const rows = [['KID', 'ALG', 'CREATED', 'RETIRED'], ...keys.map((key) => [
    key.kid, key.alg, key.createdAt,
    key.retiredAt === null ? '- (signing)' : `${key.retiredAt} (${key.published ? 'still published' : 'no longer published'})`,
  ])];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  io.stdout(rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd() + '\n').join(''));
  return EXIT_OK;
}

async function oidcKeysRotate(args: string[], io: CliIo): Promise<number> {
  noArguments(args);
  const rotated = await withDatabase(io, (db, config) => rotateSigningKeys(db, config.secretKey));
  io.stdout(`New OIDC signing keys ${rotated.kids.join(', ')} now sign`
    + (rotated.generation === 1 ? '.\n' : `; the previous ones stay published for ${RETIRED_KEY_GRACE_SECONDS / 86_400} days.\n`));
  return EXIT_OK;
}
