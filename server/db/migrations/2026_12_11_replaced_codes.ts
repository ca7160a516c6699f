// A code's challenge names the one it replaced (a resend): the code that challenge sent is then
// recognised when typed, and the person told it was replaced by a newer one, not that it is wrong.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mfa_challenges').addColumn('replaced_id', 'text').execute();
}
