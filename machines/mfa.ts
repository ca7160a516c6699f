// Entering a second factor (spec §2 "MFA code screen", §4 "MFA"): choose a method, have a code sent,
// type it in the shared code entry (codeEntry.ts: its timers come from the server's answer), and
// finish with the server's answer. A passkey is no code: choosing one starts its challenge, the
// browser asks the passkey (`askPasskey`) and the signed answer goes to the server (`checkPasskey`),
// all on the choice's screen; a cancelled or refused one comes back to the choice, saying why, where
// the person tries again or chooses another way. Where the browser cannot use a passkey
// (`noPasskeyHere`, the app's to say) none is offered. On a sign-in the choice may trust the device, for
// a passkey as for a code (the code entry starts with the same choice). A step-up of an account
// without a second factor asks for the password instead (docs/decisions/step-up-password.md); past
// the account's ceiling of wrong passwords the server wants a solved puzzle with it (the refusal
// names its level): from then on the form shows the widget at that level and each CONFIRM_PASSWORD
// carries its answer, which the call sends in the X-Captcha header, as the code entry does with a
// code. A phone's code screen sends the code another way (SMS, call or WhatsApp) on request: a new
// send, under the server's resend wait, while the screen stays the code's. Pure: the calls are the `startChallenge`, `askPasskey`, `checkPasskey` and
// `confirmPassword` actors and the code entry's `check` and `send` (the same request again);
// screens change through the `show` action.
import { assertEvent, assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { CODE_LENGTH, isTypedMethod, type TypedMethodSummary } from '../contract/rules.ts';
import type { MfaChallengeAnswer, MfaMethodSummary, PasskeyCredential, PasskeyOptions } from '../contract/schemas.ts';
import { captchaProblem, captchaRefused, captchaToken, nextCaptchaLevel } from './captchaAnswer.ts';
import type { CaptchaAnswer, CaptchaLevel } from './captchaAnswer.ts';
import { codeEntryMachineOf, sentCodeOf, type CodeSent, type SentCode } from './codeEntry.ts';
import { passkeyProblemOf, problemOf, type Problem } from './failures.ts';

export type Channel = 'email' | 'sms' | 'call' | 'whatsapp';
export type MfaInput = {
  methods: MfaMethodSummary[];
  /** The sign-in's payload (POST /token's 401), when this completes a login. */
  loginPayload: string | null;
  /** The step whose path started the flow (a reload lands there). */
  entry?: 'methods' | 'code';
};

/** What a reload on the code screen needs: the sign-in it belongs to, the method and the code sent. */
export type MfaMemory = {
  loginPayload: string | null;
  selected: TypedMethodSummary;
  channel: Channel | null;
  challenge: { payload: string; sent: SentCode | null };
};
/** How the person proved it: a second factor, or the password where the account has none. */
export type ProofKind = MfaMethodSummary['method'] | 'password';
export type MfaOutput = {
  method: ProofKind;
  mfaId: number;
  accessToken: string | null;
  recoveryKeysLeft: number | null;
};

type Context = {
  entry: 'methods' | 'code';
  methods: MfaMethodSummary[];
  loginPayload: string | null;
  /** The method whose code is typed (never a passkey: it has a state of its own). */
  selected: TypedMethodSummary | null;
  channel: Channel | null;
  /** The code on its way; `sent` is null for a code nobody sent (authenticator, recovery key, card). */
  challenge: { payload: string; sent: SentCode | null } | null;
  /** The passkey being used, or the last one tried (the failure back on the choice is its). */
  passkey: MfaMethodSummary | null;
  /** Its challenge: what the browser asks the passkey, and the payload its answer goes with. */
  passkeyChallenge: { payload: string; options: PasskeyOptions } | null;
  /** The account has passkeys this browser cannot use: they are not offered. */
  passkeysHidden: boolean;
  /** A sign-in's choice to trust this device. */
  remember: boolean;
  error: Problem | null;
  result: MfaOutput | null;
  /** The puzzle the server wants with the password typed again (null: none). */
  captchaLevel: CaptchaLevel | null;
};

export type MfaEvent =
  | { type: 'SELECT'; id: number; channel?: Channel }
  /** From the code entry, once it sent a new code. */
  | CodeSent
  /** The location moved to one of the flow's steps (Back, Forward). */
  | { type: 'ROUTE'; step: 'methods' | 'code' }
  | { type: 'CHANGE_METHOD' }
  /** Trust this device (only a sign-in's second factor offers it). */
  | { type: 'TOGGLE_REMEMBER' }
  /** The password typed again, for a step-up without a second factor; `captcha`: the widget's
   * answer, once the server wants one. */
  | { type: 'CONFIRM_PASSWORD'; password: string; captcha?: CaptchaAnswer };

/** The ends of the calls whose answers the flow's guards and actions read. */
type MfaDoneEvent =
  | DoneActorEvent<MfaMemory | null, 'recall'>
  | DoneActorEvent<MfaChallengeAnswer, 'startChallenge' | 'startPasskey'>
  | DoneActorEvent<PasskeyCredential, 'askPasskey'>
  | DoneActorEvent<MfaVerified, 'checkPasskey'>;

/** What choosing a method of `methods` leaves in a choice's context (the second factor's and the
 * merge's alike): a passkey is asked of the browser; any other method is sent or typed, on the
 * phone's channel asked for. */
export const passkeyPicked = (methods: MfaMethodSummary[], id: number) => ({
  passkey: methods.find((m) => m.id === id)!,
  selected: null,
  channel: null,
  challenge: null,
  error: null,
});
export const methodPicked = <C extends string>(methods: MfaMethodSummary[], id: number, channel: C | undefined) => ({
  selected: methods.filter(isTypedMethod).find((m) => m.id === id)!,
  passkey: null,
  channel: channel ?? null,
  challenge: null,
  error: null,
});

/** The methods whose codes Tessera sends (timed, and sent again on request); an authenticator's
 * code, a recovery key and a card number are at hand. The merge proves the other account's methods
 * by the same rules. */
export const CODED: ReadonlySet<MfaMethodSummary['method']> = new Set(['email', 'sms', 'call', 'whatsapp']);

/** What the server answers a right code (or passkey). */
export type MfaVerified = { access_token?: string; recovery_keys_left?: number };

/** A passkey's signed answer, as its check sends it. */
export type PasskeyAnswer = { payload: string; credential: PasskeyCredential; remember: boolean };

/** The request for a code, first or again, for the method chosen. */
export type ChallengeRequest = { mfaId: number; loginPayload: string | null; channel: Channel | null };
const challengeRequest = ({ context }: { context: Context }): ChallengeRequest => ({
  mfaId: context.selected!.id,
  loginPayload: context.loginPayload,
  channel: context.channel,
});
const keepChallenge = {
  type: 'keep',
  params: ({ context }: { context: Context }) => ({
    loginPayload: context.loginPayload,
    selected: context.selected!,
    channel: context.channel,
    challenge: context.challenge!,
  }),
} as const;

export const mfaMachine = setup({
  types: {
    context: {} as Context,
    events: {} as MfaEvent | MfaDoneEvent,
    input: {} as MfaInput,
    output: {} as MfaOutput,
    children: {} as { codeEntry: 'codeEntry' },
  },
  actors: {
    /** What this tab kept of the flow, if anything. */
    recall: fromPromise<MfaMemory | null>(async () => null),
    startChallenge: fromPromise<MfaChallengeAnswer, ChallengeRequest>(async () => {
      throw new Error('startChallenge is provided by the app');
    }),
    codeEntry: codeEntryMachineOf<MfaVerified, ChallengeRequest>(),
    /** The browser asks the passkey to sign the challenge (WebAuthn's get). */
    askPasskey: fromPromise<PasskeyCredential, PasskeyOptions>(async () => {
      throw new Error('askPasskey is provided by the app');
    }),
    checkPasskey: fromPromise<MfaVerified, PasskeyAnswer>(async () => {
      throw new Error('checkPasskey is provided by the app');
    }),
    confirmPassword: fromPromise<void, { password: string; captcha: string | null }>(async () => {
      throw new Error('confirmPassword is provided by the app');
    }),
  },
  actions: {
    show: (_, _params: { screen: 'methods' | 'code' }) => {},
    /** Keeps what a reload needs (a step-up's needs nothing: its sensitive screen asks again). */
    keep: (_, _params: MfaMemory) => {},
    takeChallenge: assign(({ context, event }) => {
      assertEvent(event, ['xstate.done.actor.startChallenge', 'CODE_SENT']);
      const challenge =
        event.type === 'CODE_SENT'
          ? { payload: event.ticket, sent: event.sent }
          : {
              payload: event.output.payload,
              sent: CODED.has(context.selected!.method) ? sentCodeOf(event.output) : null,
            };
      return { challenge, error: null };
    }),
    /** How the proof ended: the method, and what the server answered. */
    finish: assign((_, { method, verified }: { method: MfaMethodSummary; verified: MfaVerified }) => ({
      result: {
        method: method.method,
        mfaId: method.id,
        accessToken: verified.access_token ?? null,
        recoveryKeysLeft: verified.recovery_keys_left ?? null,
      },
    })),
  },
  guards: {
    /** This browser cannot use a passkey (no WebAuthn): the app says. */
    noPasskeyHere: () => false,
    knownMethod: ({ context, event }) => event.type === 'SELECT' && context.methods.some((m) => m.id === event.id),
    /** The phone whose code is typed, by another of its channels. */
    otherChannel: ({ context, event }) =>
      event.type === 'SELECT' &&
      event.channel !== undefined &&
      context.selected?.method === 'sms' &&
      context.selected.id === event.id &&
      event.channel !== (context.channel ?? 'sms'),
    /** The passkey's challenge came with what the browser is to ask. */
    passkeyAsked: ({ event }) => event.type === 'xstate.done.actor.startPasskey' && event.output.passkey !== undefined,
    passkeyChosen: ({ context, event }) =>
      event.type === 'SELECT' && context.methods.some((m) => m.id === event.id && m.method === 'passkey'),
    severalMethods: ({ context }) => context.methods.length > 1,
    /** A step-up of an account without a second factor: the password stands in for one. */
    passwordOnly: ({ context }) =>
      context.methods.length === 0 && !context.passkeysHidden && context.loginPayload === null,
    typedPassword: ({ event }) => event.type === 'CONFIRM_PASSWORD' && event.password !== '',
    /** A password typed, but the puzzle the server wants is not solved (yet). */
    passwordCaptchaRefused: ({ context, event }) =>
      event.type === 'CONFIRM_PASSWORD' &&
      event.password !== '' &&
      context.captchaLevel !== null &&
      captchaRefused({ event }),
    /** A reload on the code screen of the same sign-in, while its code lives. */
    resumesCode: ({ context, event }) => {
      const memory = event.type === 'xstate.done.actor.recall' ? event.output : null;
      return (
        context.entry === 'code' &&
        !!memory &&
        memory.loginPayload === context.loginPayload &&
        (memory.challenge.sent === null || memory.challenge.sent.expiresAt > Date.now())
      );
    },
    routeToMethods: ({ event }) => event.type === 'ROUTE' && event.step === 'methods',
    /** Forward to the code still held, for the method chosen. */
    routeToCode: ({ context, event }) => event.type === 'ROUTE' && event.step === 'code' && context.challenge !== null,
  },
}).createMachine({
  id: 'mfa',
  context: ({ input }) => ({
    entry: input.entry ?? 'methods',
    methods: input.methods,
    loginPayload: input.loginPayload,
    selected: null,
    channel: null,
    challenge: null,
    passkey: null,
    passkeyChallenge: null,
    passkeysHidden: false,
    remember: false,
    error: null,
    result: null,
    captchaLevel: null,
  }),
  initial: 'offering',
  states: {
    // A browser that cannot use a passkey here is offered none (nothing is said of them, unless nothing else is left).
    offering: {
      always: [
        {
          guard: 'noPasskeyHere',
          target: 'recalling',
          actions: assign(({ context }) => ({
            methods: context.methods.filter(isTypedMethod),
            passkeysHidden: context.methods.some((m) => !isTypedMethod(m)),
          })),
        },
        { target: 'recalling' },
      ],
    },
    recalling: {
      invoke: {
        id: 'recall',
        src: 'recall',
        onDone: [
          {
            guard: 'resumesCode',
            target: 'entering',
            actions: assign(({ event }) => {
              const { selected, channel, challenge } = event.output!;
              return { selected, channel, challenge };
            }),
          },
          { guard: 'passwordOnly', target: 'password' },
          { target: 'choosing' },
        ],
        onError: [{ guard: 'passwordOnly', target: 'password' }, { target: 'choosing' }],
      },
    },
    password: {
      entry: { type: 'show', params: { screen: 'methods' } },
      initial: 'typing',
      states: {
        typing: {
          on: {
            CONFIRM_PASSWORD: [
              { guard: 'passwordCaptchaRefused', actions: assign({ error: captchaProblem }) },
              { guard: 'typedPassword', target: 'checking', actions: assign({ error: null }) },
            ],
            ROUTE: { actions: { type: 'show', params: { screen: 'methods' } } },
          },
        },
        checking: {
          invoke: {
            id: 'confirmPassword',
            src: 'confirmPassword',
            // The password, and the puzzle's solution once one is asked for, go with the request only.
            input: ({ event }) => {
              assertEvent(event, 'CONFIRM_PASSWORD');
              return { password: event.password, captcha: captchaToken({ event }) };
            },
            onDone: {
              target: '#mfa.done',
              actions: assign({
                result: { method: 'password' as const, mfaId: 0, accessToken: null, recoveryKeysLeft: null },
              }),
            },
            onError: {
              target: 'typing',
              actions: assign({
                error: ({ event }) => problemOf(event),
                captchaLevel: nextCaptchaLevel,
              }),
            },
          },
        },
      },
    },
    choosing: {
      entry: { type: 'show', params: { screen: 'methods' } },
      on: {
        ROUTE: [
          { guard: 'routeToCode', target: 'entering' },
          { actions: { type: 'show', params: { screen: 'methods' } } },
        ],
        SELECT: [
          {
            guard: 'passkeyChosen',
            target: 'passkey',
            actions: assign(({ context, event }) => passkeyPicked(context.methods, event.id)),
          },
          {
            guard: 'knownMethod',
            target: 'requesting',
            actions: assign(({ context, event }) => methodPicked(context.methods, event.id, event.channel)),
          },
        ],
        TOGGLE_REMEMBER: { actions: assign(({ context }) => ({ remember: !context.remember })) },
      },
    },
    // A passkey: its challenge, the browser's question, the server's check, on the choice's screen
    // (no code to type). Any failure goes back to the choice, saying why: there the person tries
    // again, or chooses another way.
    passkey: {
      on: { ROUTE: { actions: { type: 'show', params: { screen: 'methods' } } } },
      initial: 'starting',
      states: {
        starting: {
          invoke: {
            id: 'startPasskey',
            src: 'startChallenge',
            input: ({ context }): ChallengeRequest => ({
              mfaId: context.passkey!.id,
              loginPayload: context.loginPayload,
              channel: null,
            }),
            onDone: [
              {
                guard: 'passkeyAsked',
                target: 'asking',
                actions: assign(({ event }) => ({
                  passkeyChallenge: { payload: event.output.payload, options: event.output.passkey! },
                })),
              },
              // An answer with nothing to ask the browser: as if the browser could not.
              { target: '#mfa.choosing', actions: assign({ error: { code: 'passkey_unavailable' as const } }) },
            ],
            onError: { target: '#mfa.choosing', actions: assign({ error: ({ event }) => problemOf(event) }) },
          },
        },
        asking: {
          invoke: {
            id: 'askPasskey',
            src: 'askPasskey',
            input: ({ context }) => context.passkeyChallenge!.options,
            onDone: 'checking',
            onError: { target: '#mfa.choosing', actions: assign({ error: ({ event }) => passkeyProblemOf(event) }) },
          },
        },
        checking: {
          invoke: {
            id: 'checkPasskey',
            src: 'checkPasskey',
            // The signed answer goes with the request only.
            input: ({ context, event }): PasskeyAnswer => {
              assertEvent(event, 'xstate.done.actor.askPasskey');
              return {
                payload: context.passkeyChallenge!.payload,
                credential: event.output,
                remember: context.remember,
              };
            },
            onDone: {
              target: '#mfa.done',
              actions: {
                type: 'finish',
                params: ({ context, event }) => ({ method: context.passkey!, verified: event.output }),
              },
            },
            onError: { target: '#mfa.choosing', actions: assign({ error: ({ event }) => problemOf(event) }) },
          },
        },
      },
      exit: assign({ passkeyChallenge: null }),
    },
    requesting: {
      invoke: {
        id: 'startChallenge',
        src: 'startChallenge',
        input: challengeRequest,
        onDone: { target: 'entering', actions: ['takeChallenge', keepChallenge] },
        // The code of another channel, refused: its screen is gone (Forward has none to come back to).
        onError: { target: 'choosing', actions: assign({ error: ({ event }) => problemOf(event), challenge: null }) },
      },
    },
    entering: {
      entry: { type: 'show', params: { screen: 'code' } },
      invoke: {
        id: 'codeEntry',
        src: 'codeEntry',
        input: ({ context }) => ({
          ticket: context.challenge!.payload,
          length: CODE_LENGTH[context.selected!.method],
          sent: context.challenge!.sent,
          error: context.error,
          remember: context.remember,
          resend: CODED.has(context.selected!.method) ? challengeRequest({ context }) : null,
          followsDelivery: CODED.has(context.selected!.method),
        }),
        onDone: {
          target: 'done',
          actions: {
            type: 'finish',
            params: ({ context, event }) => ({ method: context.selected!, verified: event.output.result! }),
          },
        },
      },
      on: {
        CHANGE_METHOD: { guard: 'severalMethods', target: 'choosing', actions: assign({ error: null }) },
        // The same phone by another way: a new code, the one on screen kept until it comes.
        SELECT: {
          guard: 'otherChannel',
          target: 'requesting',
          actions: assign(({ event }) => ({ channel: event.channel!, error: null })),
        },
        // The code entry sent a new one: Back, Forward and a reload come back to it.
        CODE_SENT: { actions: ['takeChallenge', keepChallenge] },
        // Back to the methods keeps the code sent: Forward comes back to it.
        ROUTE: [
          { guard: 'routeToMethods', target: 'choosing', actions: assign({ error: null }) },
          { actions: { type: 'show', params: { screen: 'code' } } },
        ],
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.result!,
});
