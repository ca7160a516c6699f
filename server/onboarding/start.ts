// The start of an onboarding (spec §4): "I received my card" (the card's number and the activation
// code of its letter) or "I received an email" (an invitation code). Wrong guesses cost: a point of
// the per-IP budget each, and per card five wrong activation codes an hour before it refuses more.
import type { Locale, Variant } from '../../contract/constants.ts';
import { LOCALES, VARIANT_LOCALES } from '../../contract/constants.ts';
import { isActivationCode, isCardNumber, isInvitationCode, normaliseCardNumber } from '../../contract/rules.ts';
import type { OnboardingStarted } from '../../contract/schemas.ts';
import { activationCodeMatches } from '../cards/codes.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { ApiError } from '../http/errors.ts';
import { invitationCodeHash } from '../invitations/codes.ts';
import { forget, spend, standing } from '../ratelimit/index.ts';
import { maskedUsernames } from '../recovery/username.ts';
import { createFlow } from './flows.ts';

type Start = { language: Locale | undefined; variant: Variant; ip: string };

function tooMany(wait: number): ApiError {
  return new ApiError('too_many_attempts', { retry_after: wait }, { 'retry-after': String(wait) });
}

/** The language of the flow: what the employer said, else what the person uses, else the variant's. */
function languageOf(stated: string | null, start: Start): Locale {
  if (stated && (LOCALES as readonly string[]).includes(stated)) return stated as Locale;
  return start.language ?? VARIANT_LOCALES[start.variant].default;
}

async function refuse(ctx: AppContext, ip: string, error: ApiError): Promise<never> {
  await spend(ctx.limiters.ip, ip);
  throw error;
}

export async function startWithCard(ctx: AppContext, input: Start & { cardNumber: string; activationCode: string }): Promise<OnboardingStarted> {
  const ipWait = (await standing(ctx.limiters.ip, input.ip)).wait;
  if (ipWait > 0) throw tooMany(ipWait);
  if (!isCardNumber(input.cardNumber)) return refuse(ctx, input.ip, new ApiError('invalid_card_number'));
  const card = await ctx.db.selectFrom('cards').selectAll().where('number', '=', normaliseCardNumber(input.cardNumber)).executeTakeFirst();
  if (!card) return refuse(ctx, input.ip, new ApiError('invalid_card_number'));
  const cardWait = (await standing(ctx.limiters.activationAttempts, card.id)).wait;
  if (cardWait > 0) throw tooMany(cardWait);
  if (!isActivationCode(input.activationCode) || !activationCodeMatches(ctx.config.secretKey, card, input.activationCode)) {
    const wait = await spend(ctx.limiters.activationAttempts, card.id);
    if (wait > 0) throw tooMany(wait);
    return refuse(ctx, input.ip, new ApiError('invalid_activation_code'));
  }
  await forget(ctx.limiters.activationAttempts, card.id);
  if (card.status === 'blocked') throw new ApiError('card_blocked');
  // The holder proved the card: they may see, masked, which account already has it.
  if (card.activated_at !== null) {
    throw new ApiError('card_already_active', { usernames: card.user_id ? await maskedUsernames(ctx.db, card.user_id) : [] });
  }
  const language = languageOf(card.holder_language, input);
  const flow = await createFlow(ctx, {
    source: 'card', cardId: card.id, language, ip: input.ip,
    firstname: card.holder_firstname, lastname: card.holder_lastname, email: card.holder_email, emailVerified: false, phone: card.holder_phone,
  });
  return {
    flow, source: 'card',
    welcome: {
      firstname: card.holder_firstname, lastname: card.holder_lastname, company: card.company,
      email: card.holder_email, emailVerified: false, phone: card.holder_phone, language,
    },
  };
}

export async function startWithInvitation(ctx: AppContext, input: Start & { code: string }): Promise<OnboardingStarted> {
  const ipWait = (await standing(ctx.limiters.ip, input.ip)).wait;
  if (ipWait > 0) throw tooMany(ipWait);
  const invitation = isInvitationCode(input.code)
    ? await ctx.db.selectFrom('invitations').selectAll().where('code_hash', '=', invitationCodeHash(ctx.config.secretKey, input.code)).executeTakeFirst()
    : undefined;
  // Unknown, used and expired codes read the same.
  if (!invitation || invitation.used_at !== null || invitation.expires_at <= nowIso()) {
    return refuse(ctx, input.ip, new ApiError('invalid_invitation_code'));
  }
  const language = languageOf(invitation.language, input);
  // The invitation reached this address: it is proven, and may be kept without a code.
  const flow = await createFlow(ctx, {
    source: 'invitation', invitationId: invitation.id, language, ip: input.ip,
    firstname: invitation.firstname, lastname: invitation.lastname, email: invitation.email, emailVerified: true, phone: null,
  });
  return {
    flow, source: 'invitation',
    welcome: {
      firstname: invitation.firstname, lastname: invitation.lastname, company: invitation.company,
      email: invitation.email, emailVerified: true, phone: null, language,
    },
  };
}
