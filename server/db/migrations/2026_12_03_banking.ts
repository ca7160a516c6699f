import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The account's bank account (spec §3 "Banking"): the IBAN as stored (no spaces, upper case) and
  // the country the person chose for it.
  await db.schema.alterTable('users').addColumn('iban', 'text').execute();
  await db.schema.alterTable('users').addColumn('iban_country', 'text').execute();
}
