// Forced second factor (spec §4): a user with mfa_forced and no method must set one up before
// anything else; a company customer with mfa_customer who is not forced is offered it and may
// skip. The diversion applies when the sign-in's client is absent or first-party (2, 17, 51, 66):
// a registered partner's sign-in is not diverted. An unknown client id counts as absent, so a
// made-up client_id cannot dodge the rule. A sign-in's session is scoped by it (signIn.ts); the MFA
// routes report it and keep a forced account's last method.
import { isFirstPartyClient } from '../../contract/constants.ts';
import type { MfaSetup } from '../../contract/schemas.ts';
import { isTrue, type Db } from '../db/index.ts';

/** The facts the rule reads: the account's flags and whether it has a second factor. */
export type SetupMfaFacts = { enrolled: boolean; forced: boolean; customer: boolean; offerLaterUntil: string | null };

/** The facts from the account's columns and an EXISTS over its methods (the sign-in's look-up reads them too). */
export type SetupMfaColumns = {
  mfa_forced: number;
  mfa_customer: number;
  mfa_offer_later_until: string | null;
  enrolled: unknown;
};
export const setupMfaFacts = (row: SetupMfaColumns): SetupMfaFacts => ({
  enrolled: isTrue(row.enrolled),
  forced: row.mfa_forced === 1,
  customer: row.mfa_customer === 1,
  offerLaterUntil: row.mfa_offer_later_until,
});

/** `facts`: when the caller read them already (the sign-in reads them with the account). */
export async function setupMfaOf(
  db: Db,
  userId: string,
  clientId: string | null,
  facts?: SetupMfaFacts,
): Promise<MfaSetup> {
  const user = facts ?? (await factsOf(db, userId));
  if (!user || user.enrolled || (!user.forced && !user.customer)) return 'none';
  if (clientId !== null) {
    const client = await db
      .selectFrom('oauth_clients')
      .select(['client_id', 'first_party'])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    // A partner's sign-in is never diverted (spec §9), by the one rule of a first-party client.
    if (client && !isFirstPartyClient(client.client_id, isTrue(client.first_party))) return 'none';
  }
  if (user.forced) return 'required';
  // "Not now" holds for its 30 days.
  return user.offerLaterUntil !== null && Date.parse(user.offerLaterUntil) > Date.now() ? 'none' : 'offered';
}

async function factsOf(db: Db, userId: string): Promise<SetupMfaFacts | null> {
  const user = await db
    .selectFrom('users')
    .select(['mfa_forced', 'mfa_customer', 'mfa_offer_later_until'])
    .select((eb) =>
      eb
        .exists(eb.selectFrom('mfa_methods').select('mfa_methods.id').whereRef('mfa_methods.user_id', '=', 'users.id'))
        .as('enrolled'),
    )
    .where('id', '=', userId)
    .executeTakeFirst();
  return user ? setupMfaFacts(user) : null;
}

export const OFFER_LATER_DAYS = 30;

/** A customer offered a second factor says "not now": not offered again for 30 days. A forced
 * account may not put it off. */
export async function offerLater(db: Db, userId: string, now = Date.now()): Promise<boolean> {
  const until = new Date(now + OFFER_LATER_DAYS * 24 * 3600 * 1000).toISOString();
  const updated = await db
    .updateTable('users')
    .set({ mfa_offer_later_until: until })
    .where('id', '=', userId)
    .where('mfa_forced', '=', 0)
    .where('mfa_customer', '=', 1)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Whether the account must keep a second factor (mfa_forced). */
export async function isMfaForced(db: Db, userId: string): Promise<boolean> {
  const user = await db.selectFrom('users').select('mfa_forced').where('id', '=', userId).executeTakeFirstOrThrow();
  return user.mfa_forced === 1;
}
