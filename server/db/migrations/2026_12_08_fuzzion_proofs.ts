// The proofs a person gave, on the way to a merge, that the other account is theirs: one row per
// kind of proof (a code sent to the duplicated address, its password, one of its cards), tied to
// the merge offer's ticket (by its hash) and to the account proven. The offer's ticket is spent when
// the merge or the removal of the duplicate is done, and its proofs die with it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('fuzzion_proofs')
    .addColumn('ticket_hash', 'text', (c) => c.notNull())
    // 'code', 'password' or 'card'
    .addColumn('proof', 'text', (c) => c.notNull())
    .addColumn('other_user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('proven_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('fuzzion_proofs_pk', ['ticket_hash', 'proof'])
    .execute();
}
