// What became of each message a provider took (server/delivery/receipts.ts): sent, then delivered,
// failed or unknown as its provider's receipts say. `rank` orders the statuses, so that a receipt
// that arrives late, twice or out of order never moves a message back.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('message_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('channel', 'text')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rank', 'integer', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('message_deliveries_updated').on('message_deliveries').column('updated_at').execute();
}
