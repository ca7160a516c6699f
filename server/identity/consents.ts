// The consents an account gave: the terms and the privacy policy at onboarding, and the marketing
// preferences (email, SMS, partners), which the person may change later (/notifications). Each
// answer is a row of its own, never overwritten: the newest row of a kind is the answer in force,
// and the older ones say what was consented to when.
import type { MarketingPreferences } from '../../contract/schemas.ts';
import { nowIso, type Db } from '../db/index.ts';
import { lockUser } from '../db/locks.ts';
import { newId } from '../sessions/tokens.ts';

const MARKETING_KINDS = {
  email: 'marketing_email',
  sms: 'marketing_sms',
  partners: 'marketing_partners',
} as const satisfies Record<keyof MarketingPreferences, string>;

type Answers = Partial<Record<'terms' | 'privacy', boolean>> & { marketing?: MarketingPreferences };

/** Records answers of the account, in the caller's transaction when it has one. */
export async function recordConsents(db: Db, userId: string, answers: Answers, at: string): Promise<void> {
  const rows: Array<[string, boolean]> = [];
  if (answers.terms !== undefined) rows.push(['terms', answers.terms]);
  if (answers.privacy !== undefined) rows.push(['privacy', answers.privacy]);
  if (answers.marketing) {
    for (const [key, kind] of Object.entries(MARKETING_KINDS))
      rows.push([kind, answers.marketing[key as keyof MarketingPreferences]]);
  }
  if (rows.length === 0) return;
  await db
    .insertInto('consents')
    .values(
      rows.map(([kind, granted]) => ({
        id: newId(),
        user_id: userId,
        kind,
        granted: granted ? (1 as const) : (0 as const),
        created_at: at,
      })),
    )
    .execute();
}

/** The marketing preferences in force: the newest answer of each kind (none given: no). */
export async function marketingPreferencesOf(db: Db, userId: string): Promise<MarketingPreferences> {
  const rows = await db
    .selectFrom('consents')
    .select(['kind', 'granted', 'created_at'])
    .where('user_id', '=', userId)
    .where('kind', 'in', Object.values(MARKETING_KINDS))
    .orderBy('created_at', 'desc')
    .execute();
  const newest = (kind: string) => rows.find((row) => row.kind === kind)?.granted === 1;
  return {
    email: newest(MARKETING_KINDS.email),
    sms: newest(MARKETING_KINDS.sms),
    partners: newest(MARKETING_KINDS.partners),
  };
}

/** The person changes their marketing preferences: answers newer than any before, so the three of one
 * change are the ones in force together. Changes of one account take turns (its row is locked), so
 * even sent at once, or within one millisecond, they come in order. */
export async function changeMarketing(db: Db, userId: string, marketing: MarketingPreferences): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockUser(trx, userId);
    const last = await trx
      .selectFrom('consents')
      .select('created_at')
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    const now = Date.now();
    await recordConsents(
      trx,
      userId,
      { marketing },
      nowIso(last ? Math.max(now, Date.parse(last.created_at) + 1) : now),
    );
  });
}
