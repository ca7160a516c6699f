// Onboarding (spec §2 onboarding, §4 Onboarding): start with a card (its number and activation
// code) or an invitation code; welcome; terms and privacy; the new account's details; its email,
// then its phone, each proven by a code (the onboarding-mfa step); its password; the confirmation
// with one of the spec's three outcomes.
//
// Each step is reachable only from the steps the spec names (PREDECESSORS): the machine's ways
// into a step are exactly those, and a location change to any step with no legal way in from
// where the person is (deep link, back button) sends them back to the start. existingCard is open
// to all. Screens change through `show`; the server enforces the same order again.
//
// A reload resumes: the tab keeps the flow's token (`keep`), and `recall` brings it back with the
// server's record of the flow, from which the step reloaded shows again if what it needs is there
// (ready()) and the server got that far, else the furthest step that can. A flow the server no
// longer holds starts over, saying it expired.
import { assertEvent, assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { isApiFailure } from '../contract/api.ts';
import { ONBOARDING_NEEDS, progressReached, type OnboardingProgress } from '../contract/onboarding.ts';
import type { PasswordPolicy } from '../contract/password.ts';
import { isActivationCode, isCardNumber, isInvitationCode, SENT_CODE_LENGTH } from '../contract/rules.ts';
import type {
  MarketingPreferences,
  OnboardingCodeSent,
  OnboardingDone,
  OnboardingSignIn,
  OnboardingStarted,
  OnboardingState,
} from '../contract/schemas.ts';
import { captchaProblem, captchaRefused, captchaToken, nextCaptchaLevel } from './captchaAnswer.ts';
import type { CaptchaAnswer, CaptchaLevel } from './captchaAnswer.ts';
import { codeEntryMachineOf, sentCodeOf, type CodeEntryOutput, type CodeSent, type SentCode } from './codeEntry.ts';
import { errorOf, problemOf, type Problem } from './failures.ts';
import { newPasswordMachineOf } from './newPassword.ts';
import { pathOf, stepOf } from './routes.ts';

export const ONBOARDING_STEPS = [
  'onboarding',
  'card',
  'existingCard',
  'code',
  'welcome',
  'terms-conditions',
  'create',
  'confirmation',
  'password',
  'phone-verification',
  'email-verification',
  'onboarding-mfa',
] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];
type GuardedStep = Exclude<OnboardingStep, 'onboarding' | 'existingCard'>;

/** Spec §2: the steps each step may be entered from. The start and existingCard are open to all. */
export const PREDECESSORS: Record<GuardedStep, readonly OnboardingStep[]> = {
  card: ['onboarding', 'welcome'],
  code: ['onboarding', 'welcome'],
  welcome: ['code', 'card', 'terms-conditions'],
  'terms-conditions': ['welcome', 'create'],
  create: ['welcome', 'terms-conditions', 'email-verification'],
  confirmation: ['password'],
  password: ['onboarding-mfa', 'phone-verification'],
  'phone-verification': ['onboarding-mfa', 'email-verification'],
  'email-verification': ['create', 'phone-verification', 'onboarding-mfa'],
  'onboarding-mfa': ['email-verification', 'phone-verification'],
};

/** Each step's path: the route table owns them (flow `onboarding`, one entry per step). */
export const ONBOARDING_PATHS = Object.fromEntries(
  ONBOARDING_STEPS.map((step) => [step, pathOf('onboarding', step)]),
) as Record<OnboardingStep, string>;

/** The step a path shows, if it is one of onboarding's. */
export function onboardingStepOf(path: string): OnboardingStep | null {
  return stepOf(path, 'onboarding');
}

/** The machine's state for each step. */
const STATE_OF: Record<OnboardingStep, string> = {
  onboarding: 'start',
  card: 'card',
  existingCard: 'existingCard',
  code: 'code',
  welcome: 'welcome',
  'terms-conditions': 'terms',
  create: 'create',
  'email-verification': 'emailVerification',
  'onboarding-mfa': 'codeEntry',
  'phone-verification': 'phoneVerification',
  password: 'password',
  confirmation: 'confirmation',
};

export type Channel = 'sms' | 'call' | 'whatsapp';
export type OnboardingInput = { entry: OnboardingStep; policy: PasswordPolicy };
/** The new account, signed in as a password sign-in is: its session opened, or its second factor due. */
export type OnboardingOutput = { username: string; signIn: OnboardingSignIn };
/** What the tab keeps for a reload: the flow's token, and the channel of a phone code, which the
 * server does not keep. */
export type OnboardingMemory = { flow: string; channel: Channel };
/** What a reload brings back: the tab's memory with the server's record of the flow. */
export type OnboardingRecalled = OnboardingMemory & { state: OnboardingState };

type Challenge = { kind: 'email' | 'phone'; sent: SentCode };

type Context = {
  step: OnboardingStep;
  policy: PasswordPolicy;
  source: 'card' | 'invitation' | null;
  cardNumber: string;
  activationCode: string;
  invitationCode: string;
  captcha: string | null;
  /** How hard the start's puzzle is: past a card number's ceiling of wrong codes the server names a harder one. */
  captchaLevel: CaptchaLevel;
  /** The server's token of this onboarding, once a card or invitation started it. */
  flow: string | null;
  welcome: OnboardingStarted['welcome'] | null;
  /** The masked usernames of the account that already holds the card (existingCard). */
  usernames: string[];
  consents: { terms: boolean; privacy: boolean; marketing: MarketingPreferences };
  termsAccepted: boolean;
  profile: { firstname: string; lastname: string };
  profileSaved: boolean;
  email: string;
  /** The email and phone this flow has proven (or that came proven), null until then. */
  provenEmail: string | null;
  phone: string;
  channel: Channel;
  provenPhone: string | null;
  challenge: Challenge | null;
  outcome: OnboardingDone | null;
  error: Problem | null;
  /** The field a submit found empty: the form names it (cleared by typing). */
  missing: RequiredField | null;
};

type RequiredField = 'firstname' | 'lastname' | 'email' | 'phone';
const valueOf = (context: Context, field: RequiredField) =>
  field === 'firstname' || field === 'lastname' ? context.profile[field] : context[field];

export type OnboardingEvent =
  | { type: 'ROUTE'; step: OnboardingStep }
  | { type: 'CHOOSE'; source: 'card' | 'invitation' }
  | {
      type: 'CHANGE';
      field: 'cardNumber' | 'activationCode' | 'invitationCode' | 'firstname' | 'lastname' | 'email' | 'phone';
      value: string;
    }
  | { type: 'SET_CHANNEL'; channel: Channel }
  | { type: 'TOGGLE'; consent: 'terms' | 'privacy' | 'email' | 'sms' | 'partners' }
  | { type: 'SUBMIT'; captcha?: CaptchaAnswer }
  /** From the code entry, once its wait is over. */
  /** From the code entry, once it sent a new code. */
  | CodeSent
  | { type: 'CONTINUE' }
  | { type: 'BACK' };

/** The ends of the calls whose answers the flow's guards and actions read. */
type OnboardingDoneEvent =
  | DoneActorEvent<OnboardingRecalled | null, 'recall'>
  | DoneActorEvent<OnboardingStarted, 'startWithCard' | 'startWithInvitation'>
  | DoneActorEvent<OnboardingCodeSent, 'sendEmailCode' | 'sendPhoneCode'>
  | DoneActorEvent<CodeEntryOutput<CodeVerified>, 'codeEntry'>;
/** What the email or phone step's code check answers. */
type CodeVerified = { verified: 'email' | 'phone' };
type OnboardingFlowEvent = OnboardingEvent | OnboardingDoneEvent;

/** Everything a flow collects, empty: a first start, or a start over. */
const fresh = (input: { policy: PasswordPolicy }): Omit<Context, 'step'> => ({
  policy: input.policy,
  source: null,
  cardNumber: '',
  activationCode: '',
  invitationCode: '',
  captcha: null,
  captchaLevel: 0,
  flow: null,
  welcome: null,
  usernames: [],
  consents: { terms: false, privacy: false, marketing: { email: false, sms: false, partners: false } },
  termsAccepted: false,
  profile: { firstname: '', lastname: '' },
  profileSaved: false,
  email: '',
  provenEmail: null,
  phone: '',
  channel: 'sms',
  provenPhone: null,
  challenge: null,
  outcome: null,
  error: null,
  missing: null,
});

/** The details the employer gave: the defaults of the person's own. */
const profileOf = (welcome: OnboardingStarted['welcome']): Context['profile'] => ({
  firstname: welcome.firstname ?? '',
  lastname: welcome.lastname ?? '',
});

/** Whether what a step needs is there: a step entered without it would have nothing to show. */
function ready(step: GuardedStep, context: Context): boolean {
  switch (step) {
    case 'card':
    case 'code':
      return true;
    case 'welcome':
    case 'terms-conditions':
      return context.flow !== null;
    case 'create':
      return context.termsAccepted;
    case 'email-verification':
      return context.profileSaved;
    case 'onboarding-mfa':
      return context.challenge !== null;
    case 'phone-verification':
      return context.provenEmail !== null;
    case 'password':
      return context.provenPhone !== null;
    case 'confirmation':
      return context.outcome !== null;
  }
}

/** The steps a reload resumes: past the card or invitation, before the account exists. Furthest
 * first: a code waiting comes after the step that sent it (the phone's after the phone step). */
const RESUMABLE = [
  'password',
  'onboarding-mfa',
  'phone-verification',
  'email-verification',
  'create',
  'terms-conditions',
  'welcome',
] as const;
type ResumableStep = (typeof RESUMABLE)[number];

/** The call each step makes: a reload shows the step only once the server would take it. */
const CALL_OF: Partial<Record<ResumableStep, keyof typeof ONBOARDING_NEEDS>> = {
  'terms-conditions': 'terms',
  create: 'profile',
  'email-verification': 'email',
  'phone-verification': 'phone',
  password: 'password',
};

const resumable = (step: OnboardingStep): step is ResumableStep => (RESUMABLE as readonly string[]).includes(step);

/** The context a reload restores from what was recalled. */
function restored(context: Context, { flow, channel, state }: OnboardingRecalled): Context {
  const { source, welcome, terms, profile, email, phone, code } = state;
  return {
    ...context,
    flow,
    source,
    welcome,
    channel,
    error: null,
    consents: terms ? { terms: true, privacy: true, marketing: terms.marketing } : context.consents,
    termsAccepted: terms !== null,
    profile: profile ?? profileOf(welcome),
    profileSaved: profile !== null,
    email: email?.address ?? '',
    provenEmail: email?.verified ? email.address : null,
    phone: phone?.number ?? '',
    provenPhone: phone?.verified ? phone.number : null,
    // The code already sent, timed by the server: a reload sends no new one.
    challenge: code && { kind: code.kind, sent: sentCodeOf(code) },
  };
}

/** Where a reload lands: the step reloaded if it can show, else the furthest that can. */
function resumedStep(context: Context, progress: OnboardingProgress): ResumableStep {
  const canShow = (step: ResumableStep) =>
    ready(step, context) && (CALL_OF[step] === undefined || progressReached(progress, ONBOARDING_NEEDS[CALL_OF[step]]));
  if (resumable(context.step) && canShow(context.step)) return context.step;
  // A live flow can always show its welcome.
  return RESUMABLE.find(canShow) ?? 'welcome';
}

const recalledOf = (event: OnboardingFlowEvent) =>
  event.type === 'xstate.done.actor.recall' ? (event.output ?? null) : null;

const codeOf = (event: object) => {
  const error = errorOf(event);
  return isApiFailure(error) ? error.code : null;
};

/** Whether a code entry ended on the "invalid or already used" answer to its right code. */
const takenAddress = (event: OnboardingFlowEvent) => {
  const code = event.type === 'xstate.done.actor.codeEntry' ? event.output.failure?.code : undefined;
  return code === 'email_unavailable' || code === 'phone_unavailable';
};

const onboardingSetup = setup({
  types: {
    children: {} as { codeEntry: 'codeEntry'; newPassword: 'newPassword' },
    context: {} as Context,
    input: {} as OnboardingInput,
    output: {} as OnboardingOutput,
    events: {} as OnboardingFlowEvent,
  },
  actors: {
    /** What this tab kept of the flow, with the server's record of it; null when nothing was kept. */
    recall: fromPromise<OnboardingRecalled | null>(async () => null),
    startWithCard: fromPromise<
      OnboardingStarted,
      { cardNumber: string; activationCode: string; captcha: string | null }
    >(async () => {
      throw new Error('startWithCard is provided by the app');
    }),
    startWithInvitation: fromPromise<OnboardingStarted, { code: string; captcha: string | null }>(async () => {
      throw new Error('startWithInvitation is provided by the app');
    }),
    acceptTerms: fromPromise<void, { flow: string; terms: boolean; privacy: boolean; marketing: MarketingPreferences }>(
      async () => {
        throw new Error('acceptTerms is provided by the app');
      },
    ),
    saveProfile: fromPromise<void, { flow: string; firstname: string; lastname: string }>(async () => {
      throw new Error('saveProfile is provided by the app');
    }),
    sendEmailCode: fromPromise<OnboardingCodeSent, EmailCodeRequest>(async () => {
      throw new Error('sendEmailCode is provided by the app');
    }),
    sendPhoneCode: fromPromise<OnboardingCodeSent, PhoneCodeRequest>(async () => {
      throw new Error('sendPhoneCode is provided by the app');
    }),
    /** The email or phone step's code, checked with the flow's token. */
    codeEntry: codeEntryMachineOf<CodeVerified, CodeRequest>(),
    /** The password step: the new-password machine, whose call creates the account. */
    newPassword: newPasswordMachineOf<OnboardingDone>(),
  },
  actions: {
    /** A submit found a field empty: the first of the step's, in the order the form shows them. */
    nameMissing: assign({
      missing: ({ context }, { fields }: { fields: RequiredField[] }) =>
        fields.find((field) => valueOf(context, field).trim() === '') ?? null,
    }),
    show: (_, _params: { step: OnboardingStep }) => {},
    /** Keeps what a reload needs (null: nothing any more). */
    keep: (_, _params: OnboardingMemory | null) => {},
    // The card or invitation was accepted: what the employer told us becomes the defaults.
    started: assign(({ event }) => {
      assertEvent(event, ['xstate.done.actor.startWithCard', 'xstate.done.actor.startWithInvitation']);
      const { flow, source, welcome } = event.output;
      return {
        flow,
        source,
        welcome,
        error: null,
        termsAccepted: false,
        profileSaved: false,
        profile: profileOf(welcome),
        email: welcome.email ?? '',
        provenEmail: welcome.emailVerified ? welcome.email : null,
        phone: welcome.phone ?? '',
        provenPhone: null,
        challenge: null,
      };
    }),
    /** The start refused: its error, and the puzzle the next try needs when the answer names one. */
    refused: assign(({ context, event }) => ({
      error: problemOf(event),
      captchaLevel: nextCaptchaLevel({ context, event }),
    })),
    /** Back to the start, with nothing kept but the policy. */
    startOver: assign(({ context }) => fresh(context)),
    takeRecalled: assign(({ context, event }) => restored(context, recalledOf(event)!)),
    /** A failed call's problem, shown on the step. */
    showFailure: assign({ error: ({ event }) => problemOf(event) }),
    /** A code went out: the challenge the code screen times, from the server's answer. */
    challenge: assign(({ event }, params: { kind: 'email' | 'phone' }) => {
      assertEvent(event, ['xstate.done.actor.sendEmailCode', 'xstate.done.actor.sendPhoneCode']);
      return { challenge: { kind: params.kind, sent: sentCodeOf(event.output) }, error: null };
    }),
  },
  guards: {
    sameStep: ({ context, event }) => event.type === 'ROUTE' && event.step === context.step,
    routeToExistingCard: ({ event }) => event.type === 'ROUTE' && event.step === 'existingCard',
    /** A first visit of existingCard, which is open to all. */
    entersExistingCard: ({ context }) => context.step === 'existingCard',
    /** A first visit of a step past the card or invitation: the tab may hold a flow to resume. */
    entersResumable: ({ context }) => resumable(context.step),
    /** What was recalled resumes the flow on `step`. */
    resumesOn: ({ context, event }, params: { step: ResumableStep }) => {
      const recalled = recalledOf(event);
      return recalled !== null && resumedStep(restored(context, recalled), recalled.state.progress) === params.step;
    },
    /** A location change to `step` from a step the spec lets into it, with what the step needs. */
    canEnter: ({ context, event }, params: { step: GuardedStep }) =>
      event.type === 'ROUTE' &&
      event.step === params.step &&
      PREDECESSORS[params.step].includes(context.step) &&
      ready(params.step, context),
    choseCard: ({ event }) => event.type === 'CHOOSE' && event.source === 'card',
    captchaRefused,
    cardNumberMalformed: ({ context }) => !isCardNumber(context.cardNumber),
    activationCodeMalformed: ({ context }) => !isActivationCode(context.activationCode),
    invitationCodeMalformed: ({ context }) => !isInvitationCode(context.invitationCode),
    cardTaken: ({ event }) => codeOf(event) === 'card_already_active',
    flowGone: ({ event }) => codeOf(event) === 'onboarding_expired',
    fromCard: ({ context }) => context.source === 'card',
    termsAccepted: ({ context }) => context.termsAccepted,
    consentsGiven: ({ context }) => context.consents.terms && context.consents.privacy,
    namesGiven: ({ context }) => context.profile.firstname.trim() !== '' && context.profile.lastname.trim() !== '',
    hasAddress: ({ context }, { kind }: { kind: 'email' | 'phone' }) => context[kind].trim() !== '',
    alreadyProven: ({ event }) =>
      (event.type === 'xstate.done.actor.sendEmailCode' || event.type === 'xstate.done.actor.sendPhoneCode') &&
      event.output.verified === true,
    codeForEmail: ({ context }) => context.challenge?.kind === 'email',
    entryEnded: ({ event }) => event.type === 'xstate.done.actor.codeEntry' && event.output.failure != null,
    /** The right code came back, but another account has the address: the server tells only then. */
    addressTaken: ({ event }) => takenAddress(event),
    /** …and it is the email's code. */
    emailTaken: ({ context, event }) => takenAddress(event) && context.challenge?.kind === 'email',
    emailProven: ({ event }) =>
      event.type === 'xstate.done.actor.codeEntry' && event.output.result?.verified === 'email',
  },
});

/** Where a step's screen is: entering it records the step and shows it. */
const enter = (step: OnboardingStep) => [onboardingSetup.assign({ step }), { type: 'show' as const, params: { step } }];

/** Forgets what the tab kept: the flow is over, or starts over. */
const forget = { type: 'keep', params: null } as const;
/** Keeps the flow's token (and a phone code's channel) for a reload. */
/** The requests for a code to the address or the number typed, first or again. */
export type EmailCodeRequest = { flow: string; email: string };
export type PhoneCodeRequest = { flow: string; phone: string; channel: Channel };
export type CodeRequest = ({ kind: 'email' } & EmailCodeRequest) | ({ kind: 'phone' } & PhoneCodeRequest);
const emailCodeRequest = (context: Context): EmailCodeRequest => ({ flow: context.flow!, email: context.email.trim() });
const phoneCodeRequest = (context: Context): PhoneCodeRequest => ({
  flow: context.flow!,
  phone: context.phone.trim(),
  channel: context.channel,
});
const codeRequestOf = (context: Context): CodeRequest =>
  context.challenge?.kind === 'email'
    ? { kind: 'email', ...emailCodeRequest(context) }
    : { kind: 'phone', ...phoneCodeRequest(context) };

const keepMemory = {
  type: 'keep',
  params: ({ context }: { context: Context }) => ({ flow: context.flow!, channel: context.channel }),
} as const;

/** A call's failure: an expired flow starts over (saying why); anything else is shown on the step. */
const failed = (stay: string) => [
  {
    guard: 'flowGone' as const,
    target: '#onboarding.start',
    actions: ['startOver' as const, forget, 'showFailure' as const],
  },
  { target: stay, actions: 'showFailure' as const },
];

/** The email's step and the phone's, alike: the address typed, a code sent to it (or the answer that
 * it is proven already: "continue with the current email"), then the code's step. */
const addressStep = (kind: 'email' | 'phone') => {
  const email = kind === 'email';
  return onboardingSetup.createStateConfig({
    entry: enter(email ? 'email-verification' : 'phone-verification'),
    initial: 'editing',
    on: { BACK: { target: email ? 'create' : 'emailVerification', actions: assign({ error: null }) } },
    states: {
      editing: {
        on: {
          CHANGE: {
            actions: assign(({ event }) =>
              event.field === kind
                ? { ...(email ? { email: event.value } : { phone: event.value }), error: null, missing: null }
                : {},
            ),
          },
          // Only a phone's code has a channel (SMS, a call, WhatsApp).
          ...(email ? {} : { SET_CHANNEL: { actions: assign(({ event }) => ({ channel: event.channel })) } }),
          SUBMIT: [
            { guard: { type: 'hasAddress', params: { kind } }, target: 'sending' },
            { actions: { type: 'nameMissing', params: { fields: [kind] } } },
          ],
        },
      },
      sending: {
        invoke: email
          ? {
              id: 'sendEmailCode',
              src: 'sendEmailCode',
              input: ({ context }) => emailCodeRequest(context),
              onDone: [
                {
                  guard: 'alreadyProven',
                  target: '#onboarding.phoneVerification',
                  actions: assign(({ context }) => ({
                    provenEmail: context.email.trim(),
                    challenge: null,
                    error: null,
                  })),
                },
                { target: '#onboarding.codeEntry', actions: { type: 'challenge', params: { kind } } },
              ],
              onError: failed('editing'),
            }
          : {
              id: 'sendPhoneCode',
              src: 'sendPhoneCode',
              input: ({ context }) => phoneCodeRequest(context),
              onDone: [
                {
                  guard: 'alreadyProven',
                  target: '#onboarding.password',
                  actions: assign(({ context }) => ({
                    provenPhone: context.phone.trim(),
                    challenge: null,
                    error: null,
                  })),
                },
                // The channel is kept for a reload: the server does not hold it.
                { target: '#onboarding.codeEntry', actions: [{ type: 'challenge', params: { kind } }, keepMemory] },
              ],
              onError: failed('editing'),
            },
      },
    },
  });
};

const GUARDED = Object.keys(PREDECESSORS) as GuardedStep[];

export const onboardingMachine = onboardingSetup.createMachine({
  id: 'onboarding',
  context: ({ input }) => ({ step: input.entry, ...fresh(input) }),
  on: {
    ROUTE: [
      { guard: 'sameStep' },
      { guard: 'routeToExistingCard', target: '.existingCard' },
      ...GUARDED.map((step) => ({
        guard: { type: 'canEnter' as const, params: { step } },
        target: `.${STATE_OF[step]}`,
      })),
      // Any other way in: back to the start, with nothing kept.
      { target: '.start', actions: ['startOver', forget, { type: 'show', params: { step: 'onboarding' } }] },
    ],
  },
  initial: 'entering',
  states: {
    // A first visit lands on the start, unless it is existingCard, which is open to all, or a step
    // past the card or invitation, which a reload may resume.
    entering: {
      always: [
        { guard: 'entersExistingCard', target: 'existingCard' },
        { guard: 'entersResumable', target: 'recalling' },
        { target: 'start' },
      ],
    },
    recalling: {
      // Until the flow is known, a location change has nothing to decide on: the step resumed shows.
      on: { ROUTE: {} },
      invoke: {
        id: 'recall',
        src: 'recall',
        onDone: [
          ...RESUMABLE.map((step) => ({
            guard: { type: 'resumesOn' as const, params: { step } },
            target: STATE_OF[step],
            actions: 'takeRecalled' as const,
          })),
          // Nothing kept: a first visit.
          { target: 'start' },
        ],
        // An expired flow starts over, saying so; any other failure shows on the start.
        onError: failed('start'),
      },
    },
    start: {
      entry: enter('onboarding'),
      on: {
        CHOOSE: [
          { guard: 'choseCard', target: 'card', actions: assign({ source: 'card', error: null }) },
          { target: 'code', actions: assign({ source: 'invitation', error: null }) },
        ],
      },
    },
    card: {
      entry: enter('card'),
      initial: 'editing',
      on: { BACK: { target: 'start', actions: assign({ error: null }) } },
      states: {
        editing: {
          on: {
            CHANGE: {
              actions: assign(({ event }) =>
                event.field === 'cardNumber' || event.field === 'activationCode'
                  ? { [event.field]: event.value, error: null }
                  : {},
              ),
            },
            SUBMIT: [
              { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
              { guard: 'cardNumberMalformed', actions: assign({ error: { code: 'invalid_card_number' } }) },
              { guard: 'activationCodeMalformed', actions: assign({ error: { code: 'invalid_activation_code' } }) },
              { target: 'submitting', actions: assign({ captcha: captchaToken }) },
            ],
          },
        },
        submitting: {
          invoke: {
            id: 'startWithCard',
            src: 'startWithCard',
            input: ({ context }) => ({
              cardNumber: context.cardNumber,
              activationCode: context.activationCode,
              captcha: context.captcha,
            }),
            onDone: { target: '#onboarding.welcome', actions: ['started', keepMemory] },
            onError: [
              {
                guard: 'cardTaken',
                target: '#onboarding.existingCard',
                actions: assign(({ event }) => ({ usernames: usernamesOf(event), error: null })),
              },
              { target: 'editing', actions: 'refused' },
            ],
          },
        },
      },
    },
    existingCard: {
      entry: enter('existingCard'),
    },
    code: {
      entry: enter('code'),
      initial: 'editing',
      on: { BACK: { target: 'start', actions: assign({ error: null }) } },
      states: {
        editing: {
          on: {
            CHANGE: {
              actions: assign(({ event }) =>
                event.field === 'invitationCode' ? { invitationCode: event.value, error: null } : {},
              ),
            },
            SUBMIT: [
              { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
              { guard: 'invitationCodeMalformed', actions: assign({ error: { code: 'invalid_invitation_code' } }) },
              { target: 'submitting', actions: assign({ captcha: captchaToken }) },
            ],
          },
        },
        submitting: {
          invoke: {
            id: 'startWithInvitation',
            src: 'startWithInvitation',
            input: ({ context }) => ({ code: context.invitationCode, captcha: context.captcha }),
            onDone: { target: '#onboarding.welcome', actions: ['started', keepMemory] },
            onError: { target: 'editing', actions: 'refused' },
          },
        },
      },
    },
    welcome: {
      entry: enter('welcome'),
      on: {
        CONTINUE: [{ guard: 'termsAccepted', target: 'create' }, { target: 'terms' }],
        BACK: [{ guard: 'fromCard', target: 'card' }, { target: 'code' }],
      },
    },
    terms: {
      entry: enter('terms-conditions'),
      initial: 'editing',
      on: { BACK: { target: 'welcome', actions: assign({ error: null }) } },
      states: {
        editing: {
          on: {
            TOGGLE: {
              actions: assign(({ context, event }) => {
                const { consents } = context;
                return event.consent === 'terms' || event.consent === 'privacy'
                  ? { consents: { ...consents, [event.consent]: !consents[event.consent] }, error: null }
                  : {
                      consents: {
                        ...consents,
                        marketing: { ...consents.marketing, [event.consent]: !consents.marketing[event.consent] },
                      },
                    };
              }),
            },
            SUBMIT: [
              { guard: 'consentsGiven', target: 'saving' },
              { actions: assign({ error: { code: 'terms_required' } }) },
            ],
          },
        },
        saving: {
          invoke: {
            id: 'acceptTerms',
            src: 'acceptTerms',
            input: ({ context }) => ({ flow: context.flow!, ...context.consents }),
            onDone: { target: '#onboarding.create', actions: assign({ termsAccepted: true, error: null }) },
            onError: failed('editing'),
          },
        },
      },
    },
    create: {
      entry: enter('create'),
      initial: 'editing',
      on: { BACK: { target: 'terms', actions: assign({ error: null }) } },
      states: {
        editing: {
          on: {
            CHANGE: {
              actions: assign(({ context, event }) =>
                event.field === 'firstname' || event.field === 'lastname'
                  ? { profile: { ...context.profile, [event.field]: event.value }, error: null, missing: null }
                  : {},
              ),
            },
            SUBMIT: [
              { guard: 'namesGiven', target: 'saving' },
              { actions: { type: 'nameMissing', params: { fields: ['firstname', 'lastname'] } } },
            ],
          },
        },
        saving: {
          invoke: {
            id: 'saveProfile',
            src: 'saveProfile',
            input: ({ context }) => ({
              flow: context.flow!,
              ...context.profile,
              firstname: context.profile.firstname.trim(),
              lastname: context.profile.lastname.trim(),
            }),
            onDone: { target: '#onboarding.emailVerification', actions: assign({ profileSaved: true, error: null }) },
            onError: failed('editing'),
          },
        },
      },
    },
    emailVerification: addressStep('email'),
    codeEntry: {
      entry: enter('onboarding-mfa'),
      initial: 'entering',
      on: {
        BACK: [
          { guard: 'codeForEmail', target: 'emailVerification', actions: assign({ error: null }) },
          { target: 'phoneVerification', actions: assign({ error: null }) },
        ],
      },
      states: {
        entering: {
          invoke: {
            id: 'codeEntry',
            src: 'codeEntry',
            input: ({ context }) => ({
              ticket: context.flow!,
              length: SENT_CODE_LENGTH,
              sent: context.challenge!.sent,
              error: context.error,
              endsOn: ['onboarding_expired', 'email_unavailable', 'phone_unavailable'],
              resend: codeRequestOf(context),
              // The flow's token names no challenge the server could say the delivery of.
              followsDelivery: false,
            }),
            onDone: [
              // The code was right but the address is another account's ("invalid or already used"):
              // back to its step, saying so, where the person types another. It is not proven.
              {
                guard: 'emailTaken',
                target: '#onboarding.emailVerification',
                actions: assign(({ event }) => ({ error: event.output.failure, challenge: null, provenEmail: null })),
              },
              {
                guard: 'addressTaken',
                target: '#onboarding.phoneVerification',
                actions: assign(({ event }) => ({ error: event.output.failure, challenge: null, provenPhone: null })),
              },
              // The flow expired: start over, saying why.
              {
                guard: 'entryEnded',
                target: '#onboarding.start',
                actions: ['startOver', forget, assign({ error: ({ event }) => event.output.failure })],
              },
              {
                guard: 'emailProven',
                target: '#onboarding.phoneVerification',
                actions: assign(({ context }) => ({ provenEmail: context.email.trim(), challenge: null, error: null })),
              },
              {
                target: '#onboarding.password',
                actions: assign(({ context }) => ({ provenPhone: context.phone.trim(), challenge: null, error: null })),
              },
            ],
          },
          // The code entry sent a new one: its timers replace the first one's.
          on: {
            CODE_SENT: {
              actions: assign(({ context, event }) => ({ challenge: { ...context.challenge!, sent: event.sent } })),
            },
          },
        },
      },
    },
    phoneVerification: addressStep('phone'),
    password: {
      entry: enter('password'),
      invoke: {
        id: 'newPassword',
        src: 'newPassword',
        input: ({ context }) => ({ payload: context.flow!, policy: context.policy }),
        // The account exists: the flow is over, nothing to resume.
        onDone: { target: 'confirmation', actions: [assign({ outcome: ({ event }) => event.output.result }), forget] },
      },
    },
    confirmation: {
      entry: enter('confirmation'),
      on: { CONTINUE: 'done' },
    },
    done: { type: 'final' },
  },
  // Done only from the confirmation, which shows the outcome.
  output: ({ context }) => ({ username: context.outcome!.username, signIn: context.outcome!.signIn }),
});

function usernamesOf(event: object): string[] {
  const error = errorOf(event);
  const usernames = isApiFailure(error) ? error.body.usernames : undefined;
  return Array.isArray(usernames) ? usernames.filter((u): u is string => typeof u === 'string') : [];
}
