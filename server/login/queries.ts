// Finding an account by its login name (an email or a phone number) with its current password.
import type { Db } from '../db/index.ts';

export type LoginCandidate = { userId: string; passwordHash: string | null; passwordStatus: number };

export async function findByLoginName(db: Db, kind: 'email' | 'phone', value: string): Promise<LoginCandidate | null> {
  const table = kind === 'email' ? 'user_emails' : 'user_phones';
  const row = await db.selectFrom(table)
    .innerJoin('users', 'users.id', `${table}.user_id`)
    .select(['users.id as userId', 'users.password_status as passwordStatus'])
    .select((eb) => eb.selectFrom('passwords').select('passwords.hash')
      .whereRef('passwords.user_id', '=', 'users.id')
      .orderBy('passwords.created_at', 'desc').limit(1).as('passwordHash'))
    .where(`${table}.value`, '=', value)
    .executeTakeFirst();
  return row ? { userId: row.userId, passwordHash: row.passwordHash ?? null, passwordStatus: row.passwordStatus } : null;
}
