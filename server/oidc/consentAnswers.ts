// The person's answers to a partner's consent screen (`consent_answers`), one per interaction.
import { nowIso, type Db } from '../db/index.ts';

/** Records the answer to an interaction's consent. The first answer stands: its record is the
 * claim, and a second one (a double click, another tab, at the same instant) finds it taken.
 * False: the interaction was answered already, and nothing changed. */
export async function claimConsentAnswer(
  db: Db,
  answer: { uid: string; userId: string; clientId: string; scopes: string[]; approved: boolean },
): Promise<boolean> {
  const claimed = await db
    .insertInto('consent_answers')
    .values({
      uid: answer.uid,
      user_id: answer.userId,
      client_id: answer.clientId,
      scopes: JSON.stringify(answer.scopes),
      approved: answer.approved ? 1 : 0,
      answered_at: nowIso(),
    })
    .onConflict((oc) => oc.column('uid').doNothing())
    .executeTakeFirst();
  return Number(claimed.numInsertedOrUpdatedRows ?? 0n) > 0;
}
