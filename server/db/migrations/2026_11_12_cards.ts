import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Benefit cards: the number identifies a card; a card belongs to at most one account. The
  // onboarding flow (activation codes, imports) builds on this table.
  await db.schema
    .createTable('cards')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('number', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('activated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('cards_user_idx').on('cards').column('user_id').execute();
  // The Belgian national register number, for finding a forgotten username (11 digits, unique).
  await db.schema.alterTable('users').addColumn('national_register_number', 'text').execute();
  await db.schema.createIndex('users_nrn_unique').on('users').column('national_register_number').unique().execute();
}
