// The two-step settings of the security area (/security, mfa-edit, edit-recovery): the methods,
// switching the primary one, deleting one, regenerating recovery keys. The server refuses these
// changes without a recent second-factor check; the root machine gets that check first. Deleting a
// method and regenerating the keys ask first (they cannot be undone); new keys show until the
// person says they saved them. Opened after a method was added (`notice: 'added'`), it says so.
import { assertEvent, assign, fromPromise, setup } from 'xstate';
import type { MfaMethodSummary } from '../contract/schemas.ts';
import { problemCodeOf, type ProblemCode } from './failures.ts';

export type SettingsNotice = 'added' | 'switched' | 'deleted' | 'regenerated' | null;

/** A change that cannot be undone, waiting for the person's yes. */
export type PendingChange = { action: 'delete'; id: number } | { action: 'regenerate' };

type Context = {
  methods: MfaMethodSummary[];
  keys: string[] | null;
  error: ProblemCode | null;
  notice: SettingsNotice;
  pending: PendingChange | null;
};

export const securityMachine = setup({
  types: {
    context: {} as Context,
    input: {} as { notice?: SettingsNotice },
    events: {} as
      | { type: 'SWITCH'; id: number }
      | { type: 'DELETE'; id: number }
      | { type: 'REGENERATE' }
      | { type: 'DISMISS' }
      | { type: 'CONFIRM' }
      | { type: 'CANCEL' }
      /** The new recovery keys are kept somewhere safe: they can go from the screen. */
      | { type: 'SAVED' },
  },
  actors: {
    listMethods: fromPromise<MfaMethodSummary[]>(async () => {
      throw new Error('listMethods is provided by the app');
    }),
    switchPrimary: fromPromise<void, { id: number }>(async () => {
      throw new Error('switchPrimary is provided by the app');
    }),
    deleteMethod: fromPromise<void, { id: number }>(async () => {
      throw new Error('deleteMethod is provided by the app');
    }),
    regenerate: fromPromise<{ recovery_keys: string[] }>(async () => {
      throw new Error('regenerate is provided by the app');
    }),
  },
  guards: {
    deletionPending: ({ context }) => context.pending?.action === 'delete',
    knownMethod: ({ context, event }) => event.type === 'DELETE' && context.methods.some((m) => m.id === event.id),
  },
}).createMachine({
  id: 'security',
  context: ({ input }) => ({ methods: [], keys: null, error: null, notice: input.notice ?? null, pending: null }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'listMethods',
        src: 'listMethods',
        onDone: { target: 'ready', actions: assign({ methods: ({ event }) => event.output }) },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    ready: {
      on: {
        SWITCH: { target: 'switching', actions: assign({ error: null, notice: null }) },
        DELETE: {
          guard: 'knownMethod',
          target: 'confirming',
          actions: assign({
            error: null,
            notice: null,
            pending: ({ event }) => ({ action: 'delete' as const, id: event.id }),
          }),
        },
        REGENERATE: {
          target: 'confirming',
          actions: assign({ error: null, notice: null, keys: null, pending: { action: 'regenerate' as const } }),
        },
        DISMISS: { actions: assign({ error: null, notice: null }) },
        SAVED: { actions: assign({ keys: null }) },
      },
    },
    confirming: {
      on: {
        CONFIRM: [{ guard: 'deletionPending', target: 'deleting' }, { target: 'regenerating' }],
        CANCEL: { target: 'ready', actions: assign({ pending: null }) },
      },
    },
    switching: {
      invoke: {
        id: 'switchPrimary',
        src: 'switchPrimary',
        input: ({ event }) => {
          assertEvent(event, 'SWITCH');
          return { id: event.id };
        },
        onDone: { target: 'loading', actions: assign({ notice: 'switched' }) },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    deleting: {
      invoke: {
        id: 'deleteMethod',
        src: 'deleteMethod',
        input: ({ context }) => ({ id: (context.pending as Extract<PendingChange, { action: 'delete' }>).id }),
        onDone: { target: 'loading', actions: assign({ notice: 'deleted', pending: null }) },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event), pending: null }) },
      },
    },
    regenerating: {
      invoke: {
        id: 'regenerate',
        src: 'regenerate',
        onDone: {
          target: 'ready',
          actions: assign({ keys: ({ event }) => event.output.recovery_keys, notice: 'regenerated', pending: null }),
        },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event), pending: null }) },
      },
    },
  },
});
