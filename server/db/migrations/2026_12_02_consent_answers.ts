// A person's answer to a partner's consent screen (spec §2 `/approve`), one per authorisation
// request: the record of what was asked and whether it was given, and the claim that makes the first
// answer the only one (of parallel answers, the primary key lets one in).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('consent_answers')
    .addColumn('uid', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('approved', 'integer', (c) => c.notNull())
    .addColumn('answered_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('consent_answers_user_idx')
    .on('consent_answers')
    .columns(['user_id', 'answered_at'])
    .execute();
}
