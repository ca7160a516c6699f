// Entering a second-factor code (spec §2 "MFA code screen", §4 "MFA"): choose a method, have a
// code sent, type it while two timers run — expiry (900 s, from the server's answer) and the
// resend cooldown (30 s, then 15 s) — and finish with the server's answer. Pure: the calls are
// the `startChallenge` and `verifyCode` actors; screens change through the `show` action.
import { assign, fromPromise, setup } from 'xstate';
import type { MfaChallengeAnswer, MfaMethodSummary } from '../contract/schemas.ts';
import { sanitiseCodeInput } from '../contract/rules.ts';
import { expiryRegion, resendCooling } from './codeTimers.ts';
import { problemOf, type Problem } from './failures.ts';

export type Channel = 'email' | 'sms' | 'call' | 'whatsapp';
export type MfaCodeInput = {
  methods: MfaMethodSummary[];
  /** The sign-in's payload (POST /token's 401), when this completes a login. */
  loginPayload: string | null;
};
export type MfaCodeOutput = { method: MfaMethodSummary['method']; accessToken: string | null; recoveryKeysLeft: number | null };

type Context = {
  methods: MfaMethodSummary[];
  loginPayload: string | null;
  selected: MfaMethodSummary | null;
  channel: Channel | null;
  challenge: { payload: string; target: string | null; expiresAt: number; resendAt: number | null } | null;
  code: string;
  trust: boolean;
  error: Problem | null;
  result: MfaCodeOutput | null;
};

export type MfaCodeEvent =
  | { type: 'SELECT'; id: number; channel?: Channel }
  | { type: 'TYPE'; value: string }
  | { type: 'TOGGLE_TRUST' }
  | { type: 'SUBMIT' }
  | { type: 'RESEND' }
  | { type: 'CHANGE_METHOD' };

const CODED = new Set(['email', 'sms', 'call', 'whatsapp']);
const CODE_LENGTH: Record<string, number> = { email: 8, sms: 8, call: 8, whatsapp: 8, totp: 6, totpRecovery: 10, card: 16 };


export const mfaCodeMachine = setup({
  types: { context: {} as Context, events: {} as MfaCodeEvent, input: {} as MfaCodeInput, output: {} as MfaCodeOutput },
  actors: {
    startChallenge: fromPromise<MfaChallengeAnswer, { mfaId: number; loginPayload: string | null; channel: Channel | null }>(async () => {
      throw new Error('startChallenge is provided by the app');
    }),
    verifyCode: fromPromise<{ access_token?: string; recovery_keys_left?: number }, { payload: string; code: string; trust: boolean }>(async () => {
      throw new Error('verifyCode is provided by the app');
    }),
  },
  actions: {
    show: (_, _params: { screen: 'methods' | 'code' }) => {},
  },
  delays: {
    // Lengths come from the server's answer, so the countdown follows the server's expiry.
    expiry: ({ context }) => Math.max(0, (context.challenge?.expiresAt ?? 0) - Date.now()),
    resendCooldown: ({ context }) => Math.max(0, (context.challenge?.resendAt ?? 0) - Date.now()),
  },
  guards: {
    knownMethod: ({ context, event }) => event.type === 'SELECT' && context.methods.some((m) => m.id === event.id),
    complete: ({ context }) => context.code.length >= (CODE_LENGTH[context.selected?.method ?? 'email'] ?? 6),
    resendable: ({ context }) => CODED.has(context.selected?.method ?? ''),
    severalMethods: ({ context }) => context.methods.length > 1,
  },
}).createMachine({
  id: 'mfaCode',
  context: ({ input }) => ({
    methods: input.methods, loginPayload: input.loginPayload, selected: null, channel: null, challenge: null,
    code: '', trust: false, error: null, result: null,
  }),
  initial: 'choosing',
  states: {
    choosing: {
      entry: { type: 'show', params: { screen: 'methods' } },
      on: {
        SELECT: {
          guard: 'knownMethod',
          target: 'requesting',
          actions: assign(({ context, event }) => ({
            selected: context.methods.find((m) => m.id === event.id)!, channel: event.channel ?? null, error: null,
          })),
        },
      },
    },
    requesting: {
      invoke: {
        id: 'startChallenge',
        src: 'startChallenge',
        input: ({ context }) => ({ mfaId: context.selected!.id, loginPayload: context.loginPayload, channel: context.channel }),
        onDone: {
          target: 'entering',
          actions: assign(({ event }) => ({
            challenge: {
              payload: event.output.payload,
              target: event.output.target ?? null,
              expiresAt: Date.parse(event.output.expires_at),
              resendAt: event.output.resend_at ? Date.parse(event.output.resend_at) : null,
            },
            code: '',
            error: null,
          })),
        },
        onError: { target: 'choosing', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    entering: {
      entry: { type: 'show', params: { screen: 'code' } },
      type: 'parallel',
      on: {
        CHANGE_METHOD: { guard: 'severalMethods', target: 'choosing', actions: assign({ challenge: null, code: '', error: null }) },
      },
      states: {
        input: {
          initial: 'typing',
          states: {
            typing: {
              on: {
                // A wrong code's error shows until the user types again.
                TYPE: { actions: assign(({ event }) => ({ code: sanitiseCodeInput(event.value).slice(0, 16), error: null })) },
                TOGGLE_TRUST: { actions: assign(({ context }) => ({ trust: !context.trust })) },
                SUBMIT: { guard: 'complete', target: 'verifying' },
              },
            },
            verifying: {
              invoke: {
                id: 'verifyCode',
                src: 'verifyCode',
                input: ({ context }) => ({ payload: context.challenge!.payload, code: context.code, trust: context.trust }),
                onDone: {
                  target: '#mfaCode.done',
                  actions: assign(({ context, event }) => ({
                    result: {
                      method: context.selected!.method,
                      accessToken: event.output.access_token ?? null,
                      recoveryKeysLeft: event.output.recovery_keys_left ?? null,
                    },
                  })),
                },
                onError: { target: 'typing', actions: assign({ error: ({ event }) => problemOf(event) }) },
              },
            },
          },
        },
        expiry: expiryRegion,
        resend: {
          initial: 'cooling',
          states: {
            cooling: resendCooling,
            ready: {
              on: { RESEND: { guard: 'resendable', target: '#mfaCode.requesting' } },
            },
          },
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.result!,
});
