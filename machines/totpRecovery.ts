// After signing in with a recovery key (spec §4 "TOTP recovery"): the screen shows how many keys
// remain; the user skips, generates new keys (the old ones stop working; the authenticator's success
// page shows them once, /setup-totp/success?isRegenerated=true), or
// resets the authenticator (it is deleted, and the set-up of a new one follows; a failed delete is
// only noted, spec §8, since that set-up replaces the method anyway). Reached by a reload, it asks
// the server how many keys remain.
import { assign, fromPromise, setup } from 'xstate';
import { problemCodeOf, type ProblemCode } from './failures.ts';

/** How the screen is left: skipped, the authenticator reset, or new keys made (to show elsewhere). */
export type TotpRecoveryOutput = { outcome: 'done' | 'reset' } | { outcome: 'regenerated'; keys: string[] };

type Context = {
  keysLeft: number | null;
  keys: string[] | null;
  error: ProblemCode | null;
  outcome: TotpRecoveryOutput['outcome'];
};

export const totpRecoveryMachine = setup({
  types: {
    context: {} as Context,
    /** The keys left, as the sign-in's answer said; null after a reload (the server is asked). */
    input: {} as { keysLeft: number | null },
    events: {} as { type: 'SKIP' } | { type: 'REGENERATE' } | { type: 'RESET' },
    output: {} as TotpRecoveryOutput,
  },
  actors: {
    countKeys: fromPromise<number>(async () => {
      throw new Error('countKeys is provided by the app');
    }),
    regenerate: fromPromise<{ recovery_keys: string[] }>(async () => {
      throw new Error('regenerate is provided by the app');
    }),
    resetAuthenticator: fromPromise<void>(async () => {
      throw new Error('resetAuthenticator is provided by the app');
    }),
  },
  actions: {
    /** A failure the flow goes on after, for the app's log (provided by the app; nothing here). */
    note: (_, _params: { failure: ProblemCode }) => {},
  },
  guards: {
    /** After a reload the keys left are unknown: the server is asked. */
    uncounted: ({ context }) => context.keysLeft === null,
  },
}).createMachine({
  id: 'totpRecovery',
  context: ({ input }) => ({ keysLeft: input.keysLeft, keys: null, error: null, outcome: 'done' as const }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'uncounted', target: 'counting' }, { target: 'overview' }],
    },
    counting: {
      invoke: {
        id: 'countKeys',
        src: 'countKeys',
        onDone: { target: 'overview', actions: assign({ keysLeft: ({ event }) => event.output }) },
        // Without the count the screen still offers every way on; it reads as none left.
        onError: { target: 'overview', actions: assign({ keysLeft: 0 }) },
      },
    },
    overview: {
      on: {
        SKIP: 'done',
        REGENERATE: 'regenerating',
        RESET: 'resetting',
      },
    },
    regenerating: {
      invoke: {
        id: 'regenerate',
        src: 'regenerate',
        onDone: {
          target: 'done',
          actions: assign(({ event }) => ({ keys: event.output.recovery_keys, outcome: 'regenerated' as const })),
        },
        onError: { target: 'overview', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    resetting: {
      invoke: {
        id: 'resetAuthenticator',
        src: 'resetAuthenticator',
        onDone: { target: 'done', actions: assign({ outcome: 'reset' as const }) },
        onError: {
          target: 'done',
          actions: [
            { type: 'note', params: ({ event }) => ({ failure: problemCodeOf(event) }) },
            assign({ outcome: 'reset' as const }),
          ],
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }): TotpRecoveryOutput =>
    context.outcome === 'regenerated' ? { outcome: 'regenerated', keys: context.keys! } : { outcome: context.outcome },
});
