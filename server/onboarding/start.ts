// The start of an onboarding (spec §4): "I received my card" (the card's number and the activation
// code of its letter) or "I received an email" (an invitation code). The answers tell nothing of
// which card numbers exist: "Your card number is invalid." is for a number that fails the format,
// and every well-formed number with a wrong code, known or not, reads "Your activation code is
// invalid." after the same work. Wrong guesses cost a point of the per-IP budget each, and are
// counted per address and card number (five an hour, then that address waits), under a loose
// ceiling per card number that never blocks: past it every try on the card needs a harder proof
// of work (server/captcha/ceilings.ts), so a stranger hammering a card from any number of
// addresses can make its holder solve a puzzle, never wait.
import type { Locale, Variant } from '../../contract/constants.ts';
import { VARIANT_LOCALES, variantLocaleOf } from '../../contract/constants.ts';
import { isActivationCode, isCardNumber, isInvitationCode, normaliseCardNumber } from '../../contract/rules.ts';
import type { OnboardingStarted } from '../../contract/schemas.ts';
import type { Selectable } from 'kysely';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import type { CardsTable, InvitationsTable } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { maskedUsernames } from '../identity/usernames.ts';
import { activationCodeMatches } from '../methods/activation-code.ts';
import { invitationCodeHash } from '../methods/invitation-code.ts';
import { assertCaptcha } from '../captcha/index.ts';
import { countFailure, proofLevel } from '../captcha/ceilings.ts';
import { forget, spend, standing } from '../ratelimit/index.ts';
import { createFlow } from './flows.ts';

type Start = { language: Locale | undefined; variant: Variant; ip: string };

/** The language of the flow: the one the person reads (their codes come in it), else the one the
 * employer said, as the variant offers them, else the variant's. */
function languageOf(stated: string | null, start: Start): Locale {
  return (
    variantLocaleOf(start.language, start.variant) ??
    variantLocaleOf(stated ?? undefined, start.variant) ??
    VARIANT_LOCALES[start.variant].default
  );
}

async function refuse(ctx: AppContext, ip: string, error: ApiError): Promise<never> {
  await spend(ctx.limiters.ip, ip);
  throw error;
}

/** What an unknown card number is compared against: the same keyed hash is computed either way. */
const NO_CARD = { number: '0', activation_code_hash: 'no-card-has-this-hash' };

/** The card step always wants a solved CAPTCHA (`captcha`); past the card number's ceiling, one of
 * the level it needs, which the refusal names. */
export async function startWithCard(
  ctx: AppContext,
  input: Start & { cardNumber: string; activationCode: string; captcha?: string | undefined },
): Promise<OnboardingStarted> {
  const number = isCardNumber(input.cardNumber) ? normaliseCardNumber(input.cardNumber) : null;
  await assertCaptcha(ctx, input.captcha, number ? await proofLevel(ctx.limiters, 'activationCard', number) : 0);
  const ipWait = (await standing(ctx.limiters.ip, input.ip)).wait;
  if (ipWait > 0) throw ApiError.tooMany(ipWait);
  if (!number) return refuse(ctx, input.ip, new ApiError('invalid_card_number'));
  const perAddress: [RateLimiterAbstract, string] = [ctx.limiters.activationIpCard, `${input.ip}|${number}`];
  const cardWait = (await standing(...perAddress)).wait;
  if (cardWait > 0) throw ApiError.tooMany(cardWait);
  const card = await ctx.db.selectFrom('cards').selectAll().where('number', '=', number).executeTakeFirst();
  const matches = activationCodeMatches(
    ctx.config.secretKey,
    card ?? NO_CARD,
    isActivationCode(input.activationCode) ? input.activationCode : '',
  );
  if (!card || !matches || !isActivationCode(input.activationCode)) {
    const [wait, next] = await Promise.all([
      spend(...perAddress),
      countFailure(ctx.limiters, 'activationCard', number),
    ]);
    if (wait > 0) throw ApiError.tooMany(wait);
    const puzzle = next > 0 && ctx.config.captcha.enabled ? { captcha: true, captcha_level: next } : {};
    return refuse(ctx, input.ip, new ApiError('invalid_activation_code', puzzle));
  }
  // The holder got in from here: this address's count starts again (the ceiling keeps its count).
  await forget(...perAddress);
  if (card.status === 'blocked') throw new ApiError('card_blocked');
  // The holder proved the card: they may see, masked, which account already has it.
  if (card.activated_at !== null) {
    throw new ApiError('card_already_active', {
      usernames: card.user_id ? await maskedUsernames(ctx.db, card.user_id) : [],
    });
  }
  const language = languageOf(card.holder_language, input);
  const flow = await createFlow(ctx, {
    source: 'card',
    cardId: card.id,
    language,
    ip: input.ip,
    firstname: card.holder_firstname,
    lastname: card.holder_lastname,
    email: card.holder_email,
    emailVerified: false,
    phone: card.holder_phone,
  });
  return { flow, source: 'card', welcome: cardWelcome(card, language) };
}

export async function startWithInvitation(
  ctx: AppContext,
  input: Start & { code: string },
): Promise<OnboardingStarted> {
  const ipWait = (await standing(ctx.limiters.ip, input.ip)).wait;
  if (ipWait > 0) throw ApiError.tooMany(ipWait);
  const invitation = isInvitationCode(input.code)
    ? await ctx.db
        .selectFrom('invitations')
        .selectAll()
        .where('code_hash', '=', invitationCodeHash(ctx.config.secretKey, input.code))
        .executeTakeFirst()
    : undefined;
  // Unknown, used and expired codes read the same.
  if (!invitation || invitation.used_at !== null || invitation.expires_at <= nowIso()) {
    return refuse(ctx, input.ip, new ApiError('invalid_invitation_code'));
  }
  const language = languageOf(invitation.language, input);
  // The invitation reached this address: it is proven, and may be kept without a code.
  const flow = await createFlow(ctx, {
    source: 'invitation',
    invitationId: invitation.id,
    language,
    ip: input.ip,
    firstname: invitation.firstname,
    lastname: invitation.lastname,
    email: invitation.email,
    emailVerified: true,
    phone: null,
  });
  return { flow, source: 'invitation', welcome: invitationWelcome(invitation, language) };
}

type Welcome = OnboardingStarted['welcome'];
export type CardHolder = Pick<
  Selectable<CardsTable>,
  'holder_firstname' | 'holder_lastname' | 'company' | 'holder_email' | 'holder_phone'
>;
export type Invited = Pick<Selectable<InvitationsTable>, 'firstname' | 'lastname' | 'company' | 'email'>;

/** What the card's holder is greeted with: the details the employer gave with the card. */
export function cardWelcome(card: CardHolder, language: Locale): Welcome {
  return {
    firstname: card.holder_firstname,
    lastname: card.holder_lastname,
    company: card.company,
    email: card.holder_email,
    emailVerified: false,
    phone: card.holder_phone,
    language,
  };
}

/** What the invited person is greeted with; the invitation reached its address, which is proven. */
export function invitationWelcome(invitation: Invited, language: Locale): Welcome {
  return {
    firstname: invitation.firstname,
    lastname: invitation.lastname,
    company: invitation.company,
    email: invitation.email,
    emailVerified: true,
    phone: null,
    language,
  };
}
