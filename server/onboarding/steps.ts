// The middle of an onboarding: the terms, the person's details, then their email and their phone,
// each proven by an 8-digit code (or kept without one when already proven: an invitation's address,
// or an address the flow proved before the person went back a step). Its codes go through the one
// challenge path (methods/challenges.ts, the flow's own challenges: purpose 'onboarding'): one is
// outstanding at a time, lives MFA_CODE_TTL_SECONDS, takes 5 wrong tries, and a new one replaces it
// on the one resend rule (30 s, then 15 s after each resend to the same address). An address or number another account uses is refused (spec §5), but only once
// its right code comes back: until the caller has proven the address, nothing tells whether an
// account has it (docs/decisions/merge-proofs.md). Sending answers the same, and does the same work,
// whether it is free or taken; the account's creation checks again, last.
import { type Variant } from '../../contract/constants.ts';
import { ONBOARDING_NEEDS } from '../../contract/onboarding.ts';
import { nameProblem, normaliseName } from '../../contract/profile.ts';
import { normalisePhone } from '../../contract/phone.ts';
import { isEmail, normaliseEmail } from '../../contract/rules.ts';
import type { MarketingPreferences, OnboardingCodeSent } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import type { Channel } from '../delivery/index.ts';
import { ApiError } from '../http/errors.ts';
import { contactOwner } from '../identity/accounts.ts';
import { latestFlowChallenge, startFlowChallenge, verifyFlowChallenge } from '../methods/challenges.ts';
import { maskTarget } from '../methods/codes.ts';
import type { Flow } from './flows.ts';
import { furthest, requireProgress } from './progress.ts';

/** A flow may send this many codes in all, whatever the addresses. */
const MAX_SENDS_PER_FLOW = 10;

export async function acceptTerms(
  ctx: AppContext,
  flow: Flow,
  input: { terms: boolean; privacy: boolean; marketing: MarketingPreferences },
) {
  requireProgress(flow.state, ONBOARDING_NEEDS.terms);
  if (!input.terms || !input.privacy) throw new ApiError('terms_required');
  await ctx.db
    .updateTable('onboarding_flows')
    .set({
      terms_accepted_at: nowIso(),
      marketing: JSON.stringify(input.marketing),
      state: furthest(flow.state, 'terms_accepted'),
    })
    .where('id', '=', flow.id)
    .execute();
}

export async function saveProfile(ctx: AppContext, flow: Flow, input: { firstname: string; lastname: string }) {
  requireProgress(flow.state, ONBOARDING_NEEDS.profile);
  // The profile's rules for names (contract/profile.ts), as PUT /user enforces them: no markup or
  // other symbols get into an account's names by this way either.
  const fields = (['firstname', 'lastname'] as const).flatMap((field) => {
    const problem = nameProblem(input[field]);
    return problem ? [{ field, code: problem }] : [];
  });
  if (fields.length > 0) throw new ApiError('validation_failed', { fields });
  const firstname = normaliseName(input.firstname);
  const lastname = normaliseName(input.lastname);
  await ctx.db
    .updateTable('onboarding_flows')
    .set({ firstname, lastname, state: furthest(flow.state, 'profile_saved') })
    .where('id', '=', flow.id)
    .execute();
}

type Contact = { kind: 'email' | 'phone'; value: string; channel: Channel };

/** The email or phone as stored (lower-cased email, E.164 phone), or the spec's "invalid" error. */
export function contactOf(
  kind: 'email' | 'phone',
  raw: string,
  variant: Variant,
  channel?: 'sms' | 'call' | 'whatsapp',
): Contact {
  if (kind === 'email') {
    const value = normaliseEmail(raw);
    if (!isEmail(value)) throw new ApiError('invalid_email');
    return { kind, value, channel: 'email' };
  }
  const value = normalisePhone(raw, variant === 'lu' ? 'LU' : 'BE');
  if (!value) throw new ApiError('invalid_phone');
  return { kind, value, channel: channel ?? 'sms' };
}

/** Sends a code to the email or phone the person chose, unless that one is proven already. */
export async function sendCode(ctx: AppContext, flow: Flow, contact: Contact, ip: string): Promise<OnboardingCodeSent> {
  const { config, db } = ctx;
  const email = contact.kind === 'email';
  requireProgress(flow.state, email ? ONBOARDING_NEEDS.email : ONBOARDING_NEEDS.phone);
  // Whether another account has the address is not asked here: a code goes to it either way, and
  // only its right code tells (verifyCode).
  const current = email ? flow.email : flow.phone;
  const provenAt = email ? flow.email_verified_at : flow.phone_verified_at;
  if (current === contact.value && provenAt !== null) {
    // "Continue with the current email": nothing to prove again. The caller proved this address
    // (the invitation reached it, or its code came back), so it may hear that an account took it since.
    if (await contactOwner(db, contact.kind, contact.value)) throw new ApiError(unavailable(contact.kind));
    const reached = email
      ? flow.phone_verified_at !== null && flow.phone
        ? 'phone_verified'
        : 'email_verified'
      : 'phone_verified';
    await db
      .updateTable('onboarding_flows')
      .set({ state: furthest(flow.state, reached) })
      .where('id', '=', flow.id)
      .execute();
    return { verified: true, target: maskTarget(contact.value) };
  }

  // The new code replaces any other; a new address is not proven until its code comes back. The
  // flow's state moves with the challenge, in its transaction, so the code and the state exist together.
  const sent = await startFlowChallenge(ctx, {
    flowId: flow.id,
    method: email ? 'email' : 'sms',
    channel: contact.channel,
    language: flow.language,
    target: contact.value,
    ip,
    maxSends: MAX_SENDS_PER_FLOW,
    write: async (trx) => {
      await trx
        .updateTable('onboarding_flows')
        .set({
          ...(email
            ? { email: contact.value, email_verified_at: null }
            : { phone: contact.value, phone_verified_at: null }),
          state: email ? 'email_code_sent' : 'phone_code_sent',
        })
        .where('id', '=', flow.id)
        .execute();
    },
  });
  return {
    verified: false,
    target: maskTarget(contact.value),
    expires_at: sent.expiresAt,
    expires_in: config.mfa.codeTtlSeconds,
    resend_at: sent.resendAt,
    resend_in: sent.wait,
  };
}

/** Checks the outstanding code; the right one proves its email or phone, once. */
export async function verifyCode(ctx: AppContext, flow: Flow, code: string): Promise<{ verified: 'email' | 'phone' }> {
  const challenge = await latestFlowChallenge(ctx, flow.id);
  if (!challenge || challenge.completed_at !== null) throw new ApiError('onboarding_out_of_order');
  const kind = challenge.new_method === 'email' ? 'email' : 'phone';
  const reached =
    kind === 'email'
      ? flow.phone_verified_at !== null && flow.phone
        ? 'phone_verified'
        : 'email_verified'
      : 'phone_verified';
  const target = challenge.target ?? (kind === 'email' ? flow.email : flow.phone) ?? '';
  // The right code proves the caller holds the address: only now may they hear that another account
  // has it, and then the address stays unproven (the person chooses another; the account's creation
  // checks again).
  const outcome = await verifyFlowChallenge(ctx, challenge, code, async (trx, now) => {
    if (await contactOwner(trx, kind, target)) return 'taken';
    await trx
      .updateTable('onboarding_flows')
      .set({ ...(kind === 'email' ? { email_verified_at: now } : { phone_verified_at: now }), state: reached })
      .where('id', '=', flow.id)
      .execute();
    return 'proven';
  });
  if (outcome === 'taken') throw new ApiError(unavailable(kind));
  return { verified: kind };
}

/** The spec's "invalid or already used" answer for an email or a phone. */
function unavailable(kind: 'email' | 'phone') {
  return kind === 'email' ? ('email_unavailable' as const) : ('phone_unavailable' as const);
}
