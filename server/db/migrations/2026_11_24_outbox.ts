// The durable outbox: every message is written in the transaction of the change that sends it,
// and a worker delivers it with retries, so neither a crash nor a slow sender shows in an answer.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('message_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // A code is worth nothing once it expired: such a message is dropped, not sent late.
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    // A worker's lease on the message while it delivers it; another worker takes it after.
    .addColumn('locked_until', 'text')
    .addColumn('failed_at', 'text')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema
    .createIndex('message_outbox_due_idx')
    .on('message_outbox')
    .columns(['failed_at', 'next_attempt_at'])
    .execute();

  // Forgotten-password requests, taken as they are typed, real account or not: the worker looks
  // the account up and starts its challenge, so the answer does the same work for both.
  await db.schema
    .createTable('reset_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('channel', 'text')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('device_key', 'text', (c) => c.notNull())
    .addColumn('payload_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .execute();
}
