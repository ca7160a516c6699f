// The merge of two accounts (server/fuzzion/). The account merged away is kept, closed (`closed_at`),
// so that what points at it (events it wrote later, invitations it used) still names a row; nothing
// signs in to it again. `account_aliases` records what a stale link may still bring of it (its OIDC
// `sub`, a platform id the survivor already had one of) and the account it leads to now.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('closed_at', 'text').execute();
  await db.schema
    .createTable('account_aliases')
    // 'sub' (an account's id, the OIDC subject), or a platform id's column: 'user_id', 'customer_user_id', 'fridom_user_id'.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    // One account per alias: a value never leads to two.
    .addPrimaryKeyConstraint('account_aliases_pk', ['kind', 'value'])
    .execute();
  await db.schema.createIndex('account_aliases_user_idx').on('account_aliases').column('user_id').execute();
}
