// Passkeys (WebAuthn credentials) as second factors. Each passkey is a method (an mfa_methods row,
// so the account's rules count it as they count any other: primary, the last method, a merge moves
// it) and its credential lives beside it, gone with its method. A credential id is unique across
// every account: one passkey proves one account.
// A challenge may now name the session that asked for it (a passkey's step-up and set-up answer
// only in that session), and a session keeps how its last second factor was given, for OIDC's amr.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('method_id', 'integer', (c) => c.primaryKey().references('mfa_methods.id').onDelete('cascade'))
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    // A signature counter is 32 bits unsigned: past a signed integer's range.
    .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('transports', 'text')
    .addColumn('aaguid', 'text', (c) => c.notNull())
    .addColumn('synced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.alterTable('mfa_challenges').addColumn('session_id', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('mfa_amr', 'text').execute();
}
