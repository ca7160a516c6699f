// The merge offer a session has open (spec §6 "duplicated-logged"): the digest of its ticket, so
// that GET /user can say, in its one statement, that this session is in the middle of a merge. The
// ticket stays the authority: once spent or expired, the session is out of the merge.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('fuzzion_hash', 'text').execute();
}
