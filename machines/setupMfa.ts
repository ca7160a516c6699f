// Setting up a second factor (spec §4 "Forced MFA"): an intro with the reasons; customers who are
// not forced may skip; others start with a phone, or with email when they already have an SMS
// method; customers choose. The destination gets a code, the code (typed in the shared code entry,
// with its timers) proves it, and the method is on. Opened on a step of its own (selection, phone,
// email) from Security, it adds a method of the person's choosing: phone (SMS, call or WhatsApp),
// email, or the authenticator app, whose own set-up then follows.
// A passkey (where the browser can make one, `noPasskeyHere` the app's to say) is no destination: its
// screen says what happens, the browser makes it on the person's word (`createPasskey`), the server
// takes it, and an optional name follows (prefilled with who keeps it, when known). A cancelled or
// refused one stays on its screen, saying why, to try again or go back and choose another way.
// A destination that belongs to another account is sent its code like any other (nothing about that
// account shows before): only the code's answer says so, with the offer to merge, which the app keeps
// (session storage `fuzzion_payload`) and follows to /duplicated (spec §4 "Duplicate-account merge"),
// for a method added from Security (see `fuzzionOffered`).
import { and, assertEvent, assign, fromPromise, not, setup, type DoneActorEvent } from 'xstate';
import { PASSKEY_NAME_MAX, SENT_CODE_LENGTH } from '../contract/rules.ts';
import type { PasskeyCredential, PasskeyOptions } from '../contract/schemas.ts';
import { codeEntryMachineOf, sentCodeOf, type CodeEntryOutput, type CodeSent, type SentCode } from './codeEntry.ts';
import { fuzzionOfferOf, passkeyProblemOf, problemOf, type Problem } from './failures.ts';

export type SetupMfaKind = 'sms' | 'call' | 'whatsapp' | 'email';
/** `hasSms` is what is known before the account's methods are read (they decide). `entry` is the
 * step whose path opened the flow: the intro at sign-in, or a step of its own from Security. */
export type SetupMfaInput = {
  forced: boolean;
  customer: boolean;
  hasSms?: boolean;
  entry?: SetupMfaScreen;
  /** The account's phone number, offered as the destination of a phone method at sign-in. */
  knownPhone?: string;
};
/** `authenticator`: the person chose the app; its own set-up follows. `voluntary`: opened from Security. */
export type SetupMfaOutput = { outcome: 'enrolled' | 'skipped' | 'authenticator'; voluntary: boolean };
export type SetupMfaScreen =
  'intro' | 'selection' | 'phone' | 'email' | 'confirmation' | 'passkey' | 'passkeyName' | 'success';

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
  /** A new passkey's challenge: what the browser is asked to make, and the payload its answer goes with. */
  passkeyChallenge: PasskeyStart | null;
  /** The passkey made, and who keeps it (when known), for its name. */
  passkey: NewPasskey | null;
  /** Its name as typed (prefilled with the provider). */
  name: string;
  error: Problem | null;
  outcome: SetupMfaOutput['outcome'] | null;
};

/** GET /mfa/-6/activate: the payload, and the options the browser makes the passkey with. */
export type PasskeyStart = { payload: string; options: PasskeyOptions };
/** The passkey the server took: its method id, and its provider when the server knows it. */
export type NewPasskey = { id: number; provider: string | null };

const VOLUNTARY_ENTRIES: ReadonlySet<SetupMfaScreen> = new Set([
  'selection',
  'phone',
  'email',
  'passkey',
  'passkeyName',
]);
/** Who may say "not now": a customer who is not forced, or anyone adding one from Security. */
const choosesFreely = (context: Context) => (context.customer && !context.forced) || context.voluntary;
/** Who picks the method: everyone, but an account that must add its email next (it has a phone
 * method already, spec §4 "Forced MFA"). The intro promises a phone, an email or an app: a forced
 * account chooses among them too (docs/decisions/forced-mfa.md). */
export const choosesKind = (context: Pick<Context, 'customer' | 'forced' | 'voluntary' | 'hasSms'>) =>
  (context.customer && !context.forced) || context.voluntary || !context.hasSms;
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
      | { type: 'CHOOSE'; kind: SetupMfaKind | 'totp' | 'passkey' }
      /** The passkey's screen: ask the browser to make one. */
      | { type: 'CREATE' }
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
      | DoneActorEvent<CodeEntryOutput<unknown>, 'codeEntry'>
      | DoneActorEvent<PasskeyStart, 'startPasskey'>
      | DoneActorEvent<PasskeyCredential, 'createPasskey'>
      | DoneActorEvent<NewPasskey, 'confirmPasskey'>,
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
    startPasskey: fromPromise<PasskeyStart>(async () => {
      throw new Error('startPasskey is provided by the app');
    }),
    /** The browser makes the passkey (WebAuthn's create). */
    createPasskey: fromPromise<PasskeyCredential, PasskeyOptions>(async () => {
      throw new Error('createPasskey is provided by the app');
    }),
    /** The new passkey goes to the server, which adds it. */
    confirmPasskey: fromPromise<NewPasskey, { payload: string; credential: PasskeyCredential }>(async () => {
      throw new Error('confirmPasskey is provided by the app');
    }),
    renamePasskey: fromPromise<void, { id: number; name: string }>(async () => {
      throw new Error('renamePasskey is provided by the app');
    }),
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
    /** This browser cannot make a passkey (no WebAuthn): the app says. */
    noPasskeyHere: () => false,
    choosePasskey: ({ event }) => event.type === 'CHOOSE' && event.kind === 'passkey',
    /** No name typed: the passkey keeps none (its provider, or "Passkey", names it). */
    noName: ({ context }) => context.name.trim() === '',
    nameTooLong: ({ context }) => context.name.trim().length > PASSKEY_NAME_MAX,
    maySkip: ({ context }) => choosesFreely(context),
    chooses: ({ context }) => choosesKind(context),
    voluntary: ({ context }) => context.voluntary,
    stepUpExpired: ({ context, event }) => context.voluntary && problemOf(event).code === 'step_up_required',
    entersAt: ({ context }, { step }: { step: SetupMfaScreen }) => context.voluntary && context.entry === step,
    choseAuthenticator: ({ event }) => event.type === 'CHOOSE' && event.kind === 'totp',
    hasTarget: ({ context }) => context.target.trim() !== '',
    routeTo: ({ event }, { step }: { step: SetupMfaScreen }) => event.type === 'ROUTE' && event.step === step,
    /** Customers choose their method: their selection step can show again. */
    routeToSelection: ({ context, event }) =>
      event.type === 'ROUTE' && event.step === 'selection' && choosesKind(context),
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
    knownPhone: '',
    ...input,
    voluntary: VOLUNTARY_ENTRIES.has(input.entry ?? 'intro'),
    kind: null,
    target: '',
    challenge: null,
    passkeyChallenge: null,
    passkey: null,
    name: '',
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
        { guard: { type: 'entersAt', params: { step: 'passkey' } }, target: 'passkey' },
        // The passkey was added before the reload: Security lists it, where it can be named.
        { guard: { type: 'entersAt', params: { step: 'passkeyName' } }, target: 'skipped' },
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
          // Spec §4 "Forced MFA": a phone already receives codes, the email comes next.
          { target: 'destination', actions: assign({ kind: 'email' }) },
        ],
      },
    },
    selection: {
      entry: { type: 'show', params: { screen: 'selection' } },
      on: {
        CHOOSE: [
          { guard: 'choseAuthenticator', target: 'authenticator' },
          {
            guard: and(['choosePasskey', not('noPasskeyHere')]),
            target: 'passkey',
            actions: assign({ challenge: null, error: null }),
          },
          // A passkey this browser cannot make is not offered.
          { guard: 'choosePasskey' },
          {
            target: 'destination',
            actions: assign(({ context, event }) => ({
              kind: event.kind as SetupMfaKind,
              // At sign-in, a phone method starts from the account's number (from Security, the
              // person is adding another).
              target: event.kind !== 'email' && !context.voluntary ? context.knownPhone : '',
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
          followsDelivery: true,
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
    // A passkey: one sentence says what happens; on the person's word the server's options go to the
    // browser, which makes it, and the server takes it. A failure stays here, saying why.
    passkey: {
      entry: { type: 'show', params: { screen: 'passkey' } },
      on: {
        // Whenever: leaving stops the browser's question too. A passkey is only ever chosen.
        BACK: { target: 'selection', actions: assign({ error: null }) },
        ROUTE: [
          { guard: 'routeToSelection', target: 'selection', actions: assign({ error: null }) },
          { guard: { type: 'routeTo', params: { step: 'intro' } }, target: 'intro', actions: assign({ error: null }) },
          { actions: { type: 'show', params: { screen: 'passkey' } } },
        ],
      },
      exit: assign({ passkeyChallenge: null }),
      initial: 'ready',
      states: {
        ready: {
          on: { CREATE: { target: 'starting', actions: assign({ error: null }) } },
        },
        starting: {
          invoke: {
            id: 'startPasskey',
            src: 'startPasskey',
            onDone: { target: 'creating', actions: assign({ passkeyChallenge: ({ event }) => event.output }) },
            onError: [
              { guard: 'stepUpExpired', target: '#setupMfa.skipped' },
              { target: 'ready', actions: assign({ error: ({ event }) => problemOf(event) }) },
            ],
          },
        },
        creating: {
          invoke: {
            id: 'createPasskey',
            src: 'createPasskey',
            input: ({ context }) => context.passkeyChallenge!.options,
            onDone: 'confirming',
            onError: { target: 'ready', actions: assign({ error: ({ event }) => passkeyProblemOf(event) }) },
          },
        },
        confirming: {
          invoke: {
            id: 'confirmPasskey',
            src: 'confirmPasskey',
            // The new credential goes with the request only.
            input: ({ context, event }) => {
              assertEvent(event, 'xstate.done.actor.createPasskey');
              return { payload: context.passkeyChallenge!.payload, credential: event.output };
            },
            onDone: {
              target: '#setupMfa.naming',
              actions: assign(({ event }) => ({
                passkey: event.output,
                name: event.output.provider ?? '',
                error: null,
              })),
            },
            onError: [
              { guard: 'stepUpExpired', target: '#setupMfa.skipped' },
              { target: 'ready', actions: assign({ error: ({ event }) => problemOf(event) }) },
            ],
          },
        },
      },
    },
    // The passkey is added: a name tells it from the account's others, if the person gives one.
    naming: {
      entry: { type: 'show', params: { screen: 'passkeyName' } },
      on: {
        CHANGE: { actions: assign(({ event }) => ({ name: event.value, error: null })) },
        SUBMIT: [
          { guard: 'noName', target: 'named' },
          { guard: 'nameTooLong', actions: assign({ error: { code: 'passkey_name_too_long' as const } }) },
          { target: 'renaming', actions: assign({ error: null }) },
        ],
        SKIP: { target: 'named', actions: assign({ error: null }) },
        // Nothing before it can show again: the passkey is there.
        ROUTE: { actions: { type: 'show', params: { screen: 'passkeyName' } } },
      },
    },
    renaming: {
      invoke: {
        id: 'renamePasskey',
        src: 'renamePasskey',
        input: ({ context }) => ({ id: context.passkey!.id, name: context.name.trim() }),
        onDone: 'named',
        // The passkey stays, unnamed: the person may try again, or go on without a name.
        onError: { target: 'naming', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    // From Security, back there (which says it is added); at sign-in, the set-up's success.
    named: {
      always: [{ guard: 'voluntary', target: 'enrolled' }, { target: 'success' }],
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
