// Adding an authenticator app (spec §2 "Authenticator setup"): scan the QR code or type the key,
// confirm with its first 6-digit code (the shared code entry; nothing was sent, so no timers), then
// the recovery keys are shown once. After the recovery screen's reset (`reset`, spec §4 "TOTP
// recovery"), the set-up replaces the authenticator the account may still have: new key, new keys.
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { CODE_LENGTH } from '../contract/rules.ts';
import { codeEntryMachineOf } from './codeEntry.ts';
import { problemOf, type Problem } from './failures.ts';

export type TotpStart = null | { payload: string; data: { secret?: string; otpauth_url?: string; qr_svg?: string } };

type Context = {
  /** Set up again after a reset: an authenticator still there is replaced, not kept. */
  reset: boolean;
  /** Opened to show keys the recovery screen made (`isRegenerated`): nothing to set up. */
  regenerated: boolean;
  payload: string | null;
  secret: string | null;
  qrSvg: string | null;
  /** The otpauth:// link: on a phone, it opens the authenticator app with the key in it. */
  otpauthUrl: string | null;
  keys: string[] | null;
  error: Problem | null;
};

export const authenticatorMachine = setup({
  types: {
    context: {} as Context,
    input: {} as { reset?: boolean; regeneratedKeys?: string[] | null },
    output: {} as { regenerated: boolean },
    events: {} as { type: 'CONTINUE' } | { type: 'RETRY' } | DoneActorEvent<TotpStart, 'startTotp'>,
    children: {} as { codeEntry: 'codeEntry' },
  },
  actors: {
    startTotp: fromPromise<TotpStart, { reset: boolean }>(async () => {
      throw new Error('startTotp is provided by the app');
    }),
    /** The app's first code; its check answers the recovery keys. */
    codeEntry: codeEntryMachineOf<{ recovery_keys?: string[] }>(),
  },
  actions: {
    /** `regenerated`: the success page of keys the recovery screen made (spec: ?isRegenerated=true). */
    show: (_, _params: { screen: 'success'; regenerated: boolean }) => {},
  },
  guards: {
    alreadySet: ({ event }) => event.type === 'xstate.done.actor.startTotp' && event.output === null,
    regenerated: ({ context }) => context.regenerated,
  },
}).createMachine({
  id: 'authenticator',
  context: ({ input }) => ({
    reset: input.reset === true,
    regenerated: !!input.regeneratedKeys,
    payload: null,
    secret: null,
    qrSvg: null,
    otpauthUrl: null,
    keys: input.regeneratedKeys ?? null,
    error: null,
  }),
  initial: 'opening',
  states: {
    opening: { always: [{ guard: 'regenerated', target: 'showingKeys' }, { target: 'starting' }] },
    starting: {
      invoke: {
        id: 'startTotp',
        src: 'startTotp',
        input: ({ context }) => ({ reset: context.reset }),
        onDone: [
          { guard: 'alreadySet', target: 'done' },
          {
            target: 'scanning',
            actions: assign(({ event }) => ({
              payload: event.output!.payload,
              secret: event.output!.data.secret ?? null,
              qrSvg: event.output!.data.qr_svg ?? null,
              otpauthUrl: event.output!.data.otpauth_url ?? null,
            })),
          },
        ],
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    failed: { on: { RETRY: 'starting' } },
    scanning: {
      invoke: {
        id: 'codeEntry',
        src: 'codeEntry',
        input: ({ context }) => ({ ticket: context.payload!, length: CODE_LENGTH.totp, sent: null }),
        onDone: {
          target: 'showingKeys',
          actions: assign({ keys: ({ event }) => event.output.result?.recovery_keys ?? [] }),
        },
      },
    },
    showingKeys: {
      entry: { type: 'show', params: ({ context }) => ({ screen: 'success', regenerated: context.regenerated }) },
      on: { CONTINUE: 'done' },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => ({ regenerated: context.regenerated }),
});
