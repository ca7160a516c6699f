// What an onboarding flow holds so far, read for a reload (POST /onboarding/state): the browser
// shows the step reached from it. Only what the start answered and what the person gave in this
// flow: the greeting of the card or invitation, the consents, the details, the address and number
// and whether they are proven, and the code waiting to be typed (masked, timed as its send was).
import { type Locale } from '../../contract/constants.ts';
import { progressReached, type OnboardingProgress } from '../../contract/onboarding.ts';
import type { OnboardingState } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { resendWait } from '../methods/challenge-store.ts';
import { maskTarget } from '../methods/codes.ts';
import { marketingOf, type Flow } from './flows.ts';
import { cardWelcome, invitationWelcome } from './start.ts';
import { latestFlowChallenge } from '../methods/challenges.ts';

export async function flowState(ctx: AppContext, flow: Flow): Promise<OnboardingState> {
  const language = flow.language as Locale;
  const now = Date.now();
  const challenge = await latestFlowChallenge(ctx, flow.id);
  // The outstanding code is the latest, until it is spent or replaced.
  const code = challenge && challenge.completed_at === null && challenge.target ? challenge : null;
  return {
    progress: flow.state as OnboardingProgress,
    source: flow.source === 'card' ? 'card' : 'invitation',
    welcome: await welcomeOf(ctx, flow, language),
    terms: flow.terms_accepted_at !== null ? { marketing: marketingOf(flow) } : null,
    profile: progressReached(flow.state, 'profile_saved')
      ? { firstname: flow.firstname ?? '', lastname: flow.lastname ?? '' }
      : null,
    email: flow.email ? { address: flow.email, verified: flow.email_verified_at !== null } : null,
    phone: flow.phone ? { number: flow.phone, verified: flow.phone_verified_at !== null } : null,
    code: code && {
      kind: code.new_method === 'email' ? 'email' : 'phone',
      target: maskTarget(code.target!),
      expires_at: code.expires_at,
      expires_in: Math.max(0, Math.ceil((Date.parse(code.expires_at) - now) / 1000)),
      resend_at: code.resend_at,
      resend_in: resendWait(code, now),
    },
  };
}

/** The greeting the start answered, read again from the card or the invitation. */
async function welcomeOf(ctx: AppContext, flow: Flow, language: Locale): Promise<OnboardingState['welcome']> {
  if (flow.source === 'card') {
    const card = await ctx.db
      .selectFrom('cards')
      .select(['holder_firstname', 'holder_lastname', 'company', 'holder_email', 'holder_phone'])
      .where('id', '=', flow.card_id!)
      .executeTakeFirstOrThrow();
    return cardWelcome(card, language);
  }
  const invitation = await ctx.db
    .selectFrom('invitations')
    .select(['firstname', 'lastname', 'company', 'email'])
    .where('id', '=', flow.invitation_id!)
    .executeTakeFirstOrThrow();
  return invitationWelcome(invitation, language);
}
