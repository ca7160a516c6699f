// A code that does not arrive goes another way (server/delivery/fallback.ts): its outbox message
// keeps the challenge it carries the code of, the steps still to try (each channel's text, written
// when the code was made), which step it is at, and the step's message a receipt is awaited for.
// What became of each step is kept with its challenge and step, for the code screen to say.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('message_outbox').addColumn('challenge_id', 'text').execute();
  await db.schema.alterTable('message_outbox').addColumn('fallbacks', 'text').execute();
  await db.schema
    .alterTable('message_outbox')
    .addColumn('step', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('message_outbox').addColumn('awaiting_id', 'text').execute();
  await db.schema.createIndex('message_outbox_awaiting').on('message_outbox').column('awaiting_id').execute();
  await db.schema.alterTable('message_deliveries').addColumn('challenge_id', 'text').execute();
  await db.schema
    .alterTable('message_deliveries')
    .addColumn('step', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('message_deliveries_challenge')
    .on('message_deliveries')
    .columns(['challenge_id', 'step'])
    .execute();
}
