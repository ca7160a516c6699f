// Answers kept for a repeat (server/http/idempotency.ts): a call repeated because its answer was
// lost gets the first answer back instead of running again. Sealed, since an answer may carry a
// session or tokens, and kept minutes only.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('kept_answers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('kept_answers_expires').on('kept_answers').column('expires_at').execute();
}
