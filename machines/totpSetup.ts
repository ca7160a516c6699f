// Adding an authenticator app (spec §2 "Authenticator setup"): scan the QR code or type the key,
// confirm with a 6-digit code, then the recovery keys are shown once.
import { assign, fromPromise, setup } from 'xstate';
import { sanitiseCodeInput } from '../contract/rules.ts';
import { problemOf, type Problem } from './failures.ts';

export type TotpStart = null | { payload: string; data: { secret?: string; otpauth_url?: string; qr_svg?: string } };

type Context = {
  payload: string | null; secret: string | null; qrSvg: string | null;
  code: string; keys: string[] | null; error: Problem | null;
};

export const totpSetupMachine = setup({
  types: {
    context: {} as Context,
    events: {} as { type: 'CHANGE'; value: string } | { type: 'SUBMIT' } | { type: 'CONTINUE' } | { type: 'RETRY' },
  },
  actors: {
    startTotp: fromPromise<TotpStart>(async () => { throw new Error('startTotp is provided by the app'); }),
    confirmTotp: fromPromise<{ recovery_keys?: string[] }, { payload: string; code: string }>(async () => {
      throw new Error('confirmTotp is provided by the app');
    }),
  },
  actions: {
    show: (_, _params: { screen: 'success' }) => {},
  },
  guards: {
    alreadySet: ({ event }) => (event as { output?: TotpStart }).output === null,
    sixDigits: ({ context }) => /^\d{6}$/.test(context.code),
  },
}).createMachine({
  id: 'totpSetup',
  context: { payload: null, secret: null, qrSvg: null, code: '', keys: null, error: null },
  initial: 'starting',
  states: {
    starting: {
      invoke: {
        id: 'startTotp',
        src: 'startTotp',
        onDone: [
          { guard: 'alreadySet', target: 'done' },
          {
            target: 'scanning',
            actions: assign(({ event }) => ({ payload: event.output!.payload, secret: event.output!.data.secret ?? null, qrSvg: event.output!.data.qr_svg ?? null })),
          },
        ],
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    failed: { on: { RETRY: 'starting' } },
    scanning: {
      on: {
        CHANGE: { actions: assign(({ event }) => ({ code: sanitiseCodeInput(event.value).slice(0, 6), error: null })) },
        SUBMIT: { guard: 'sixDigits', target: 'verifying' },
      },
    },
    verifying: {
      invoke: {
        id: 'confirmTotp',
        src: 'confirmTotp',
        input: ({ context }) => ({ payload: context.payload!, code: context.code }),
        onDone: { target: 'showingKeys', actions: assign({ keys: ({ event }) => event.output.recovery_keys ?? [] }) },
        onError: { target: 'scanning', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    showingKeys: {
      entry: { type: 'show', params: { screen: 'success' } },
      on: { CONTINUE: 'done' },
    },
    done: { type: 'final' },
  },
});
