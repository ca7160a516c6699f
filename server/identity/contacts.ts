// Taking an email or phone off an account, with what hangs on it: the account's rules on which one
// may go are the caller's (profile: not the last nor the primary one; a merge's decline: the account
// keeps an email and a phone); what going means is the same for both, so it is written once here.
import type { Db } from '../db/index.ts';
import { contactTable, type ContactKind } from './accounts.ts';
import { methodsOf, setPrimary, type MfaMethodRow } from './second-factors.ts';

/** The second factors whose codes go to a contact of this kind. */
export const SENDS_TO: Record<ContactKind, readonly string[]> = {
  email: ['email'],
  phone: ['sms', 'call', 'whatsapp'],
};

/** The account's second factors that send their codes to this contact. */
export function methodsBehind(methods: MfaMethodRow[], kind: ContactKind, value: string): MfaMethodRow[] {
  return methods.filter((m) => m.target === value && SENDS_TO[kind].includes(m.method));
}

/** Removes the contact and the second factors behind it (their codes would reach nobody), in the
 * caller's transaction. A primary second factor that goes makes the first remaining one primary; a
 * default contact that goes makes the oldest remaining one of its kind the default. */
export async function detachContact(trx: Db, userId: string, kind: ContactKind, value: string): Promise<void> {
  const table = contactTable(kind);
  const methods = await methodsOf(trx, userId);
  const behind = methodsBehind(methods, kind, value);
  if (behind.length > 0) {
    await trx
      .deleteFrom('mfa_methods')
      .where(
        'id',
        'in',
        behind.map((m) => m.id),
      )
      .execute();
    if (behind.some((m) => m.is_primary === 1)) {
      const next = methods.find((m) => !behind.includes(m) && m.method !== 'totpRecovery');
      if (next) await setPrimary(trx, userId, next.id);
    }
  }
  const removed = await trx
    .deleteFrom(table)
    .where('user_id', '=', userId)
    .where('value', '=', value)
    .returning('is_default')
    .executeTakeFirst();
  if (removed?.is_default === 1) {
    const oldest = await trx
      .selectFrom(table)
      .select('id')
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
    if (oldest) await trx.updateTable(table).set({ is_default: 1 }).where('id', '=', oldest.id).execute();
  }
}
