// A passkey sign-in starts before anyone is known: its challenge is held by an HttpOnly challenge
// cookie (hashed here, with the challenge's keyed hash), lives 5 minutes, and is spent by a
// conditional delete whose row count decides. And the offer of a passkey after a password sign-in
// remembers its "not now" per account, as the second factor's offer does.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('passkey_sign_ins')
    .addColumn('cookie_hash', 'text', (c) => c.primaryKey())
    .addColumn('challenge_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('passkey_sign_ins_expiry').on('passkey_sign_ins').column('expires_at').execute();
  await db.schema.alterTable('users').addColumn('passkey_offer_later_at', 'text').execute();
}
