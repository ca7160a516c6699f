// The sign-in's look-up (identity/accounts.ts) reads an address's account and its newest password's
// hash on every sign-in. With these indexes both come from the index alone (PostgreSQL's index-only
// scans), without a visit to each table's pages: at a million accounts, tables outgrow the cache.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['user_emails', 'user_phones']) {
    await db.schema.createIndex(`${table}_sign_in_idx`).on(table).columns(['value', 'user_id']).execute();
  }
  await db.schema
    .createIndex('passwords_current_idx')
    .on('passwords')
    .columns(['user_id', 'created_at', 'hash'])
    .execute();
  // Its first two columns were this index's: it would only cost every password write.
  await db.schema.dropIndex('passwords_user_idx').execute();
}
