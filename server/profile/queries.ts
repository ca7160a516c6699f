// The user profile as GET /user answers it: emails and phones with the default entry first.
import { sql } from 'kysely';
import type { UserProfile } from '../../contract/schemas.ts';
import type { Db } from '../db/index.ts';
import { prepared } from '../db/prepared.ts';

function contacts(rows: Array<{ value: string; is_default: number; verified: number; created_at: string }>) {
  return rows
    .toSorted((a, b) => b.is_default - a.is_default || a.created_at.localeCompare(b.created_at))
    .map((row) => ({ value: row.value, default: row.is_default === 1, verified: row.verified === 1 }));
}

/** The profile's two queries, compiled once per database (GET /user runs them on every call). */
function profileQueries(db: Db) {
  const contact = (table: 'user_emails' | 'user_phones', kind: string, id: string) => db.selectFrom(table)
    .select([sql<string>`${sql.lit(kind)}`.as('kind'), 'value', 'is_default', 'verified', 'created_at']).where('user_id', '=', id);
  return {
    user: prepared(db, (q, id: string) => q.selectFrom('users').selectAll()
      .select((eb) => eb.selectFrom('mfa_methods').select((m) => m.fn.countAll<number>().as('n')).whereRef('mfa_methods.user_id', '=', 'users.id').as('mfa_count'))
      .where('id', '=', id), 1),
    contacts: prepared(db, (_q, id: string) => contact('user_emails', 'email', id).unionAll(contact('user_phones', 'phone', id)), 1),
  };
}
const compiledFor = new WeakMap<Db, ReturnType<typeof profileQueries>>();

export async function loadProfile(db: Db, userId: string): Promise<UserProfile | null> {
  let queries = compiledFor.get(db);
  if (!queries) compiledFor.set(db, (queries = profileQueries(db)));
  const [[user], contactRows] = await Promise.all([queries.user(userId), queries.contacts(userId)]);
  const emails = contactRows.filter((row) => row.kind === 'email');
  const phones = contactRows.filter((row) => row.kind === 'phone');
  if (!user) return null;
  return {
    id: user.id,
    firstname: user.firstname,
    lastname: user.lastname,
    birthdate: user.birthdate,
    gender: user.gender,
    language: user.language,
    email: contacts(emails),
    phone: contacts(phones),
    user_id: user.user_id,
    customer_user_id: user.customer_user_id,
    fridom_user_id: user.fridom_user_id,
    password_status: (user.password_status === 1 || user.password_status === 2 ? user.password_status : 0),
    last_password_change: user.last_password_change,
    mfa_forced: user.mfa_forced === 1,
    mfa_customer: user.mfa_customer === 1,
    mfa_offer_later: user.mfa_offer_later_until !== null && Date.parse(user.mfa_offer_later_until) > Date.now(),
    has_sso: user.has_sso === 1,
    sso_only: user.sso_only === 1,
    mfa_enrolled: Number(user.mfa_count) > 0,
  };
}
