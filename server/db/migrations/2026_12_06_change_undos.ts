import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // "This wasn't me": a change to an account's emails or phones can be undone for 7 days from the
  // link its notice carried. The token is kept only as its digest; `change` says what to put back.
  await db.schema
    .createTable('account_change_undos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('change', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
}
