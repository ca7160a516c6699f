// The middle of an onboarding: the terms, the person's details, then their email and their phone,
// each proven by an 8-digit code (or kept without one when already proven: an invitation's address,
// or an address the flow proved before the person went back a step). One code is outstanding at a
// time; it lives MFA_CODE_TTL_SECONDS, takes 5 wrong tries, and a new one replaces it after 30 s,
// then 15 s. An address or number another account uses is refused (spec §5).
import type { Variant } from '../../contract/constants.ts';
import { normalisePhone } from '../../contract/phone.ts';
import { isEmail, normaliseEmail } from '../../contract/rules.ts';
import type { MarketingPreferences, OnboardingCodeSent } from '../../contract/schemas.ts';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import type { Channel } from '../delivery/index.ts';
import { codeMessage } from '../delivery/messages.ts';
import { ApiError } from '../http/errors.ts';
import { hashCode, maskTarget, newCode, sameHash } from '../methods/codes.ts';
import { refund, spendInTurn } from '../ratelimit/index.ts';
import type { Flow } from './flows.ts';
import { furthest, requireProgress } from './progress.ts';

/** A flow may send this many codes in all, whatever the addresses. */
const MAX_SENDS_PER_FLOW = 10;

export async function acceptTerms(ctx: AppContext, flow: Flow, input: { terms: boolean; privacy: boolean; marketing: MarketingPreferences }) {
  requireProgress(flow.state, 'started');
  if (!input.terms || !input.privacy) throw new ApiError('terms_required');
  await ctx.db.updateTable('onboarding_flows').set({
    terms_accepted_at: nowIso(), marketing: JSON.stringify(input.marketing), state: furthest(flow.state, 'terms_accepted'),
  }).where('id', '=', flow.id).execute();
}

export async function saveProfile(ctx: AppContext, flow: Flow, input: { firstname: string; lastname: string; language: string }) {
  requireProgress(flow.state, 'terms_accepted');
  const firstname = input.firstname.trim();
  const lastname = input.lastname.trim();
  if (!firstname || !lastname) {
    throw new ApiError('validation_failed', { fields: [...(firstname ? [] : [{ field: 'firstname', code: 'required' }]), ...(lastname ? [] : [{ field: 'lastname', code: 'required' }])] });
  }
  await ctx.db.updateTable('onboarding_flows').set({ firstname, lastname, language: input.language, state: furthest(flow.state, 'profile_saved') })
    .where('id', '=', flow.id).execute();
}

type Contact = { kind: 'email' | 'phone'; value: string; channel: Channel };

/** The email or phone as stored (lower-cased email, E.164 phone), or the spec's "invalid" error. */
export function contactOf(kind: 'email' | 'phone', raw: string, variant: Variant, channel?: 'sms' | 'call' | 'whatsapp'): Contact {
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
  requireProgress(flow.state, email ? 'profile_saved' : 'email_verified');
  const table = email ? 'user_emails' : 'user_phones';
  const taken = await db.selectFrom(table).select('id').where('value', '=', contact.value).executeTakeFirst();
  if (taken) throw new ApiError(email ? 'email_unavailable' : 'phone_unavailable');

  const current = email ? flow.email : flow.phone;
  const provenAt = email ? flow.email_verified_at : flow.phone_verified_at;
  if (current === contact.value && provenAt !== null) {
    // "Continue with the current email": nothing to prove again.
    const reached = email ? (flow.phone_verified_at !== null && flow.phone ? 'phone_verified' : 'email_verified') : 'phone_verified';
    await db.updateTable('onboarding_flows').set({ state: furthest(flow.state, reached) }).where('id', '=', flow.id).execute();
    return { verified: true, target: maskTarget(contact.value) };
  }

  const now = Date.now();
  const sameTarget = flow.code_kind === contact.kind && flow.code_target === contact.value && flow.code_hash !== null;
  if (sameTarget && flow.code_resend_at !== null && flow.code_resend_at > nowIso(now)) {
    const wait = Math.max(1, Math.ceil((Date.parse(flow.code_resend_at) - now) / 1000));
    throw ApiError.resendTooSoon(wait);
  }
  if (flow.code_sends >= MAX_SENDS_PER_FLOW) throw new ApiError('too_many_attempts');
  // The requester's own budget for this destination bites before the destination's.
  const spent: Array<[RateLimiterAbstract, string]> = [[ctx.limiters.codeRequester, `${ip}|${contact.value}`], [ctx.limiters.codeDestination, contact.value]];
  const blocked = await spendInTurn(spent);
  if (blocked > 0) {
    throw ApiError.tooMany(blocked);
  }

  const sends = flow.code_sends + 1;
  const code = newCode(8);
  const wait = sameTarget ? config.mfa.resendNextWaitSeconds : config.mfa.resendFirstWaitSeconds;
  const expiresAt = nowIso(now + config.mfa.codeTtlSeconds * 1000);
  const resendAt = nowIso(now + wait * 1000);
  // The new code replaces any other; a new address is not proven until its code comes back. The
  // count of sends decides a race: of thirty simultaneous requests, one finds it unchanged. The
  // message is queued in the same transaction, so the code and its message exist together.
  const won = await db.transaction().execute(async (trx) => {
    const updated = await trx.updateTable('onboarding_flows').set({
      ...(email ? { email: contact.value, email_verified_at: null } : { phone: contact.value, phone_verified_at: null }),
      state: email ? 'email_code_sent' : 'phone_code_sent',
      code_kind: contact.kind, code_target: contact.value, code_hash: hashCode(config.secretKey, `${flow.id}:${sends}`, code),
      code_attempts: 0, code_sends: sends, code_expires_at: expiresAt, code_resend_at: resendAt,
    }).where('id', '=', flow.id).where('code_sends', '=', flow.code_sends).executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    const text = codeMessage(flow.language, code, config.mfa.codeTtlSeconds, { purpose: 'onboarding', channel: contact.channel });
    await ctx.outbox.enqueue(trx, { channel: contact.channel, to: contact.value, ...text, ttlSeconds: config.mfa.codeTtlSeconds });
    return true;
  });
  if (!won) {
    await Promise.all(spent.map(([limiter, key]) => refund(limiter, key)));
    throw ApiError.resendTooSoon(wait);
  }
  ctx.outbox.kick();
  return { verified: false, target: maskTarget(contact.value), expires_at: expiresAt, expires_in: config.mfa.codeTtlSeconds, resend_at: resendAt, resend_in: wait };
}

/** Checks the outstanding code; the right one proves its email or phone, once. */
export async function verifyCode(ctx: AppContext, flow: Flow, code: string): Promise<{ verified: 'email' | 'phone' }> {
  const { config, db } = ctx;
  const kind = flow.code_kind as 'email' | 'phone' | null;
  if (!kind || flow.code_hash === null) throw new ApiError('onboarding_out_of_order');
  if (flow.code_attempts >= config.mfa.maxAttempts) throw new ApiError('challenge_closed');
  if ((flow.code_expires_at ?? '') <= nowIso()) throw new ApiError('code_expired');
  if (!sameHash(flow.code_hash, hashCode(config.secretKey, `${flow.id}:${flow.code_sends}`, code))) {
    const counted = await db.updateTable('onboarding_flows').set((eb) => ({ code_attempts: eb('code_attempts', '+', 1) }))
      .where('id', '=', flow.id).where('code_hash', '=', flow.code_hash).where('code_attempts', '<', config.mfa.maxAttempts)
      .returning('code_attempts').executeTakeFirst();
    const left = counted ? Math.max(0, config.mfa.maxAttempts - Number(counted.code_attempts)) : 0;
    throw new ApiError(left > 0 ? 'invalid_code' : 'challenge_closed', { attempts_left: left });
  }
  const now = nowIso();
  const reached = kind === 'email' ? (flow.phone_verified_at !== null && flow.phone ? 'phone_verified' : 'email_verified') : 'phone_verified';
  // Spent once: of two racing checks of the right code, one finds it still there.
  const spent = await db.updateTable('onboarding_flows').set({
    ...(kind === 'email' ? { email_verified_at: now } : { phone_verified_at: now }),
    code_kind: null, code_target: null, code_hash: null, code_expires_at: null, code_resend_at: null, state: reached,
  }).where('id', '=', flow.id).where('code_hash', '=', flow.code_hash).executeTakeFirst();
  if (Number(spent.numUpdatedRows) === 0) throw new ApiError('challenge_closed');
  return { verified: kind };
}
