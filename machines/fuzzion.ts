// The merge of a duplicated account (spec §4 "Duplicate-account merge (fuzzion)", screens /duplicated
// and /fuzzion-success). Adding an address or number sent it a code, and only once that code came
// back did the server say the address is another account's: the offer's payload came with that
// answer, so the code is already the first proof. The order is the server's
// (docs/decisions/merge-proofs.md): code, then offer, then the other account's second factor.
// - The person chooses: merge, or decline (take the address off the other account; only when it
//   keeps an email and a phone, else the "cannot decline" state says so).
// - Where the other account has no second factor the code is `enough`: the choice is done at once.
// - Otherwise the person proves the other account as its sign-in would ask: one of its own
//   second-factor methods (a code sent to its destination, its authenticator, a recovery key, its
//   card, one of its passkeys), or its password where the server names it. The answer is done, or
//   names what still counts.
// - A passkey is no code: choosing one starts its challenge, the browser asks the passkey
//   (`askPasskey`) and the signed answer goes to the server (`checkPasskey`), all on the choice's
//   screen; a cancelled or refused one comes back to the choice, saying why. Where the browser
//   cannot use a passkey (`noPasskeyHere`, the app's to say) none is offered, and an account that
//   only passkeys would prove cannot be proven here.
// - Past the other account's ceiling of failures the server wants a solved puzzle with each answer
//   (the refusal names its level): the code entry shows it for a code, and this machine for the
//   password, whose SUBMIT then carries the widget's answer (sent in the X-Captcha header).
// - An account that signs in with Microsoft only cannot be proven here: a state of its own says so.
// - A proof that asks for more shows the chooser on mfa-methods (spec §4: isFuzzion=true and the
//   methods that still count), where a reload resumes with the choice the tab kept.
// - "Use another address" cancels the offer (the server spends it): the root keeps the session on the
//   merge's screens while one is open (spec §6 "duplicated-logged"), and this flow tells it when
//   one opens (its expiry) and when it closes (done, cancelled or gone).
// Every proof is the server's to judge: this machine only never offers a step before the one it follows.
import { assertEvent, assign, fromPromise, sendParent, setup, type DoneActorEvent } from 'xstate';
import type { FuzzionAnswer, FuzzionIntent, FuzzionOffer, FuzzionSendAnswer } from '../contract/fuzzion.ts';
import { CODE_LENGTH, isTypedMethod, type TypedMethodSummary } from '../contract/rules.ts';
import type { MfaMethodSummary, PasskeyCredential, PasskeyOptions } from '../contract/schemas.ts';
import { captchaProblem, captchaRefused, captchaToken, nextCaptchaLevel } from './captchaAnswer.ts';
import type { CaptchaAnswer, CaptchaLevel } from './captchaAnswer.ts';
import { codeEntryMachineOf, sentCodeOf, type CodeEntryOutput, type CodeSent, type SentCode } from './codeEntry.ts';
import { passkeyProblemOf, problemOf, problemFromCode, type Problem, type ProblemCode } from './failures.ts';
import { CODED, methodPicked, passkeyPicked } from './mfa.ts';

/** What a finished merge or decline leaves the account with (the success screen shows it). */
export type FuzzionResult = NonNullable<FuzzionAnswer['data']>;

/** What this tab keeps of a merge (the app recalls it): the offer, and a finished outcome. */
export type FuzzionMemory = {
  /** The offer, from the "already in use" answer to a code; null when there is none. */
  payload: string | null;
  /** A merge or decline this tab already finished (Back or reload after it). */
  result: FuzzionResult | null;
  /** What the person chose for the offer, kept for the further proofs' screen (a reload there). */
  intent?: FuzzionIntent | null;
};

/** The screen the flow starts on: the offer (/duplicated), the further proofs (mfa-methods with
 * isFuzzion=true) or the outcome (/fuzzion-success). From /duplicated's query (spec §2), `target` and
 * `method`: the method to start once the offer is accepted, taken only when it is one the server
 * names for an offer about that target. */
export type FuzzionInput = {
  step: 'offer' | 'proofs' | 'success';
  target?: string | null;
  method?: number | null;
};

/** What the root hears of the offer: open until a time, or closed (done, cancelled, gone). */
export type FuzzionNews = { type: 'MERGE_OPENED'; until: string } | { type: 'MERGE_CLOSED' };

/** What a code's check sends beside the code (the code entry carries it as its opaque ticket): the
 * offer, the choice and the method's challenge. */
export type FuzzionTicket = { payload: string; intent: FuzzionIntent; challenge: string };
export const fuzzionTicket = (ticket: FuzzionTicket) => JSON.stringify(ticket);
export const readFuzzionTicket = (ticket: string) => JSON.parse(ticket) as FuzzionTicket;

/** The start of a method (POST /mfa/fuzzion), first or again. */
export type MethodRequest = { payload: string; mfaId: number; channel?: FuzzionChannel };
/** What the code entry sends again: the method's start, and the choice its new ticket carries. */
export type FuzzionResend = { method: MethodRequest; intent: FuzzionIntent };

/** A phone method's code goes by SMS, a call or WhatsApp, as the sign-in's chooser offers. */
export type FuzzionChannel = 'sms' | 'call' | 'whatsapp';

/** A passkey's signed answer to its challenge, as its check sends it (POST /fuzzion's `credential`). */
export type FuzzionPasskeyAnswer = {
  payload: string;
  intent: FuzzionIntent;
  challenge: string;
  credential: PasskeyCredential;
};

type Context = FuzzionMemory & {
  step: FuzzionInput['step'];
  /** The choice came from what the tab kept (the further proofs' screen resumes with it). */
  intentKept: boolean;
  /** The method /duplicated's query asks for, until it is started or found not to fit. */
  preferred: { target: string | null; method: number } | null;
  offer: FuzzionOffer | null;
  intent: FuzzionIntent;
  /** This browser can use a passkey here (else none is offered). */
  passkeysHere: boolean;
  /** The other account's second factors that still count (masked), the server's list after each
   * proof; its passkeys only where this browser can use them. */
  methods: MfaMethodSummary[];
  /** Whether the other account's password still counts (the server says when). */
  passwordCounts: boolean;
  /** The method being proven by a typed answer, and the channel of a phone method's code. */
  selected: TypedMethodSummary | null;
  /** The passkey being used, or the last one tried (the failure back on the choice is its). */
  passkey: MfaMethodSummary | null;
  /** Its challenge: what the browser asks the passkey, and the payload its answer goes with. */
  passkeyChallenge: { payload: string; options: PasskeyOptions } | null;
  channel: FuzzionChannel | null;
  /** The method's challenge: `sent` is null for an answer nobody sent (authenticator, recovery key, card). */
  challenge: { payload: string; sent: SentCode | null } | null;
  password: string;
  /** The puzzle the server wants with the password (null: none). */
  captchaLevel: CaptchaLevel | null;
  error: Problem | null;
  /** A proof was taken and the server asks for another. */
  moreNeeded: boolean;
  /** The server's answer to the last proof taken (or to the finish). */
  answer: FuzzionAnswer | null;
};

export type FuzzionEvent =
  | { type: 'ACCEPT' }
  | { type: 'DECLINE' }
  /** "Use another address": the offer is given up. */
  | { type: 'CANCEL' }
  | { type: 'BACK' }
  /** One of the other account's methods, by its id in the offer (a phone one with its channel). */
  | { type: 'SELECT'; id: number; channel?: FuzzionChannel }
  | { type: 'USE_PASSWORD' }
  | { type: 'TYPE_PASSWORD'; value: string }
  /** The password typed; `captcha`: the widget's answer, once the server wants one. */
  | { type: 'SUBMIT'; captcha?: CaptchaAnswer }
  /** From the code entry, once it sent a new code for the method chosen. */
  | CodeSent;

/** The ends of the calls whose answers the guards and actions read. */
type FuzzionDoneEvent =
  | DoneActorEvent<FuzzionMemory, 'recall'>
  | DoneActorEvent<FuzzionOffer, 'readOffer'>
  | DoneActorEvent<FuzzionSendAnswer, 'startMethod' | 'startPasskey'>
  | DoneActorEvent<PasskeyCredential, 'askPasskey'>
  | DoneActorEvent<FuzzionAnswer, 'checkPasskey'>
  | DoneActorEvent<void, 'cancel'>
  | DoneActorEvent<CodeEntryOutput<FuzzionAnswer>, 'fuzzionCode'>;
type FuzzionFlowEvent = FuzzionEvent | FuzzionDoneEvent;

/** Failures after which this offer cannot go on: the technical error, or an offer no longer valid. */
const FINAL_FAILURES: readonly ProblemCode[] = ['merge_unavailable', 'step_up_required', 'unauthorized'];

/** A refusal for want of a (harder) puzzle: the password was not checked, so it stays. */
const PUZZLE_REFUSALS: readonly ProblemCode[] = ['captcha_required', 'captcha_invalid'];

/** The code a failure carries: a call's error, or the failure a code entry ended with. */
function failureCodeOf(event: FuzzionFlowEvent): ProblemCode | null {
  if (event.type === 'xstate.done.actor.fuzzionCode') return event.output.failure?.code ?? null;
  return 'error' in event ? problemOf(event).code : null;
}

/** The failure as the screen shows it: the failure a code entry ended with. */
function failureOf(ended: CodeEntryOutput<unknown>): Problem {
  return ended.failure ?? problemFromCode('internal_error');
}

/** The methods that count here: the typed ones, and the passkeys where this browser can use them. */
const usableHere = (context: Pick<Context, 'passkeysHere'>, methods: readonly MfaMethodSummary[]) =>
  methods.filter((m) => context.passkeysHere || isTypedMethod(m));

/** The request that starts (or starts again) the method chosen. */
const methodRequest = ({ context }: { context: Context }): MethodRequest => ({
  payload: context.payload!,
  mfaId: context.selected!.id,
  ...(context.channel ? { channel: context.channel } : {}),
});

export const fuzzionMachine = setup({
  types: {
    context: {} as Context,
    input: {} as FuzzionInput,
    events: {} as FuzzionFlowEvent,
  },
  actors: {
    /** What this tab kept of the merge (the app's session storage). */
    recall: fromPromise<FuzzionMemory>(async () => ({ payload: null, result: null })),
    readOffer: fromPromise<FuzzionOffer, { payload: string }>(async () => {
      throw new Error('readOffer is provided by the app');
    }),
    /** POST /mfa/fuzzion: a code to the method's own destination, or the challenge of one at hand. */
    startMethod: fromPromise<FuzzionSendAnswer, MethodRequest>(async () => {
      throw new Error('startMethod is provided by the app');
    }),
    /** The browser asks the passkey to sign the challenge (WebAuthn's get). */
    askPasskey: fromPromise<PasskeyCredential, PasskeyOptions>(async () => {
      throw new Error('askPasskey is provided by the app');
    }),
    /** POST /fuzzion with the passkey's signed answer. */
    checkPasskey: fromPromise<FuzzionAnswer, FuzzionPasskeyAnswer>(async () => {
      throw new Error('checkPasskey is provided by the app');
    }),
    proveByPassword: fromPromise<
      FuzzionAnswer,
      { payload: string; intent: FuzzionIntent; password: string; captcha: string | null }
    >(async () => {
      throw new Error('proveByPassword is provided by the app');
    }),
    /** POST /fuzzion/finish: nothing more to prove (the other account has no second factor). */
    finish: fromPromise<FuzzionAnswer, { payload: string; intent: FuzzionIntent }>(async () => {
      throw new Error('finish is provided by the app');
    }),
    /** POST /fuzzion/cancel: the session's open offer is spent. */
    cancel: fromPromise<void>(async () => {
      throw new Error('cancel is provided by the app');
    }),
    // Its check sends the answer with the offer and the intent (the app provides it).
    fuzzionCode: codeEntryMachineOf<FuzzionAnswer, FuzzionResend>(),
  },
  actions: {
    /** The app keeps a finished outcome for Back and reload. */
    finished: (_, _params: { result: FuzzionResult }) => {},
    /** The app shows the step's screen (the route table's path of it; the proofs' with the methods). */
    show: (_, _params: { screen: FuzzionInput['step']; methods?: number[] }) => {},
    /** The app keeps the choice for the proofs' screen. */
    chose: (_, _params: { intent: FuzzionIntent }) => {},
    /** The app shows where another address is added (the offer given up). */
    leave: () => {},
    /** The root keeps the session on the merge's screens until the offer closes. */
    opened: sendParent(({ context }): FuzzionNews => ({ type: 'MERGE_OPENED', until: context.offer!.expires_at })),
    closed: sendParent((): FuzzionNews => ({ type: 'MERGE_CLOSED' })),
    /** The offer as the server reads it: what it still names as proofs. */
    takeOffer: assign(({ context, event }) => {
      assertEvent(event, 'xstate.done.actor.readOffer');
      return {
        offer: event.output,
        methods: usableHere(context, event.output.methods),
        passwordCounts: event.output.password,
      };
    }),
    /** The challenge a method's start answered: timed only for a code Tessera sent. */
    takeChallenge: assign(({ context, event }) => {
      assertEvent(event, ['xstate.done.actor.startMethod', 'CODE_SENT']);
      if (event.type === 'CODE_SENT')
        return { challenge: { payload: readFuzzionTicket(event.ticket).challenge, sent: event.sent }, error: null };
      const answer = event.output;
      return {
        challenge: { payload: answer.payload, sent: CODED.has(context.selected!.method) ? sentCodeOf(answer) : null },
        error: null,
      };
    }),
  },
  guards: {
    /** This browser cannot use a passkey (no WebAuthn, or none on this host): the app says. */
    noPasskeyHere: () => false,
    hasResult: ({ context }) => context.result !== null,
    hasPayload: ({ context }) => context.payload !== null,
    /** Started on the outcome's screen, with no outcome to show. */
    atSuccess: ({ context }) => context.step === 'success',
    /** Started on the further proofs' screen (a proof asked for more, or a reload there), with the
     * choice kept and something still to prove. */
    resumesProofs: ({ context, event }) =>
      context.step === 'proofs' &&
      context.intentKept &&
      event.type === 'xstate.done.actor.readOffer' &&
      !event.output.enough &&
      (usableHere(context, event.output.methods).length > 0 || event.output.password),
    /** The method /duplicated's query asked for: one the server names, for an offer about that target.
     * A passkey waits for the person's press: the browser asks for it only then. */
    preferredMethod: ({ context }) =>
      !!context.preferred &&
      (context.preferred.target === null || context.preferred.target === context.offer?.target) &&
      context.methods.some((m) => m.id === context.preferred!.method && isTypedMethod(m)),
    canDecline: ({ context }) => context.offer?.can_decline === true,
    /** The other account signs in with Microsoft only: nothing can be proven here. */
    ssoOnlyOffer: ({ event }) => event.type === 'xstate.done.actor.readOffer' && event.output.sso_only === true,
    /** Nothing more to prove: the code was enough (the other account has no second factor). */
    enough: ({ context }) => context.offer?.enough === true,
    /** Something still counts as a proof: one of its methods, or its password. */
    provable: ({ context }) => context.methods.length > 0 || context.passwordCounts,
    /** A method the server still names: never one it did not offer. */
    knownMethod: ({ context, event }) => event.type === 'SELECT' && context.methods.some((m) => m.id === event.id),
    passkeyChosen: ({ context, event }) =>
      event.type === 'SELECT' && context.methods.some((m) => m.id === event.id && m.method === 'passkey'),
    /** The passkey's challenge came with what the browser is to ask. */
    passkeyAsked: ({ event }) => event.type === 'xstate.done.actor.startPasskey' && event.output.passkey !== undefined,
    passwordCounts: ({ context }) => context.passwordCounts,
    typedPassword: ({ context }) => context.password.length > 0,
    /** A password typed, but the puzzle the server wants is not solved (yet). */
    passwordCaptchaRefused: ({ context, event }) =>
      context.password.length > 0 && context.captchaLevel !== null && captchaRefused({ event }),
    failedWith: ({ event }, { codes }: { codes: readonly ProblemCode[] }) => {
      const code = failureCodeOf(event);
      return code !== null && codes.includes(code);
    },
    codeChecked: ({ event }) => event.type === 'xstate.done.actor.fuzzionCode' && event.output.result != null,
    done: ({ context }) => context.answer?.done === true && context.answer.data !== undefined,
    /** Not done, and the server names nothing that would still count. */
    nothingLeft: ({ context }) =>
      usableHere(context, context.answer?.mfa ?? []).length === 0 && context.answer?.password !== true,
  },
}).createMachine({
  id: 'fuzzion',
  context: ({ input }) => ({
    step: input.step,
    payload: null,
    result: null,
    intentKept: false,
    preferred:
      input.step === 'offer' && input.method != null ? { target: input.target ?? null, method: input.method } : null,
    offer: null,
    intent: 'merge',
    passkeysHere: true,
    methods: [],
    passwordCounts: false,
    selected: null,
    passkey: null,
    passkeyChallenge: null,
    channel: null,
    challenge: null,
    password: '',
    captchaLevel: null,
    error: null,
    moreNeeded: false,
    answer: null,
  }),
  initial: 'sensing',
  states: {
    // A browser that cannot use a passkey here is offered none.
    sensing: {
      always: [
        { guard: 'noPasskeyHere', target: 'recalling', actions: assign({ passkeysHere: false }) },
        { target: 'recalling' },
      ],
    },
    recalling: {
      invoke: {
        id: 'recall',
        src: 'recall',
        onDone: {
          target: 'starting',
          actions: assign({
            payload: ({ event }) => event.output.payload,
            result: ({ event }) => event.output.result,
            intent: ({ event }) => event.output.intent ?? 'merge',
            intentKept: ({ event }) => !!event.output.intent,
          }),
        },
        onError: 'starting',
      },
    },
    // The outcome's screen shows only after a merge: without one, the offer's.
    starting: {
      always: [
        { guard: 'hasResult', target: 'succeeded' },
        // The offer's screen starts the flow again there: nothing is read here first.
        { guard: 'atSuccess', target: 'toOffer', actions: { type: 'show', params: { screen: 'offer' } } },
        { guard: 'hasPayload', target: 'loading' },
        { target: 'failed', actions: assign({ error: problemFromCode('merge_unavailable') }) },
      ],
    },
    // The offer as the server now sees it (also after a finish it refused: the proofs changed).
    loading: {
      tags: ['busy'],
      invoke: {
        id: 'readOffer',
        src: 'readOffer',
        input: ({ context }) => ({ payload: context.payload! }),
        onDone: [
          {
            guard: 'ssoOnlyOffer',
            target: 'ssoOnly',
            actions: [assign({ offer: ({ event }) => event.output }), 'opened'],
          },
          {
            guard: 'resumesProofs',
            target: 'proving.choosing',
            actions: ['takeOffer', assign({ moreNeeded: true }), 'opened'],
          },
          { target: 'offered', actions: ['takeOffer', 'opened'] },
        ],
        onError: [
          { guard: { type: 'failedWith', params: { codes: ['merge_sso_only'] } }, target: 'ssoOnly' },
          // No open offer here any more (spent, cancelled, expired): the session is out of the merge.
          {
            guard: { type: 'failedWith', params: { codes: ['merge_unavailable'] } },
            target: 'failed',
            actions: [assign({ error: ({ event }) => problemOf(event) }), 'closed'],
          },
          { target: 'failed', actions: assign({ error: ({ event }) => problemOf(event) }) },
        ],
      },
    },
    // The offer: this address or number is on another account; merge it into this one, or take the
    // address off it?
    offered: {
      on: {
        ACCEPT: {
          target: 'deciding',
          actions: [assign({ intent: 'merge' as const, error: null }), { type: 'chose', params: { intent: 'merge' } }],
        },
        DECLINE: [
          {
            guard: 'canDecline',
            target: 'deciding',
            actions: [
              assign({ intent: 'decline' as const, error: null }),
              { type: 'chose', params: { intent: 'decline' } },
            ],
          },
          { target: 'cannotDecline', actions: assign({ error: null }) },
        ],
        CANCEL: 'cancelling',
      },
    },
    // "Use another address": the offer is spent, and the person goes back to adding one.
    cancelling: {
      tags: ['busy'],
      invoke: {
        id: 'cancel',
        src: 'cancel',
        onDone: 'cancelled',
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    // The code was enough, or the other account's second factor comes next.
    deciding: {
      always: [
        { guard: 'enough', target: 'finishing' },
        { guard: 'provable', target: 'proving' },
        // Not enough, and nothing named that would count: the offer cannot go on.
        { target: 'failed', actions: assign({ error: problemFromCode('merge_unavailable') }) },
      ],
    },
    // The other account would be left without an email or a phone: use another address or number.
    cannotDecline: {
      on: { BACK: 'offered', CANCEL: 'cancelling' },
    },
    finishing: {
      tags: ['busy'],
      invoke: {
        id: 'finish',
        src: 'finish',
        input: ({ context }) => ({ payload: context.payload!, intent: context.intent }),
        onDone: { target: 'proven', actions: assign({ answer: ({ event }) => event.output }) },
        onError: [
          { guard: { type: 'failedWith', params: { codes: ['merge_sso_only'] } }, target: 'ssoOnly' },
          // The other account has a second factor by now: read the offer again, which names it.
          {
            guard: { type: 'failedWith', params: { codes: ['merge_proof_required'] } },
            target: 'loading',
            actions: assign({ error: ({ event }) => problemOf(event) }),
          },
          { guard: { type: 'failedWith', params: { codes: ['decline_unavailable'] } }, target: 'cannotDecline' },
          {
            guard: { type: 'failedWith', params: { codes: FINAL_FAILURES } },
            target: 'failed',
            actions: assign({ error: ({ event }) => problemOf(event) }),
          },
          { target: 'offered', actions: assign({ error: ({ event }) => problemOf(event) }) },
        ],
      },
    },
    proving: {
      on: {
        BACK: {
          target: 'offered',
          actions: assign({ selected: null, channel: null, challenge: null, passkey: null, password: '', error: null }),
        },
        CANCEL: '#fuzzion.cancelling',
      },
      initial: 'choosing',
      states: {
        // One of the other account's methods, or its password where it counts; the one /duplicated's
        // query named starts at once (once).
        choosing: {
          always: {
            guard: 'preferredMethod',
            target: 'starting',
            actions: assign(({ context }) => ({
              selected: context.methods.filter(isTypedMethod).find((m) => m.id === context.preferred!.method)!,
              channel: null,
              challenge: null,
              error: null,
              preferred: null,
            })),
          },
          on: {
            SELECT: [
              {
                guard: 'passkeyChosen',
                target: 'passkey',
                actions: assign(({ context, event }) => passkeyPicked(context.methods, event.id)),
              },
              {
                guard: 'knownMethod',
                target: 'starting',
                actions: assign(({ context, event }) => methodPicked(context.methods, event.id, event.channel)),
              },
            ],
            USE_PASSWORD: {
              guard: 'passwordCounts',
              target: 'password',
              actions: assign({ selected: null, passkey: null, channel: null, error: null }),
            },
          },
        },
        starting: {
          tags: ['busy'],
          invoke: {
            id: 'startMethod',
            src: 'startMethod',
            input: methodRequest,
            onDone: { target: 'entering', actions: 'takeChallenge' },
            onError: [
              { guard: { type: 'failedWith', params: { codes: ['merge_sso_only'] } }, target: '#fuzzion.ssoOnly' },
              {
                guard: { type: 'failedWith', params: { codes: FINAL_FAILURES } },
                target: '#fuzzion.failed',
                actions: assign({ error: ({ event }) => problemOf(event) }),
              },
              { target: 'choosing', actions: assign({ error: ({ event }) => problemOf(event) }) },
            ],
          },
        },
        // The method's answer, typed in the shared code entry (its length and timers by kind).
        entering: {
          invoke: {
            id: 'fuzzionCode',
            src: 'fuzzionCode',
            input: ({ context }) => ({
              ticket: fuzzionTicket({
                payload: context.payload!,
                intent: context.intent,
                challenge: context.challenge!.payload,
              }),
              length: CODE_LENGTH[context.selected!.method],
              sent: context.challenge!.sent,
              error: context.error,
              endsOn: ['challenge_closed', 'code_expired', 'merge_sso_only', ...FINAL_FAILURES],
              // A code Tessera sent can be sent again; an answer at hand cannot.
              resend: CODED.has(context.selected!.method)
                ? { method: methodRequest({ context }), intent: context.intent }
                : null,
              followsDelivery: CODED.has(context.selected!.method),
            }),
            onDone: [
              {
                guard: 'codeChecked',
                target: '#fuzzion.proven',
                actions: assign({ challenge: null, error: null, answer: ({ event }) => event.output.result }),
              },
              {
                guard: { type: 'failedWith', params: { codes: ['merge_sso_only'] } },
                target: '#fuzzion.ssoOnly',
                actions: assign({ challenge: null }),
              },
              {
                guard: { type: 'failedWith', params: { codes: FINAL_FAILURES } },
                target: '#fuzzion.failed',
                actions: assign({ challenge: null, error: ({ event }) => failureOf(event.output) }),
              },
              // The challenge can no longer be answered: choose again (a new code, or another method).
              {
                target: 'choosing',
                actions: assign({ challenge: null, error: ({ event }) => failureOf(event.output) }),
              },
            ],
          },
          on: {
            CODE_SENT: { actions: 'takeChallenge' },
            BACK: { target: 'choosing', actions: assign({ challenge: null, error: null }) },
          },
        },
        // A passkey: its challenge, the browser's question, the server's check, on the choice's screen
        // (no code to type). A failure that leaves the offer open goes back to the choice, saying why.
        passkey: {
          initial: 'starting',
          states: {
            starting: {
              tags: ['busy'],
              invoke: {
                id: 'startPasskey',
                src: 'startMethod',
                input: ({ context }): MethodRequest => ({ payload: context.payload!, mfaId: context.passkey!.id }),
                onDone: [
                  {
                    guard: 'passkeyAsked',
                    target: 'asking',
                    actions: assign(({ event }) => ({
                      passkeyChallenge: { payload: event.output.payload, options: event.output.passkey! },
                    })),
                  },
                  // An answer with nothing to ask the browser: as if the browser could not.
                  {
                    target: '#fuzzion.proving.choosing',
                    actions: assign({ error: problemFromCode('passkey_unavailable') }),
                  },
                ],
                onError: [
                  { guard: { type: 'failedWith', params: { codes: ['merge_sso_only'] } }, target: '#fuzzion.ssoOnly' },
                  {
                    guard: { type: 'failedWith', params: { codes: FINAL_FAILURES } },
                    target: '#fuzzion.failed',
                    actions: assign({ error: ({ event }) => problemOf(event) }),
                  },
                  { target: '#fuzzion.proving.choosing', actions: assign({ error: ({ event }) => problemOf(event) }) },
                ],
              },
            },
            asking: {
              tags: ['busy'],
              invoke: {
                id: 'askPasskey',
                src: 'askPasskey',
                input: ({ context }) => context.passkeyChallenge!.options,
                onDone: 'checking',
                // Cancelled (or timed out), or the browser could not: choose again.
                onError: {
                  target: '#fuzzion.proving.choosing',
                  actions: assign({ error: ({ event }) => passkeyProblemOf(event) }),
                },
              },
            },
            checking: {
              tags: ['busy'],
              invoke: {
                id: 'checkPasskey',
                src: 'checkPasskey',
                // The signed answer goes with the request only.
                input: ({ context, event }): FuzzionPasskeyAnswer => {
                  assertEvent(event, 'xstate.done.actor.askPasskey');
                  return {
                    payload: context.payload!,
                    intent: context.intent,
                    challenge: context.passkeyChallenge!.payload,
                    credential: event.output,
                  };
                },
                onDone: {
                  target: '#fuzzion.proven',
                  actions: assign({ error: null, answer: ({ event }) => event.output }),
                },
                onError: [
                  { guard: { type: 'failedWith', params: { codes: ['merge_sso_only'] } }, target: '#fuzzion.ssoOnly' },
                  {
                    guard: { type: 'failedWith', params: { codes: FINAL_FAILURES } },
                    target: '#fuzzion.failed',
                    actions: assign({ error: ({ event }) => problemOf(event) }),
                  },
                  // Refused (passkey_refused), or its challenge no longer answers: choose again.
                  { target: '#fuzzion.proving.choosing', actions: assign({ error: ({ event }) => problemOf(event) }) },
                ],
              },
            },
          },
          exit: assign({ passkeyChallenge: null }),
        },
        password: {
          on: {
            TYPE_PASSWORD: { actions: assign({ password: ({ event }) => event.value, error: null }) },
            SUBMIT: [
              { guard: 'passwordCaptchaRefused', actions: assign({ error: captchaProblem }) },
              { guard: 'typedPassword', target: 'checkingPassword' },
            ],
            BACK: { target: 'choosing', actions: assign({ password: '', error: null }) },
          },
        },
        checkingPassword: {
          tags: ['busy'],
          invoke: {
            id: 'proveByPassword',
            src: 'proveByPassword',
            input: ({ context, event }) => ({
              payload: context.payload!,
              intent: context.intent,
              password: context.password,
              captcha: captchaToken({ event }),
            }),
            onDone: {
              target: '#fuzzion.proven',
              actions: assign({ password: '', error: null, answer: ({ event }) => event.output }),
            },
            onError: [
              {
                guard: { type: 'failedWith', params: { codes: ['merge_sso_only'] } },
                target: '#fuzzion.ssoOnly',
                actions: assign({ password: '' }),
              },
              {
                guard: { type: 'failedWith', params: { codes: FINAL_FAILURES } },
                target: '#fuzzion.failed',
                actions: assign({ password: '', error: ({ event }) => problemOf(event) }),
              },
              {
                target: 'password',
                actions: assign(({ context, event }) => ({
                  password: PUZZLE_REFUSALS.includes(problemOf(event).code) ? context.password : '',
                  error: problemOf(event),
                  captchaLevel: nextCaptchaLevel({ context, event }),
                })),
              },
            ],
          },
        },
      },
    },
    // A proof was taken (or the finish answered): done, or the server names what still counts.
    proven: {
      always: [
        {
          guard: 'done',
          target: 'succeeded',
          actions: [
            assign({ result: ({ context }) => context.answer!.data! }),
            { type: 'finished', params: ({ context }) => ({ result: context.answer!.data! }) },
          ],
        },
        { guard: 'nothingLeft', target: 'failed', actions: assign({ error: problemFromCode('merge_unavailable') }) },
        // More is asked: the chooser on mfa-methods, with the methods that still count (spec §4).
        {
          target: 'proving.choosing',
          actions: [
            assign(({ context }) => ({
              methods: usableHere(context, context.answer!.mfa),
              passwordCounts: context.answer!.password,
              moreNeeded: true,
              selected: null,
              passkey: null,
              channel: null,
              error: null,
              preferred: null,
            })),
            {
              type: 'show',
              params: ({ context }) => ({ screen: 'proofs' as const, methods: context.methods.map((m) => m.id) }),
            },
          ],
        },
      ],
    },
    // On the outcome's screen with no outcome: the offer's screen is asked for, where the flow starts anew.
    toOffer: { type: 'final' },
    // Merged, or the address taken off the other account: the success screen.
    succeeded: { type: 'final', entry: ['closed', { type: 'show', params: { screen: 'success' } }] },
    // Given up: back to adding another address.
    cancelled: { type: 'final', entry: ['closed', 'leave'] },
    // The other account signs in with Microsoft only: it is proven there, not here; another address.
    ssoOnly: { on: { CANCEL: 'cancelling' } },
    // The spec's technical error, or an offer that cannot go on: another address.
    failed: { on: { CANCEL: 'cancelling' } },
  },
});
