import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A company customer offered a second factor who said "not now": not asked again until then.
  await db.schema.alterTable('users').addColumn('mfa_offer_later_until', 'text').execute();
}
