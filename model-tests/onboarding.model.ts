// The onboarding's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { ONBOARDING_PROGRESS, progressReached, type OnboardingProgress } from '../contract/onboarding.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import type { OnboardingCodeSent, OnboardingSignIn, OnboardingStarted, OnboardingState } from '../contract/schemas.ts';
import { CAPTCHA_FAILURES } from '../machines/captcha.ts';
import {
  ONBOARDING_STEPS,
  onboardingMachine,
  type Channel,
  type OnboardingRecalled,
  type OnboardingStep,
} from '../machines/onboarding.ts';
import type { Model } from './coverage.ts';
import { AHEAD, done } from './events.ts';

export const welcome = (source: 'card' | 'invitation'): OnboardingStarted => ({
  flow: 'flow-token',
  source,
  welcome: {
    firstname: 'Nora',
    lastname: 'Nys',
    company: 'Brasserie',
    email: source === 'card' ? 'nora@example.be' : 'anna@example.be',
    emailVerified: source === 'invitation',
    phone: source === 'card' ? '+32470101001' : null,
    language: 'nl',
  },
});
/** The new account's sign-in, as the password step answers it: the session opened. */
export const SIGNED_IN: OnboardingSignIn = {
  kind: 'session',
  token: { access_token: 'token', token_type: 'Bearer', expires_in: 3600 },
};
export const sent: OnboardingCodeSent = { verified: false, target: 'n***@example.be', expires_in: 900, resend_in: 30 };

/** What the server holds of a flow that got to `progress` (the invitation's address came proven). */
export function stateAt(
  progress: OnboardingProgress,
  source: 'card' | 'invitation' = 'card',
  now = Date.now(),
): OnboardingState {
  const reached = (p: OnboardingProgress) => progressReached(progress, p);
  const { welcome: greeting } = welcome(source);
  const timers = {
    expires_at: new Date(now + 600_000).toISOString(),
    expires_in: 600,
    resend_at: new Date(now).toISOString(),
    resend_in: 0,
  };
  return {
    progress,
    source,
    welcome: greeting,
    terms: reached('terms_accepted') ? { marketing: { email: false, sms: true, partners: false } } : null,
    profile: reached('profile_saved') ? { firstname: 'Nora', lastname: 'Nys-Peeters' } : null,
    email: {
      address: greeting.email!,
      verified: reached('email_verified') || (source === 'invitation' && progress !== 'email_code_sent'),
    },
    phone: { number: '+32470101001', verified: reached('phone_verified') },
    code:
      progress === 'email_code_sent'
        ? { kind: 'email', target: 'n***@example.be', ...timers }
        : progress === 'phone_code_sent'
          ? { kind: 'phone', target: '+32 ••• •• •• 01', ...timers }
          : null,
  };
}
export const recalledAt = (
  progress: OnboardingProgress,
  source: 'card' | 'invitation' = 'card',
  channel: Channel = 'sms',
  now = Date.now(),
): OnboardingRecalled => ({ flow: 'kept-token', channel, state: stateAt(progress, source, now) });
/** Every progress a live flow can have (a finished one reads as expired). */
export const LIVE = ONBOARDING_PROGRESS.filter((p) => p !== 'completed');

export const proven: OnboardingCodeSent = { verified: true, target: 'n***@example.be' };
export const fail = (id: string, status: number, code: string, extra: Record<string, unknown> = {}) => ({
  type: `xstate.error.actor.${id}`,
  error: apiFailure(status, { code, message: code, ...extra }),
});

export type Ctx = {
  step: OnboardingStep;
  source: string | null;
  flow: string | null;
  termsAccepted: boolean;
  profileSaved: boolean;
  consents: { terms: boolean; privacy: boolean };
  profile: { firstname: string; lastname: string };
  cardNumber: string;
  activationCode: string;
  invitationCode: string;
  email: string;
  provenEmail: string | null;
  phone: string;
  provenPhone: string | null;
  challenge: { kind: string } | null;
  outcome: unknown;
  error: unknown;
  usernames: string[];
};
export type Snap = { value: unknown; context: Ctx; children: Record<string, unknown> };

/** The person's moves, only those that mean something on the step shown (the walk stays small). */
function events(snapshot: unknown) {
  const { context: c, children } = snapshot as Snap;
  const moves: Array<{ type: string; [key: string]: unknown }> = [
    ...ONBOARDING_STEPS.map((step) => ({ type: 'ROUTE', step })),
    { type: 'CHOOSE', source: 'card' },
    { type: 'CHOOSE', source: 'invitation' },
    { type: 'SUBMIT', captcha: { token: 'solved' } },
    { type: 'SUBMIT', captcha: { error: CAPTCHA_FAILURES.notLoaded } },
    { type: 'CONTINUE' },
    { type: 'BACK' },
  ];
  const stepMoves: Partial<Record<OnboardingStep, Array<{ type: string; [key: string]: unknown }>>> = {
    card: [
      { type: 'CHANGE', field: 'cardNumber', value: c.cardNumber ? '' : '5065 0000 0000 1001' },
      { type: 'CHANGE', field: 'activationCode', value: c.activationCode ? '' : '100101' },
    ],
    code: [{ type: 'CHANGE', field: 'invitationCode', value: c.invitationCode ? '' : 'TESS-JOIN-0001' }],
    'terms-conditions': [
      { type: 'TOGGLE', consent: 'terms' },
      { type: 'TOGGLE', consent: 'privacy' },
      { type: 'TOGGLE', consent: 'sms' },
    ],
    create: [
      { type: 'CHANGE', field: 'firstname', value: c.profile.firstname ? '' : 'Nora' },
      { type: 'CHANGE', field: 'lastname', value: c.profile.lastname ? '' : 'Nys' },
    ],
    'email-verification': [{ type: 'CHANGE', field: 'email', value: c.email ? '' : 'nora@example.be' }],
    'phone-verification': [
      { type: 'CHANGE', field: 'phone', value: c.phone ? '' : '0470 10 10 01' },
      { type: 'SET_CHANNEL', channel: 'whatsapp' },
    ],
    // The code entry sent a new code.
    'onboarding-mfa': [
      {
        type: 'CODE_SENT',
        ticket: 'flow-token',
        sent: { target: 'n***@example.be', expiresAt: AHEAD, resendAt: AHEAD },
      },
    ],
  };
  const answers = [
    done('startWithCard', welcome('card')),
    fail('startWithCard', 400, 'invalid_activation_code'),
    fail('startWithCard', 409, 'card_already_active', { usernames: ['e***@example.be'] }),
    done('startWithInvitation', welcome('invitation')),
    fail('startWithInvitation', 400, 'invalid_invitation_code'),
    done('acceptTerms'),
    fail('acceptTerms', 410, 'onboarding_expired'),
    fail('acceptTerms', 503, 'internal_error'),
    done('saveProfile'),
    fail('saveProfile', 410, 'onboarding_expired'),
    fail('saveProfile', 400, 'validation_failed'),
    done('sendEmailCode', sent),
    done('sendEmailCode', proven),
    fail('sendEmailCode', 409, 'email_unavailable'),
    fail('sendEmailCode', 410, 'onboarding_expired'),
    done('sendPhoneCode', sent),
    done('sendPhoneCode', proven),
    fail('sendPhoneCode', 409, 'phone_unavailable'),
    fail('sendPhoneCode', 410, 'onboarding_expired'),
    done('codeEntry', { result: { verified: c.challenge?.kind ?? 'email' }, failure: null }),
    done('codeEntry', { result: null, failure: { code: 'onboarding_expired' } }),
    // The right code, for an address another account has: only this answer says so.
    done('codeEntry', {
      result: null,
      failure: { code: c.challenge?.kind === 'phone' ? 'phone_unavailable' : 'email_unavailable' },
    }),
    done('newPassword', {
      result: { outcome: 'card_activation_failed', username: 'nora@example.be', signIn: SIGNED_IN },
    }),
    done('recall', null),
    ...LIVE.map((p) => done('recall', recalledAt(p, 'card', 'sms', AHEAD))),
    done('recall', recalledAt('profile_saved', 'invitation', 'sms', AHEAD)),
    fail('recall', 410, 'onboarding_expired'),
    fail('recall', 503, 'internal_error'),
  ].filter((e) => {
    // An actor's answer can only come while that actor runs.
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(e.type)?.[1];
    return actor !== undefined && actor in (children ?? {});
  });
  return [...moves, ...(stepMoves[c.step] ?? []), ...answers];
}

/** What tells two states apart for the machine's behaviour: what the ways into the steps need,
 * and the form fields of the step shown only (a field's value matters only on its own step). */
function serializeState({ value, context }: { value: unknown; context: unknown }) {
  const c = context as Ctx;
  const form: Partial<Record<OnboardingStep, unknown>> = {
    card: [!!c.cardNumber, !!c.activationCode],
    code: !!c.invitationCode,
    'terms-conditions': [c.consents.terms, c.consents.privacy],
    create: !!c.profile.firstname.trim() && !!c.profile.lastname.trim(),
    'email-verification': !!c.email.trim(),
    'phone-verification': !!c.phone.trim(),
  };
  return JSON.stringify([
    value,
    c.step,
    c.source,
    !!c.flow,
    c.termsAccepted,
    c.profileSaved,
    c.provenEmail !== null,
    c.provenPhone !== null,
    c.challenge?.kind ?? null,
    !!c.outcome,
    !!c.error,
    c.usernames.length > 0,
    form[c.step] ?? null,
  ]);
}

export const input = { entry: 'onboarding' as const, policy: DEFAULT_PASSWORD_POLICY };

export const onboardingModel: Model = {
  machine: onboardingMachine,
  starts: [
    // From the start, and reloaded on the first and the last step a reload resumes.
    ...(['onboarding', 'welcome', 'password'] as const).map((entry) => ({ name: entry, input: { ...input, entry } })),
    // A first visit straight to existingCard, which is open to all (the `entering` branch to it is
    // taken only there).
    { name: 'existingCard', input: { ...input, entry: 'existingCard' } },
  ],
  events,
  serializeState,
};
