// The merge of a duplicated account (spec §4 "Duplicate-account merge (fuzzion)", screens /duplicated
// and /fuzzion-success). Adding an address or number found it on another account; the offer's
// payload came with that answer. The person accepts or declines, proves the other account is theirs
// (a code sent to the address, its password or one of its cards; as many proofs as the server
// asks), and the server merges, or takes the address off the other account. Every proof is the
// server's to judge: this machine only never offers a step before the one it follows.
import { assign, fromPromise, setup } from 'xstate';
import type { FuzzionAnswer, FuzzionIntent, FuzzionOffer, FuzzionProof, FuzzionSendAnswer } from '../contract/merge.ts';
import { codeEntryMachineOf, sentCodeOf, type SentCode } from './codeEntry.ts';
import { problemCodeOf, type ProblemCode } from './failures.ts';

/** What a finished merge or decline leaves the account with (the success screen shows it). */
export type FuzzionResult = NonNullable<FuzzionAnswer['data']>;

export type FuzzionInput = {
  /** The offer, from the "already in use" answer; null when there is none (a typed address). */
  payload: string | null;
  /** A merge or decline this tab already finished (Back or reload after it). */
  result: FuzzionResult | null;
};

type Context = FuzzionInput & {
  offer: FuzzionOffer | null;
  intent: FuzzionIntent;
  /** The proofs still possible, the server's list after each proof. */
  left: FuzzionProof[];
  password: string;
  card: string;
  challenge: { payload: string; sent: SentCode } | null;
  error: ProblemCode | null;
  /** A proof was taken and the server asks for another. */
  moreNeeded: boolean;
  /** The server's answer to the last proof taken. */
  answer: FuzzionAnswer | null;
};

export type FuzzionEvent =
  | { type: 'ACCEPT' } | { type: 'DECLINE' } | { type: 'BACK' }
  | { type: 'CHOOSE'; proof: FuzzionProof }
  | { type: 'TYPE_PASSWORD'; value: string } | { type: 'TYPE_CARD'; value: string } | { type: 'SUBMIT' }
  | { type: 'RESEND' };

/** Failures after which this offer cannot go on: the technical error, or an offer no longer valid. */
const FINAL_FAILURES: readonly ProblemCode[] = ['merge_unavailable', 'step_up_required', 'unauthorized'];

export const fuzzionMachine = setup({
  types: {
    context: {} as Context,
    input: {} as FuzzionInput,
    events: {} as FuzzionEvent,
  },
  actors: {
    readOffer: fromPromise<FuzzionOffer, { payload: string }>(async () => {
      throw new Error('readOffer is provided by the app');
    }),
    sendCode: fromPromise<FuzzionSendAnswer, { payload: string }>(async () => {
      throw new Error('sendCode is provided by the app');
    }),
    proveByPassword: fromPromise<FuzzionAnswer, { payload: string; intent: FuzzionIntent; password: string }>(async () => {
      throw new Error('proveByPassword is provided by the app');
    }),
    proveByCard: fromPromise<FuzzionAnswer, { payload: string; intent: FuzzionIntent; card: string }>(async () => {
      throw new Error('proveByCard is provided by the app');
    }),
    // Its check sends the code with the offer and the intent (the app provides it).
    fuzzionCode: codeEntryMachineOf<FuzzionAnswer>(),
  },
  actions: {
    /** The app keeps a finished outcome for Back and reload, and shows the success screen. */
    finished: (_, _params: { result: FuzzionResult }) => {},
  },
  guards: {
    hasResult: ({ context }) => context.result !== null,
    hasPayload: ({ context }) => context.payload !== null,
    canDecline: ({ context }) => context.offer?.can_decline === true,
    /** A proof the server still names: never one it has taken already. */
    chose: ({ context, event }, { proof }: { proof: FuzzionProof }) => event.type === 'CHOOSE' && event.proof === proof && context.left.includes(proof),
    typedPassword: ({ context }) => context.password.length > 0,
    typedCard: ({ context }) => context.card.replace(/\s+/g, '').length > 0,
    final: ({ event }) => FINAL_FAILURES.includes(problemCodeOf(event)),
    codeFinal: ({ event }) => {
      const output = (event as { output?: { failure: { code: ProblemCode } | null } }).output;
      return output?.failure != null && FINAL_FAILURES.includes(output.failure.code);
    },
    done: ({ context }) => context.answer?.done === true && context.answer.data !== undefined,
    codeChecked: ({ event }) => (event as { output?: { result: FuzzionAnswer | null } }).output?.result != null,
  },
}).createMachine({
  id: 'fuzzion',
  context: ({ input }) => ({
    ...input, offer: null, intent: 'merge', left: [], password: '', card: '', challenge: null, error: null, moreNeeded: false, answer: null,
  }),
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: 'hasResult', target: 'succeeded' },
        { guard: 'hasPayload', target: 'loading' },
        { target: 'failed', actions: assign({ error: 'merge_unavailable' as const }) },
      ],
    },
    loading: {
      tags: ['busy'],
      invoke: {
        id: 'readOffer',
        src: 'readOffer',
        input: ({ context }) => ({ payload: context.payload! }),
        onDone: { target: 'offered', actions: assign({ offer: ({ event }) => event.output, left: ({ event }) => event.output.proofs }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    // The offer: this address or number is on another account; is that account yours too?
    offered: {
      on: {
        ACCEPT: { target: 'proving', actions: assign({ intent: 'merge' as const, error: null }) },
        DECLINE: [
          { guard: 'canDecline', target: 'proving', actions: assign({ intent: 'decline' as const, error: null }) },
          { target: 'cannotDecline' },
        ],
      },
    },
    // The other account would be left without an email or a phone: use another address or number.
    cannotDecline: {
      on: { BACK: 'offered' },
    },
    proving: {
      on: { BACK: { target: 'offered', actions: assign({ challenge: null, password: '', card: '', error: null, moreNeeded: false }) } },
      initial: 'choosing',
      states: {
        choosing: {
          on: {
            CHOOSE: [
              { guard: { type: 'chose', params: { proof: 'code' } }, target: 'sendingCode', actions: assign({ error: null }) },
              { guard: { type: 'chose', params: { proof: 'card' } }, target: 'card', actions: assign({ error: null }) },
              { guard: { type: 'chose', params: { proof: 'password' } }, target: 'password', actions: assign({ error: null }) },
            ],
          },
        },
        sendingCode: {
          tags: ['busy'],
          invoke: {
            id: 'sendCode',
            src: 'sendCode',
            input: ({ context }) => ({ payload: context.payload! }),
            onDone: { target: 'code', actions: assign({ challenge: ({ event }) => ({ payload: event.output.challenge, sent: sentCodeOf(event.output) }) }) },
            onError: [
              { guard: 'final', target: '#fuzzion.failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
              { target: 'choosing', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
            ],
          },
        },
        code: {
          on: { RESEND: 'sendingCode', CHOOSE: { target: 'choosing', actions: assign({ challenge: null }) } },
          invoke: {
            id: 'fuzzionCode',
            src: 'fuzzionCode',
            input: ({ context }) => ({ ticket: context.challenge!.payload, length: 8, sent: context.challenge!.sent, endsOn: ['challenge_closed', 'code_expired', ...FINAL_FAILURES] }),
            onDone: [
              { guard: 'codeChecked', target: '#fuzzion.proven', actions: assign({ challenge: null, answer: ({ event }) => event.output.result }) },
              { guard: 'codeFinal', target: '#fuzzion.failed', actions: assign({ error: ({ event }) => event.output.failure!.code }) },
              // The code can no longer be used: choose again (a new code, or another proof).
              { target: 'choosing', actions: assign({ challenge: null, error: ({ event }) => event.output.failure?.code ?? 'internal_error' }) },
            ],
          },
        },
        password: {
          on: {
            TYPE_PASSWORD: { actions: assign({ password: ({ event }) => event.value, error: null }) },
            SUBMIT: { guard: 'typedPassword', target: 'checkingPassword' },
            CHOOSE: { target: 'choosing', actions: assign({ password: '' }) },
          },
        },
        checkingPassword: {
          tags: ['busy'],
          invoke: {
            id: 'proveByPassword',
            src: 'proveByPassword',
            input: ({ context }) => ({ payload: context.payload!, intent: context.intent, password: context.password }),
            onDone: { target: '#fuzzion.proven', actions: assign({ password: '', answer: ({ event }) => event.output }) },
            onError: [
              { guard: 'final', target: '#fuzzion.failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
              { target: 'password', actions: assign({ password: '', error: ({ event }) => problemCodeOf(event) }) },
            ],
          },
        },
        card: {
          on: {
            TYPE_CARD: { actions: assign({ card: ({ event }) => event.value, error: null }) },
            SUBMIT: { guard: 'typedCard', target: 'checkingCard' },
            CHOOSE: { target: 'choosing', actions: assign({ card: '' }) },
          },
        },
        checkingCard: {
          tags: ['busy'],
          invoke: {
            id: 'proveByCard',
            src: 'proveByCard',
            input: ({ context }) => ({ payload: context.payload!, intent: context.intent, card: context.card }),
            onDone: { target: '#fuzzion.proven', actions: assign({ card: '', answer: ({ event }) => event.output }) },
            onError: [
              { guard: 'final', target: '#fuzzion.failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
              { target: 'card', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
            ],
          },
        },
      },
    },
    // A proof was taken: done, or the server names the proofs still possible.
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
        { target: 'proving.choosing', actions: assign({ left: ({ context }) => context.answer?.mfa ?? [], moreNeeded: true, error: null }) },
      ],
    },
    succeeded: {},
    // The spec's technical error, or an offer that cannot go on.
    failed: {},
  },
});
