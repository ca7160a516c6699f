// The account itself: users, their emails and phones, and their passwords. Every flow and the seed
// write these tables through here, so an account is always made and changed the same way. Each
// function takes the caller's transaction when it has one: a flow's own writes (a spent ticket, an
// activated card) then commit or roll back with the account's.
import type { Config } from '../config/index.ts';
import { SqliteAdapter, type Compilable, type Selectable } from 'kysely';
import { nowIso, type Db } from '../db/index.ts';
import { perDatabase, prepared } from '../db/prepared.ts';
import { setupMfaFacts, type SetupMfaColumns, type SetupMfaFacts } from '../sessions/setupMfa.ts';
import type { Database, Flag, UsersTable } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { resolveAlias } from './aliases.ts';
import type { PasswordHasher } from '../passwords/hashing.ts';
import { newId } from '../sessions/tokens.ts';

export type ContactKind = 'email' | 'phone';
export type PlatformIdColumn = 'user_id' | 'customer_user_id' | 'fridom_user_id';

/** The table of a kind of contact. */
export const contactTable = (kind: ContactKind) => (kind === 'email' ? 'user_emails' : 'user_phones');
const flag = (on: boolean): Flag => (on ? 1 : 0);

export type NewUser = {
  /** Chosen by the caller when it needs the id before the account exists (events, retries). */
  id?: string;
  firstname: string;
  lastname: string;
  language: string;
  /** The default email and phone, already proven. */
  email: string;
  phone: string;
  user_id: string | null;
  customer_user_id: string | null;
  fridom_user_id: string | null;
  password_status: number;
  mfa_forced: boolean;
  mfa_customer: boolean;
  national_register_number?: string | null;
  /** The first password, hashed already: hashing is slow and stays out of transactions. */
  passwordHash: string;
  now?: string;
};

/** Creates a user with its default email and phone and its first password, all or nothing: inside
 * the caller's transaction, or in one of its own. Returns the user's id. */
export async function createUser(db: Db, user: NewUser): Promise<string> {
  const id = user.id ?? newId();
  const now = user.now ?? nowIso();
  const write = async (trx: Db) => {
    await trx
      .insertInto('users')
      .values({
        id,
        firstname: user.firstname,
        lastname: user.lastname,
        birthdate: null,
        gender: null,
        language: user.language,
        user_id: user.user_id,
        customer_user_id: user.customer_user_id,
        fridom_user_id: user.fridom_user_id,
        password_status: user.password_status,
        last_password_change: now,
        mfa_forced: flag(user.mfa_forced),
        mfa_customer: flag(user.mfa_customer),
        has_sso: 0,
        sso_only: 0,
        national_register_number: user.national_register_number ?? null,
        created_at: now,
        updated_at: now,
        closed_at: null,
      })
      .execute();
    await trx
      .insertInto('user_emails')
      .values({ id: newId(), user_id: id, value: user.email, is_default: 1, verified: 1, created_at: now })
      .execute();
    await trx
      .insertInto('user_phones')
      .values({ id: newId(), user_id: id, value: user.phone, is_default: 1, verified: 1, created_at: now })
      .execute();
    await insertPassword(trx, id, user.passwordHash, now);
  };
  await (db.isTransaction ? write(db) : db.transaction().execute(write));
  return id;
}

/** Whether the database holds any account at all (the demo data seeds only an empty one). */
export async function hasAnyAccount(db: Db): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** The language the user chose (their messages are written in it). */
export async function languageOf(db: Db, userId: string): Promise<string> {
  return (await db.selectFrom('users').select('language').where('id', '=', userId).executeTakeFirstOrThrow()).language;
}

/** Everything the account's row holds (the data export shows it). */
export async function accountRowOf(db: Db, userId: string) {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
}

/** The account with this national register number (already normalised), if any. */
export async function accountWithNationalNumber(db: Db, nationalRegisterNumber: string | null): Promise<string | null> {
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('national_register_number', '=', nationalRegisterNumber)
    .executeTakeFirst();
  return user?.id ?? null;
}

/** What the OIDC provider's claims are made of, of an account's row. */
export const ACCOUNT_CLAIM_COLUMNS = [
  'id',
  'firstname',
  'lastname',
  'language',
  'user_id',
  'customer_user_id',
  'fridom_user_id',
] as const;
export type AccountClaimsRow = Pick<Selectable<UsersTable>, (typeof ACCOUNT_CLAIM_COLUMNS)[number]>;

/** The open account's claims for the OIDC provider; undefined for an unknown or closed (merged-away) one. */
export async function openAccountClaims(db: Db, userId: string): Promise<AccountClaimsRow | undefined> {
  return db
    .selectFrom('users')
    .select(ACCOUNT_CLAIM_COLUMNS)
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

/** The account's language, its row locked until the transaction ends (on PostgreSQL; SQLite writes
 * one transaction at a time); undefined when there is no such account. */
export async function lockedLanguageOf(trx: Db, userId: string): Promise<{ language: string } | undefined> {
  const user = trx.selectFrom('users').select('language').where('id', '=', userId);
  return (trx.getExecutor().adapter instanceof SqliteAdapter ? user : user.forUpdate()).executeTakeFirst();
}

/** The personal information: what the profile shows and edits, and the export holds. */
export type PersonalInfo = Pick<UsersTable, 'firstname' | 'lastname' | 'birthdate' | 'gender' | 'language'>;

/** The personal information of an account's row, and nothing else of it. */
export const personalInfoOf = ({ firstname, lastname, birthdate, gender, language }: PersonalInfo): PersonalInfo => ({
  firstname,
  lastname,
  birthdate,
  gender,
  language,
});

/** Sets the personal information the profile edits. */
export async function updatePersonalInfo(db: Db, userId: string, info: PersonalInfo): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...info, updated_at: nowIso() })
    .where('id', '=', userId)
    .execute();
}

/** Sets the bank account; answers the account's language, undefined when there is no such account. */
export async function setIban(
  trx: Db,
  userId: string,
  iban: string,
  country: string,
): Promise<{ language: string } | undefined> {
  return trx
    .updateTable('users')
    .set({ iban, iban_country: country, updated_at: nowIso() })
    .where('id', '=', userId)
    .returning(['language'])
    .executeTakeFirst();
}

// What a merge (server/fuzzion/) reads and writes of the two accounts, under their row locks.

/** The accounts' rows as a merge weighs them. */
export async function accountsToMerge(trx: Db, userIds: string[]) {
  return trx
    .selectFrom('users')
    .select([
      'id',
      'language',
      'closed_at',
      'national_register_number',
      'mfa_forced',
      'mfa_customer',
      'user_id',
      'customer_user_id',
      'fridom_user_id',
    ])
    .where('id', 'in', userIds)
    .execute();
}

/** Sets whether the account must have (or is offered, as a company customer) a second factor. */
export async function setSecondFactorRules(
  trx: Db,
  userId: string,
  rules: Pick<Database['users'], 'mfa_forced' | 'mfa_customer'>,
): Promise<void> {
  await trx.updateTable('users').set(rules).where('id', '=', userId).execute();
}

/** Clears the account's platform ids and national register number (each value is unique). */
export async function clearIdentifiers(trx: Db, userId: string): Promise<void> {
  await trx
    .updateTable('users')
    .set({ user_id: null, customer_user_id: null, fridom_user_id: null, national_register_number: null })
    .where('id', '=', userId)
    .execute();
}

/** Gives the account these platform ids and national register number. */
export async function setIdentifiers(
  trx: Db,
  userId: string,
  identifiers: Partial<Record<PlatformIdColumn | 'national_register_number', string>>,
  now: string,
): Promise<void> {
  await trx
    .updateTable('users')
    .set({ ...identifiers, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

/** Closes the account: nothing signs in to it any more. */
export async function closeAccount(trx: Db, userId: string, now: string): Promise<void> {
  await trx.updateTable('users').set({ closed_at: now, updated_at: now }).where('id', '=', userId).execute();
}

/** The account's first and last name, as its owner wrote them. */
export async function nameOf(db: Db, userId: string): Promise<{ firstname: string; lastname: string }> {
  return db.selectFrom('users').select(['firstname', 'lastname']).where('id', '=', userId).executeTakeFirstOrThrow();
}

/** The query of the account's emails or phones: the primary first, then the oldest. */
export function rankedContacts(db: Db, userId: string, kind: ContactKind) {
  return db
    .selectFrom(contactTable(kind))
    .select(['value', 'is_default'])
    .where('user_id', '=', userId)
    .orderBy('is_default', 'desc')
    .orderBy('created_at');
}

/** The account's primary email (else its oldest), if it has one. */
export async function firstEmailOf(db: Db, userId: string): Promise<string | null> {
  return (await rankedContacts(db, userId, 'email').executeTakeFirst())?.value ?? null;
}

/** What an authenticator shows beside the account (the app's code, a passkey): its main email, or phone. */
export async function accountLabel(db: Db, userId: string): Promise<string> {
  const email = await firstEmailOf(db, userId);
  return email ?? (await rankedContacts(db, userId, 'phone').executeTakeFirst())?.value ?? 'account';
}

/** The account an email or phone belongs to, with the account's language; undefined for none. */
export async function contactHolder(
  db: Db,
  kind: ContactKind,
  value: string,
): Promise<{ id: string; language: string } | undefined> {
  const table = contactTable(kind);
  return db
    .selectFrom(table)
    .innerJoin('users', 'users.id', `${table}.user_id`)
    .select(['users.id', 'users.language'])
    .where(`${table}.value`, '=', value)
    .executeTakeFirst();
}

/** The account an email or phone belongs to, if any. */
export async function contactOwner(db: Db, kind: ContactKind, value: string): Promise<string | undefined> {
  return (await db.selectFrom(contactTable(kind)).select('user_id').where('value', '=', value).executeTakeFirst())
    ?.user_id;
}

/** A platform id another account holds stays with it, and so does one that is an alias of an
 * account merged away (it leads to the survivor): a new account goes without (null). */
export async function unclaimedPlatformId(
  db: Db,
  column: PlatformIdColumn,
  value: string | null,
): Promise<string | null> {
  if (!value) return null;
  const holder = await db.selectFrom('users').select('id').where(column, '=', value).executeTakeFirst();
  return holder || (await resolveAlias(db, column, value)) ? null : value;
}

/** Adds a proven email or phone to a user (their default if they had none of that kind), or marks
 * it proven if they had it already. Addresses are unique across accounts, so a race with another
 * account loses here: false means someone else holds it, and nothing was written. */
export async function addVerifiedContact(trx: Db, userId: string, kind: ContactKind, value: string): Promise<boolean> {
  const table = contactTable(kind);
  const hasContacts =
    (await trx.selectFrom(table).select('id').where('user_id', '=', userId).limit(1).execute()).length > 0;
  await trx
    .insertInto(table)
    .values({ id: newId(), user_id: userId, value, is_default: hasContacts ? 0 : 1, verified: 1, created_at: nowIso() })
    .onConflict((c) => c.column('value').doNothing())
    .execute();
  const contact = await trx
    .selectFrom(table)
    .select(['id', 'user_id', 'verified'])
    .where('value', '=', value)
    .executeTakeFirstOrThrow();
  if (contact.user_id !== userId) return false;
  if (contact.verified !== 1) await trx.updateTable(table).set({ verified: 1 }).where('id', '=', contact.id).execute();
  return true;
}

export type LoginCandidate = {
  userId: string;
  passwordHash: string | null;
  passwordStatus: number;
  /** Set by operators: the account signs in with Microsoft only. */
  ssoOnly: boolean;
  /** What decides the sign-in's next step, read with the account so that it costs no query of its own. */
  secondFactor: SetupMfaFacts;
};

type LoginRow = SetupMfaColumns & {
  userId: string;
  passwordStatus: number;
  passwordHash: string | null;
  ssoOnly: number;
};

/** The look-up, by email and by phone, compiled once per database: every sign-in runs it. */
function loginQueries(db: Db) {
  const build = (kind: ContactKind) => {
    const table = contactTable(kind);
    return prepared(
      db,
      (q, value: string) =>
        q
          .selectFrom(table)
          .innerJoin('users', 'users.id', `${table}.user_id`)
          .select([
            'users.id as userId',
            'users.password_status as passwordStatus',
            'users.sso_only as ssoOnly',
            'users.mfa_forced',
            'users.mfa_customer',
            'users.mfa_offer_later_until',
          ])
          .select((eb) =>
            eb
              .selectFrom('passwords')
              .select('passwords.hash')
              .whereRef('passwords.user_id', '=', 'users.id')
              .orderBy('passwords.created_at', 'desc')
              .limit(1)
              .as('passwordHash'),
          )
          .select((eb) =>
            eb
              .exists(
                eb.selectFrom('mfa_methods').select('mfa_methods.id').whereRef('mfa_methods.user_id', '=', 'users.id'),
              )
              .as('enrolled'),
          )
          .where(`${table}.value`, '=', value)
          // A merge moves every contact off the account it closes; this holds even for one that did not.
          .where('users.closed_at', 'is', null) as unknown as Compilable<LoginRow>,
      1,
    );
  };
  return { email: build('email'), phone: build('phone') };
}
const loginQueriesFor = perDatabase(loginQueries);

/** The account with this login name (a normalised email or phone), with its current password. */
export async function findByLoginName(db: Db, kind: ContactKind, value: string): Promise<LoginCandidate | null> {
  const [row] = await loginQueriesFor(db)[kind](value);
  return row
    ? {
        userId: row.userId,
        passwordHash: row.passwordHash ?? null,
        passwordStatus: row.passwordStatus,
        ssoOnly: Number(row.ssoOnly) === 1,
        secondFactor: setupMfaFacts(row),
      }
    : null;
}

/** Refuses a password the user had among their last PASSWORD_HISTORY ones (password_reused). */
export async function assertNotRecent(
  deps: { db: Db; hasher: PasswordHasher; config: Pick<Config, 'passwordHistory'> },
  userId: string,
  password: string,
): Promise<void> {
  const history = await deps.db
    .selectFrom('passwords')
    .select('hash')
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .limit(deps.config.passwordHistory)
    .execute();
  for (const { hash } of history) {
    if (await deps.hasher.verify(hash, password)) throw new ApiError('password_reused');
  }
}

/** Makes a hashed password the user's current one, kept in the history, and the account's
 * password good again (no longer weak). Sessions are the caller's business. */
export async function recordPassword(trx: Db, userId: string, hash: string, now = nowIso()): Promise<void> {
  await insertPassword(trx, userId, hash, now);
  await trx
    .updateTable('users')
    .set({ password_status: 0, last_password_change: now, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

async function insertPassword(db: Db, userId: string, hash: string, now: string): Promise<void> {
  await db.insertInto('passwords').values({ id: newId(), user_id: userId, hash, created_at: now }).execute();
}

/** The account's current password (the newest), if it has one: its row, so that a change can check
 * in its transaction that the password it verified is still the current one. */
export async function currentPassword(db: Db, userId: string): Promise<{ id: string; hash: string } | null> {
  const row = await db
    .selectFrom('passwords')
    .select(['id', 'hash'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}
