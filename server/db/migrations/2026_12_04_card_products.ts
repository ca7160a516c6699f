import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A card's voucher products (activ, eco, emv, gift) the holder switched off or on again: a
  // product without a row is active, so cards imported or activated need no rows of their own.
  await db.schema
    .createTable('card_product_states')
    .addColumn('card_id', 'text', (c) => c.notNull().references('cards.id').onDelete('cascade'))
    .addColumn('product', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_product_states_pk', ['card_id', 'product'])
    .execute();
}
