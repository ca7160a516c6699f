// The last step of an onboarding: the password creates the account, with the proven email and
// phone, the consents given, and the platform ids of the card or invitation, and activates the
// card, all in one transaction: no crash leaves an account whose card stays unusable. A card
// blocked or taken meanwhile does not cost the person the account they just made (spec §4:
// "created with card activation failed, the card can be activated later").
import type { Locale } from '../../contract/constants.ts';
import { ONBOARDING_NEEDS } from '../../contract/onboarding.ts';
import type { OnboardingDone } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { isUniqueViolation, nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { contactOwner, createUser, unclaimedPlatformId } from '../identity/accounts.ts';
import { recordConsents } from '../identity/consents.ts';
import { assertAcceptablePassword } from '../passwords/policy.ts';
import { newId } from '../sessions/tokens.ts';
import { marketingOf, type Flow } from './flows.ts';
import { requireProgress } from './progress.ts';

/** Thrown inside the transaction to roll it back with an answer for the person. */
class Refused extends Error {
  readonly error: ApiError;
  constructor(error: ApiError) {
    super(error.message);
    this.error = error;
  }
}

/** `language`: the one the person reads as they create the account, which the variant offers
 * (docs/decisions/onboarding-language.md). */
export async function createAccount(
  ctx: AppContext,
  flow: Flow,
  input: { password: string; language: Locale },
  meta: { ip: string; deviceKey: string },
): Promise<Omit<OnboardingDone, 'signIn'> & { userId: string }> {
  const { password, language } = input;
  requireProgress(flow.state, ONBOARDING_NEEDS.password);
  if (
    !flow.email ||
    !flow.phone ||
    !flow.email_verified_at ||
    !flow.phone_verified_at ||
    !flow.terms_accepted_at ||
    !flow.firstname ||
    !flow.lastname
  ) {
    throw new ApiError('onboarding_out_of_order');
  }
  assertAcceptablePassword(password, ctx.config.passwordPolicy);
  const hash = await ctx.hasher.hash(password);
  const card = flow.card_id
    ? await ctx.db
        .selectFrom('cards')
        .select(['id', 'beneficiary_id'])
        .where('id', '=', flow.card_id)
        .executeTakeFirst()
    : undefined;
  const userId = newId();
  const now = nowIso();
  const marketing = marketingOf(flow);

  const create = () =>
    ctx.db.transaction().execute(async (trx): Promise<OnboardingDone['outcome']> => {
      // Exactly once: a second submit (another tab, a double click) finds the flow finished.
      const finished = await trx
        .updateTable('onboarding_flows')
        .set({ completed_at: now, state: 'completed', language })
        .where('id', '=', flow.id)
        .where('completed_at', 'is', null)
        .executeTakeFirst();
      if (Number(finished.numUpdatedRows) === 0) throw new Refused(new ApiError('onboarding_expired'));
      const invitation = flow.invitation_id
        ? await trx
            .updateTable('invitations')
            .set({ used_at: now })
            .where('id', '=', flow.invitation_id)
            .where('used_at', 'is', null)
            .where('expires_at', '>', now)
            .returningAll()
            .executeTakeFirst()
        : undefined;
      if (flow.invitation_id && !invitation) throw new Refused(new ApiError('invalid_invitation_code'));
      for (const [kind, value, code] of [
        ['email', flow.email!, 'email_unavailable'],
        ['phone', flow.phone!, 'phone_unavailable'],
      ] as const) {
        if (await contactOwner(trx, kind, value)) throw new Refused(new ApiError(code));
      }
      await createUser(trx, {
        id: userId,
        now,
        firstname: flow.firstname!,
        lastname: flow.lastname!,
        language,
        email: flow.email!,
        phone: flow.phone!,
        user_id: await unclaimedPlatformId(trx, 'user_id', card?.beneficiary_id ?? invitation?.user_id ?? null),
        customer_user_id: await unclaimedPlatformId(trx, 'customer_user_id', invitation?.customer_user_id ?? null),
        fridom_user_id: await unclaimedPlatformId(trx, 'fridom_user_id', invitation?.fridom_user_id ?? null),
        password_status: 0,
        mfa_forced: invitation?.mfa_forced === 1,
        mfa_customer: invitation?.mfa_customer === 1,
        passwordHash: hash,
      });
      if (invitation)
        await trx.updateTable('invitations').set({ used_by: userId }).where('id', '=', invitation.id).execute();
      await recordConsents(trx, userId, { terms: true, privacy: true, marketing }, flow.terms_accepted_at!);
      let outcome: OnboardingDone['outcome'] = 'invitation';
      if (flow.source === 'card') {
        // Activated once: a card blocked or activated by someone else meanwhile is left as it is.
        const activated = card
          ? await trx
              .updateTable('cards')
              .set({ user_id: userId, activated_at: now })
              .where('id', '=', card.id)
              .where('activated_at', 'is', null)
              .where('status', '=', 'issued')
              .executeTakeFirst()
          : null;
        outcome = Number(activated?.numUpdatedRows ?? 0) === 1 ? 'card_activated' : 'card_activation_failed';
      }
      await trx.updateTable('onboarding_flows').set({ user_id: userId, outcome }).where('id', '=', flow.id).execute();
      return outcome;
    });
  let outcome: OnboardingDone['outcome'];
  try {
    // Two accounts made at the same instant may both see an address or platform id free: the
    // unique index refuses the second, and a second try finds who holds it.
    outcome = await create().catch((error: unknown) => (isUniqueViolation(error) ? create() : Promise.reject(error)));
  } catch (error) {
    if (error instanceof Refused) throw error.error;
    throw error;
  }
  await recordEvent(ctx.db, {
    type: 'account_created',
    userId,
    ip: meta.ip,
    deviceKey: meta.deviceKey,
    detail: { source: flow.source },
  });
  if (flow.source === 'card') {
    await recordEvent(ctx.db, {
      type: outcome === 'card_activated' ? 'card_activated' : 'card_activation_failed',
      userId,
      ip: meta.ip,
      deviceKey: meta.deviceKey,
    });
  }
  return { outcome, username: flow.email, userId };
}
