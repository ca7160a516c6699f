// Forced second factor (spec §4): a user with mfa_forced and no method must set one up before
// anything else; a company customer with mfa_customer who is not forced is offered it and may
// skip. The diversion applies when the sign-in's client is absent or first-party (2, 17, 51, 66):
// a registered partner's sign-in is not diverted. An unknown client id counts as absent, so a
// made-up client_id cannot dodge the rule. A sign-in's session is scoped by it (signIn.ts); the MFA
// routes report it and keep a forced account's last method.
import type { MfaEnrolment } from '../../contract/schemas.ts';
import type { Db } from '../db/index.ts';

export async function enrolmentOf(db: Db, userId: string, clientId: string | null): Promise<MfaEnrolment> {
  const user = await db.selectFrom('users').select(['mfa_forced', 'mfa_customer', 'mfa_offer_later_until'])
    .select((eb) => eb.exists(eb.selectFrom('mfa_methods').select('mfa_methods.id').whereRef('mfa_methods.user_id', '=', 'users.id')).as('enrolled'))
    .where('id', '=', userId).executeTakeFirst();
  if (!user || isTrue(user.enrolled) || (user.mfa_forced !== 1 && user.mfa_customer !== 1)) return 'none';
  if (clientId !== null) {
    const partner = await db.selectFrom('oauth_clients').select('client_id').where('client_id', '=', clientId).where('first_party', '=', 0).executeTakeFirst();
    if (partner) return 'none';
  }
  if (user.mfa_forced === 1) return 'required';
  // "Not now" holds for its 30 days.
  return user.mfa_offer_later_until !== null && Date.parse(user.mfa_offer_later_until) > Date.now() ? 'none' : 'offered';
}

export const OFFER_LATER_DAYS = 30;

/** A customer offered a second factor says "not now": not offered again for 30 days. A forced
 * account may not put it off. */
export async function offerLater(db: Db, userId: string, now = Date.now()): Promise<boolean> {
  const until = new Date(now + OFFER_LATER_DAYS * 24 * 3600 * 1000).toISOString();
  const updated = await db.updateTable('users').set({ mfa_offer_later_until: until })
    .where('id', '=', userId).where('mfa_forced', '=', 0).where('mfa_customer', '=', 1).executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** EXISTS comes back as 1/0 from SQLite and true/false from PostgreSQL. */
function isTrue(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** Whether the account must keep a second factor (mfa_forced). */
export async function isMfaForced(db: Db, userId: string): Promise<boolean> {
  const user = await db.selectFrom('users').select('mfa_forced').where('id', '=', userId).executeTakeFirstOrThrow();
  return user.mfa_forced === 1;
}
