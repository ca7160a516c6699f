// Setting up a second factor (spec §4 "Forced MFA"): an intro with the reasons; customers who are
// not forced may skip; others start with a phone, or with email when they already have an SMS
// method; customers choose. The destination gets a code, the code (typed in the shared code entry,
// with its timers) proves it, and the method is on. Opened on a step of its own (selection, phone,
// email) from Security, it adds a method of the person's choosing: phone (SMS, call or WhatsApp),
// email, or the authenticator app, whose own set-up then follows.
// A destination that belongs to another account is sent its code like any other (nothing about that
// account shows before): only the code's answer says so, with the offer to merge, which the app keeps
// (session storage `fuzzion_payload`) and follows to /duplicated (spec §4 "Duplicate-account merge"),
// for a method added from Security (see `fuzzionOffered`).
import { assertEvent, assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { SENT_CODE_LENGTH } from '../contract/rules.ts';
import { codeEntryMachineOf, sentCodeOf, type CodeEntryOutput, type CodeSent, type SentCode } from './codeEntry.ts';
import { fuzzionOfferOf, problemOf, type Problem } from './failures.ts';

export type SetupMfaKind = 'sms' | 'call' | 'whatsapp' | 'email';
/** `hasSms` is what is known before the account's methods are read (they decide). `entry` is the
 * step whose path opened the flow: the intro at sign-in, or a step of its own from Security. */
export type SetupMfaInput = { forced: boolean; customer: boolean; hasSms?: boolean; entry?: SetupMfaScreen };
/** `authenticator`: the person chose the app; its own set-up follows. `voluntary`: opened from Security. */
export type SetupMfaOutput = { outcome: 'enrolled' | 'skipped' | 'authenticator'; voluntary: boolean };
export type SetupMfaScreen = 'intro' | 'selection' | 'phone' | 'email' | 'confirmation' | 'success';

/** Codes after which the confirmation's code can no longer be used: choose the destination again. */
const CODE_ENDS = ['challenge_closed', 'code_expired', 'email_in_use', 'phone_in_use'] as const;

/** What GET /mfa/{id}/activate answered: nothing to do (null), or a code sent. It never offers a
 * merge (`fuzzion` is always false): the offer comes with the code's answer, once it came back. */
export type ActivationStart = null | {
  payload: string;
  fuzzion: boolean;
  data: {
    target?: string;
    code?: string;
    message?: string;
    expires_in?: number;
    expires_at?: string;
    resend_in?: number;
    resend_at?: string;
  };
};

type Context = Required<SetupMfaInput> & {
  /** Opened from Security rather than at sign-in. */
  voluntary: boolean;
  kind: SetupMfaKind | null;
  target: string;
  challenge: { payload: string; sent: SentCode } | null;
  error: Problem | null;
  outcome: SetupMfaOutput['outcome'] | null;
};

const VOLUNTARY_ENTRIES: ReadonlySet<SetupMfaScreen> = new Set(['selection', 'phone', 'email']);
/** Who picks the method and may say "not now": a customer who is not forced, or anyone adding one from Security. */
const choosesFreely = (context: Context) => (context.customer && !context.forced) || context.voluntary;
/** The destination screen of a kind. */
const screenOf = (kind: SetupMfaKind | null): SetupMfaScreen => (kind === 'email' ? 'email' : 'phone');

/** The request for a code, first or again, to the destination typed. */
export type ActivationRequest = { kind: SetupMfaKind; target: string };
const activationRequest = ({ context }: { context: Context }): ActivationRequest => ({
  kind: context.kind!,
  target: context.target.trim(),
});

export const setupMfaMachine = setup({
  types: {
    context: {} as Context,
    input: {} as SetupMfaInput,
    output: {} as SetupMfaOutput,
    events: {} as
      | { type: 'ACTIVATE' }
      | { type: 'SKIP' }
      | { type: 'CHOOSE'; kind: SetupMfaKind | 'totp' }
      | { type: 'CHANGE'; value: string }
      | { type: 'SUBMIT' }
      | { type: 'BACK' }
      | { type: 'CONTINUE' }
      /** From the code entry, once it sent a new code. */
      | CodeSent
      /** The location moved to one of the flow's steps (Back, Forward). */
      | { type: 'ROUTE'; step: SetupMfaScreen }
      /** The ends of the calls whose answers the guards and actions read. */
      | DoneActorEvent<ActivationStart, 'startActivation'>
      | DoneActorEvent<CodeEntryOutput<unknown>, 'codeEntry'>,
    children: {} as { codeEntry: 'codeEntry' },
  },
  actors: {
    /** The kinds of second factor the account has (an SMS one means the email comes next). */
    methodKinds: fromPromise<string[]>(async () => []),
    startActivation: fromPromise<ActivationStart, ActivationRequest>(async () => {
      throw new Error('startActivation is provided by the app');
    }),
    /** "Not now": the server does not offer it again for a while. */
    remindLater: fromPromise<void>(async () => {}),
    /** The code that proves the destination; its check turns the method on. */
    codeEntry: codeEntryMachineOf<unknown, ActivationRequest>(),
  },
  actions: {
    show: (_, _params: { screen: SetupMfaScreen }) => {},
    /** Goes to the merge with this offer (the app keeps it for the merge's screen). */
    offerFuzzion: (_, _params: { payload: string }) => {},
    /** A code went out: its payload and its timers, from the server's answer. */
    takeChallenge: assign(({ event }) => {
      assertEvent(event, ['xstate.done.actor.startActivation', 'CODE_SENT']);
      if (event.type === 'CODE_SENT') return { challenge: { payload: event.ticket, sent: event.sent }, error: null };
      // Only once `nothingToDo` said a code went out.
      const answer = event.output!;
      return { challenge: { payload: answer.payload, sent: sentCodeOf(answer.data) }, error: null };
    }),
  },
  guards: {
    maySkip: ({ context }) => choosesFreely(context),
    chooses: ({ context }) => choosesFreely(context),
    voluntary: ({ context }) => context.voluntary,
    stepUpExpired: ({ context, event }) => context.voluntary && problemOf(event).code === 'step_up_required',
    entersAt: ({ context }, { step }: { step: SetupMfaScreen }) => context.voluntary && context.entry === step,
    choseAuthenticator: ({ event }) => event.type === 'CHOOSE' && event.kind === 'totp',
    hasSms: ({ context }) => context.hasSms,
    hasTarget: ({ context }) => context.target.trim() !== '',
    routeTo: ({ event }, { step }: { step: SetupMfaScreen }) => event.type === 'ROUTE' && event.step === step,
    /** Customers choose their method: their selection step can show again. */
    routeToSelection: ({ context, event }) =>
      event.type === 'ROUTE' && event.step === 'selection' && choosesFreely(context),
    /** Back or Forward to the destination chosen (phone or email). */
    routeToDestination: ({ context, event }) =>
      event.type === 'ROUTE' && context.kind !== null && event.step === screenOf(context.kind),
    /** Forward to the code still held. */
    routeToCode: ({ context, event }) =>
      event.type === 'ROUTE' && event.step === 'confirmation' && context.challenge !== null,
    nothingToDo: ({ event }) => event.type === 'xstate.done.actor.startActivation' && event.output === null,
    /** The code's check turned the method on. */
    activated: ({ event }) => event.type === 'xstate.done.actor.codeEntry' && event.output.failure === null,
    /** The code came back and the destination is another account's: the answer carries the offer.
     * Only for a method added from Security, whose screens hold the recent step-up that every call
     * of the merge asks for. The set-up at sign-in holds none (the merge would answer
     * step_up_required), and leaving a mandatory one signs out (spec §4 "Forced MFA"; the root does
     * not yet exempt the merge's screens): there the person is told the destination is in use and
     * types another one. */
    fuzzionOffered: ({ context, event }) =>
      context.voluntary && event.type === 'xstate.done.actor.codeEntry' && fuzzionOfferOf(event.output) !== null,
  },
}).createMachine({
  id: 'setupMfa',
  context: ({ input }) => ({
    hasSms: false,
    entry: 'intro' as const,
    ...input,
    voluntary: VOLUNTARY_ENTRIES.has(input.entry ?? 'intro'),
    kind: null,
    target: '',
    challenge: null,
    error: null,
    outcome: null,
  }),
  initial: 'checking',
  states: {
    // Spec §4 "Forced MFA": the phone first, or the email when the account has an SMS method.
    checking: {
      invoke: {
        id: 'methodKinds',
        src: 'methodKinds',
        onDone: { target: 'opening', actions: assign({ hasSms: ({ event }) => event.output.includes('sms') }) },
        onError: 'opening',
      },
    },
    // The step the path asked for: from Security, the choice or a destination; at sign-in, the intro.
    opening: {
      always: [
        { guard: { type: 'entersAt', params: { step: 'selection' } }, target: 'selection' },
        {
          guard: { type: 'entersAt', params: { step: 'email' } },
          target: 'destination',
          actions: assign({ kind: 'email' as const }),
        },
        {
          guard: { type: 'entersAt', params: { step: 'phone' } },
          target: 'destination',
          actions: assign({ kind: 'sms' as const }),
        },
        { target: 'intro' },
      ],
    },
    intro: {
      entry: { type: 'show', params: { screen: 'intro' } },
      on: {
        SKIP: { guard: 'maySkip', target: 'postponing' },
        ROUTE: [
          { guard: 'routeToSelection', target: 'selection' },
          { guard: 'routeToDestination', target: 'destination' },
          { actions: { type: 'show', params: { screen: 'intro' } } },
        ],
        ACTIVATE: [
          { guard: 'chooses', target: 'selection' },
          { guard: 'hasSms', target: 'destination', actions: assign({ kind: 'email' }) },
          { target: 'destination', actions: assign({ kind: 'sms' }) },
        ],
      },
    },
    selection: {
      entry: { type: 'show', params: { screen: 'selection' } },
      on: {
        CHOOSE: [
          { guard: 'choseAuthenticator', target: 'authenticator' },
          {
            target: 'destination',
            actions: assign(({ event }) => ({
              kind: event.kind as SetupMfaKind,
              target: '',
              challenge: null,
              error: null,
            })),
          },
        ],
        // From Security, Back leaves the set-up; at sign-in it returns to the intro.
        BACK: [{ guard: 'voluntary', target: 'skipped' }, { target: 'intro' }],
        SKIP: { guard: 'maySkip', target: 'postponing' },
        ROUTE: [
          { guard: { type: 'routeTo', params: { step: 'intro' } }, target: 'intro' },
          { guard: 'routeToDestination', target: 'destination' },
          { actions: { type: 'show', params: { screen: 'selection' } } },
        ],
      },
    },
    destination: {
      entry: { type: 'show', params: ({ context }) => ({ screen: screenOf(context.kind) }) },
      on: {
        CHANGE: { actions: assign(({ event }) => ({ target: event.value, error: null })) },
        SUBMIT: { guard: 'hasTarget', target: 'requesting', actions: assign({ challenge: null }) },
        BACK: [{ guard: 'chooses', target: 'selection' }, { target: 'intro' }],
        ROUTE: [
          { guard: { type: 'routeTo', params: { step: 'intro' } }, target: 'intro' },
          { guard: 'routeToSelection', target: 'selection' },
          { guard: 'routeToCode', target: 'confirmation' },
          { actions: { type: 'show', params: ({ context }) => ({ screen: screenOf(context.kind) }) } },
        ],
      },
    },
    requesting: {
      invoke: {
        id: 'startActivation',
        src: 'startActivation',
        input: activationRequest,
        onDone: [
          { guard: 'nothingToDo', target: 'success' },
          {
            target: 'confirmation',
            actions: 'takeChallenge',
          },
        ],
        onError: [
          // Opened from Security after its step-up ran out: back to Security, whose methods screen
          // asks again (a code, or the password where there is no second factor), not a dead end here.
          { guard: 'stepUpExpired', target: 'skipped' },
          { target: 'destination', actions: assign({ error: ({ event }) => problemOf(event) }) },
        ],
      },
    },
    confirmation: {
      entry: { type: 'show', params: { screen: 'confirmation' } },
      invoke: {
        id: 'codeEntry',
        src: 'codeEntry',
        input: ({ context }) => ({
          ticket: context.challenge!.payload,
          length: SENT_CODE_LENGTH,
          sent: context.challenge!.sent,
          error: context.error,
          endsOn: CODE_ENDS,
          resend: activationRequest({ context }),
        }),
        onDone: [
          { guard: 'activated', target: 'success' },
          {
            guard: 'fuzzionOffered',
            target: 'merging',
            actions: [
              assign({ challenge: null, error: null }),
              { type: 'offerFuzzion', params: ({ event }) => ({ payload: fuzzionOfferOf(event.output)! }) },
            ],
          },
          // The code can no longer be used (expired, spent, the destination taken meanwhile).
          { target: 'destination', actions: assign(({ event }) => ({ challenge: null, error: event.output.failure })) },
        ],
      },
      on: {
        // The code entry sent a new one: Back and Forward come back to it.
        CODE_SENT: { actions: 'takeChallenge' },
        BACK: { target: 'destination', actions: assign({ error: null }) },
        // Back to the destination keeps the code sent: Forward comes back to it.
        ROUTE: [
          { guard: 'routeToDestination', target: 'destination', actions: assign({ error: null }) },
          { guard: { type: 'routeTo', params: { step: 'intro' } }, target: 'intro', actions: assign({ error: null }) },
          { actions: { type: 'show', params: { screen: 'confirmation' } } },
        ],
      },
    },
    // The destination is another account's: the app shows the merge's offer (/duplicated); Back
    // there, or here, is the destination again.
    merging: {
      on: {
        BACK: { target: 'destination' },
        ROUTE: { target: 'destination' },
      },
    },
    // The method is on: nothing before it can show again.
    success: {
      entry: { type: 'show', params: { screen: 'success' } },
      on: {
        CONTINUE: 'enrolled',
        ROUTE: { actions: { type: 'show', params: { screen: 'success' } } },
      },
    },
    // A reminder that could not be kept only means the offer comes back at the next sign-in.
    postponing: {
      invoke: { id: 'remindLater', src: 'remindLater', onDone: 'skipped', onError: 'skipped' },
    },
    enrolled: { type: 'final', entry: assign({ outcome: 'enrolled' as const }) },
    skipped: { type: 'final', entry: assign({ outcome: 'skipped' as const }) },
    authenticator: { type: 'final', entry: assign({ outcome: 'authenticator' as const }) },
  },
  output: ({ context }) => ({ outcome: context.outcome ?? 'enrolled', voluntary: context.voluntary }),
});
