// The two-step settings of the security area (/security, mfa-edit, edit-recovery): the methods,
// switching the primary one, deleting one, regenerating recovery keys. The server refuses these
// changes without a recent second-factor check; the root machine gets that check first. Deleting a
// method and regenerating the keys ask first (they cannot be undone); new keys show until the
// person says they saved them. Opened after a method was added (`notice: 'added'`), it says so. A
// passkey is renamed in a form of its own (1 to 64 characters), which Cancel closes unchanged.
import { assertEvent, assign, fromPromise, setup } from 'xstate';
import { PASSKEY_NAME_MAX } from '../contract/rules.ts';
import type { MfaMethodSummary } from '../contract/schemas.ts';
import { problemCodeOf, problemOf, type Problem, type ProblemCode } from './failures.ts';

export type SettingsNotice = 'added' | 'switched' | 'deleted' | 'regenerated' | 'renamed' | null;

/** A passkey's name being edited: which passkey, the name as typed, and what is wrong with it. */
export type Renaming = { id: number; name: string; error: Problem | null };

/** A change that cannot be undone, waiting for the person's yes. */
export type PendingChange = { action: 'delete'; id: number } | { action: 'regenerate' };

type Context = {
  methods: MfaMethodSummary[];
  keys: string[] | null;
  error: ProblemCode | null;
  notice: SettingsNotice;
  pending: PendingChange | null;
  /** The method being made primary, while the server answers. */
  switching: number | null;
  renaming: Renaming | null;
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
      | { type: 'SAVED' }
      /** A passkey's name: open its form, type, save (CANCEL closes it). */
      | { type: 'RENAME'; id: number }
      | { type: 'NAME'; value: string }
      | { type: 'SAVE_NAME' },
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
    renamePasskey: fromPromise<void, { id: number; name: string }>(async () => {
      throw new Error('renamePasskey is provided by the app');
    }),
  },
  guards: {
    knownPasskey: ({ context, event }) =>
      event.type === 'RENAME' && context.methods.some((m) => m.id === event.id && m.method === 'passkey'),
    nameMissing: ({ context }) => context.renaming!.name.trim() === '',
    nameTooLong: ({ context }) => context.renaming!.name.trim().length > PASSKEY_NAME_MAX,
    deletionPending: ({ context }) => context.pending?.action === 'delete',
    knownMethod: ({ context, event }) => event.type === 'DELETE' && context.methods.some((m) => m.id === event.id),
  },
}).createMachine({
  id: 'security',
  context: ({ input }) => ({
    methods: [],
    keys: null,
    error: null,
    notice: input.notice ?? null,
    pending: null,
    switching: null,
    renaming: null,
  }),
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
        SWITCH: {
          target: 'switching',
          actions: assign({ error: null, notice: null, switching: ({ event }) => event.id }),
        },
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
        RENAME: {
          guard: 'knownPasskey',
          target: 'renaming',
          actions: assign(({ context, event }) => {
            const passkey = context.methods.find((m) => m.id === event.id)!;
            // The form starts from what names it now: its name, else who keeps it.
            return {
              error: null,
              notice: null,
              renaming: { id: event.id, name: passkey.name ?? passkey.provider ?? '', error: null },
            };
          }),
        },
        DISMISS: { actions: assign({ error: null, notice: null }) },
        SAVED: { actions: assign({ keys: null }) },
      },
    },
    renaming: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            NAME: {
              actions: assign(({ context, event }) => ({
                renaming: { ...context.renaming!, name: event.value, error: null },
              })),
            },
            SAVE_NAME: [
              {
                guard: 'nameMissing',
                actions: assign(({ context }) => ({
                  renaming: { ...context.renaming!, error: { code: 'required_passkey_name' as const } },
                })),
              },
              {
                guard: 'nameTooLong',
                actions: assign(({ context }) => ({
                  renaming: { ...context.renaming!, error: { code: 'passkey_name_too_long' as const } },
                })),
              },
              { target: 'saving' },
            ],
            CANCEL: { target: '#security.ready', actions: assign({ renaming: null }) },
          },
        },
        saving: {
          invoke: {
            id: 'renamePasskey',
            src: 'renamePasskey',
            input: ({ context }) => ({ id: context.renaming!.id, name: context.renaming!.name.trim() }),
            onDone: { target: '#security.loading', actions: assign({ notice: 'renamed', renaming: null }) },
            onError: {
              target: 'editing',
              actions: assign(({ context, event }) => ({
                renaming: { ...context.renaming!, error: problemOf(event) },
              })),
            },
          },
        },
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
        onDone: { target: 'loading', actions: assign({ notice: 'switched', switching: null }) },
        onError: {
          target: 'ready',
          actions: assign({ error: ({ event }) => problemCodeOf(event), switching: null }),
        },
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
          actions: assign({
            keys: ({ event }) => event.output.recovery_keys,
            // Every key is unused now: the count the screen shows follows.
            methods: ({ context, event }) =>
              context.methods.map((m) =>
                m.method === 'totpRecovery' ? { ...m, recovery_keys_left: event.output.recovery_keys.length } : m,
              ),
            notice: 'regenerated',
            pending: null,
          }),
        },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event), pending: null }) },
      },
    },
  },
});
