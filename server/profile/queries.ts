// The user profile as GET /user answers it: emails and phones with the default entry first.
import type { UserProfile } from '../../contract/schemas.ts';
import type { Db } from '../db/index.ts';

function contacts(rows: Array<{ value: string; is_default: number; verified: number; created_at: string }>) {
  return rows
    .toSorted((a, b) => b.is_default - a.is_default || a.created_at.localeCompare(b.created_at))
    .map((row) => ({ value: row.value, default: row.is_default === 1, verified: row.verified === 1 }));
}

export async function loadProfile(db: Db, userId: string): Promise<UserProfile | null> {
  const [user, emails, phones] = await Promise.all([
    db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst(),
    db.selectFrom('user_emails').select(['value', 'is_default', 'verified', 'created_at']).where('user_id', '=', userId).execute(),
    db.selectFrom('user_phones').select(['value', 'is_default', 'verified', 'created_at']).where('user_id', '=', userId).execute(),
  ]);
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
    has_sso: user.has_sso === 1,
    sso_only: user.sso_only === 1,
  };
}
