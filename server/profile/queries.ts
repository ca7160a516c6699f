// The user profile as GET /user answers it: emails and phones with the default entry first.
import { SqliteAdapter } from 'kysely';
import { jsonArrayFrom as postgresJsonArray } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArray } from 'kysely/helpers/sqlite';
import { maskIban } from '../../contract/profile.ts';
import type { UserProfile } from '../../contract/schemas.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { personalInfoOf } from '../identity/accounts.ts';
import { perDatabase, prepared } from '../db/prepared.ts';
import { liveSession, sessionOf, type SessionInfo } from '../sessions/store.ts';
import { hashToken } from '../sessions/tokens.ts';

type ContactRow = { value: string; is_default: number; verified: number; created_at: string };

/** ISO timestamps in one format order as strings do (no locale rules: this runs on every GET /user). */
const byTime = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function contacts(rows: ContactRow[]) {
  return rows
    .toSorted((a, b) => b.is_default - a.is_default || byTime(a.created_at, b.created_at))
    .map((row) => ({ value: row.value, default: row.is_default === 1, verified: row.verified === 1 }));
}

/** The account's columns the profile shows (not the whole row: every column read costs on every call). */
const PROFILE_COLUMNS = [
  'users.id',
  'users.firstname',
  'users.lastname',
  'users.birthdate',
  'users.gender',
  'users.language',
  'users.user_id',
  'users.customer_user_id',
  'users.fridom_user_id',
  'users.password_status',
  'users.last_password_change',
  'users.mfa_forced',
  'users.mfa_customer',
  'users.mfa_offer_later_until',
  'users.has_sso',
  'users.sso_only',
  'users.iban',
  'users.iban_country',
] as const;

/** The profile's query: the live session of a token's hash with its account and the account's
 * contacts, in one statement. */
export function profileQuery(db: Db) {
  const jsonArrayFrom = db.getExecutor().adapter instanceof SqliteAdapter ? sqliteJsonArray : postgresJsonArray;
  return (q: Db, tokenHash: string, now: string) =>
    liveSession(q, tokenHash, now)
      .select(PROFILE_COLUMNS)
      .select((eb) =>
        eb
          .selectFrom('user_pictures')
          .select('updated_at')
          .whereRef('user_pictures.user_id', '=', 'users.id')
          .as('picture_at'),
      )
      .select((eb) =>
        eb
          .selectFrom('mfa_methods')
          .select((m) => m.fn.countAll<number>().as('n'))
          .whereRef('mfa_methods.user_id', '=', 'users.id')
          .as('mfa_count'),
      )
      .select((eb) =>
        eb
          .selectFrom('recovery_keys')
          .select((k) => k.fn.countAll<number>().as('n'))
          .whereRef('recovery_keys.user_id', '=', 'users.id')
          .where('recovery_keys.used_at', 'is', null)
          .as('unused_keys'),
      )
      .select((eb) =>
        eb
          .selectFrom('tickets')
          .select('tickets.expires_at')
          .whereRef('tickets.ticket_hash', '=', 'sessions.fuzzion_hash')
          .where('tickets.used_at', 'is', null)
          .where('tickets.expires_at', '>', now)
          .as('fuzzion_until'),
      )
      .select((eb) => [
        jsonArrayFrom(
          eb
            .selectFrom('user_emails')
            .select(['value', 'is_default', 'verified', 'created_at'])
            .whereRef('user_emails.user_id', '=', 'users.id'),
        ).as('emails'),
        jsonArrayFrom(
          eb
            .selectFrom('user_phones')
            .select(['value', 'is_default', 'verified', 'created_at'])
            .whereRef('user_phones.user_id', '=', 'users.id'),
        ).as('phones'),
      ]);
}
/** Compiled once per database: GET /user runs it on every call. */
const profileQueryOf = perDatabase((db) => prepared(db, profileQuery(db), 2));
export type ProfileRow = Awaited<ReturnType<ReturnType<typeof profileQueryOf>>>[number];

/** SQLite answers JSON as text, PostgreSQL as parsed values. */
const rowsOf = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as ContactRow[];

/** The profile of a token's user, with the session, when the session is live (GET /user). */
export async function profileOfToken(
  db: Db,
  token: string,
): Promise<{ session: SessionInfo; profile: UserProfile } | null> {
  const query = profileQueryOf(db);
  const now = Date.now();
  const [user] = await query(hashToken(token), nowIso(now));
  if (!user) return null;
  const session = await sessionOf(db, user, now);
  return { session, profile: profileOfRow(user) };
}

/** The profile as GET /user answers it, from its query's row. */
export function profileOfRow(user: ProfileRow): UserProfile {
  return {
    id: user.id,
    ...personalInfoOf(user),
    email: contacts(rowsOf(user.emails)),
    phone: contacts(rowsOf(user.phones)),
    user_id: user.user_id,
    customer_user_id: user.customer_user_id,
    fridom_user_id: user.fridom_user_id,
    password_status: user.password_status === 1 || user.password_status === 2 ? user.password_status : 0,
    last_password_change: user.last_password_change,
    mfa_forced: user.mfa_forced === 1,
    mfa_customer: user.mfa_customer === 1,
    mfa_offer_later: user.mfa_offer_later_until !== null && Date.parse(user.mfa_offer_later_until) > Date.now(),
    has_sso: user.has_sso === 1,
    sso_only: user.sso_only === 1,
    mfa_enrolled: Number(user.mfa_count) > 0,
    totpRecovery: Number(user.unused_keys ?? 0),
    ...(user.fuzzion_until ? { fuzzion_until: user.fuzzion_until } : {}),
    picture: user.picture_at ?? null,
    banking: user.iban && user.iban_country ? { iban: maskIban(user.iban), country: user.iban_country } : null,
  };
}
