// The two-step settings of the security area (/security, mfa-edit, edit-recovery): the methods,
// switching the primary one, deleting one, regenerating recovery keys. The server refuses these
// changes without a recent second-factor check; the root machine gets that check first.
import { assign, fromPromise, setup } from 'xstate';
import type { MfaMethodSummary } from '../contract/schemas.ts';
import { problemCodeOf } from './failures.ts';

export type SettingsNotice = 'switched' | 'deleted' | 'regenerated' | null;

type Context = { methods: MfaMethodSummary[]; keys: string[] | null; error: string | null; notice: SettingsNotice };

export const mfaSettingsMachine = setup({
  types: {
    context: {} as Context,
    events: {} as { type: 'SWITCH'; id: number } | { type: 'DELETE'; id: number } | { type: 'REGENERATE' } | { type: 'DISMISS' },
  },
  actors: {
    listMethods: fromPromise<MfaMethodSummary[]>(async () => { throw new Error('listMethods is provided by the app'); }),
    switchPrimary: fromPromise<void, { id: number }>(async () => { throw new Error('switchPrimary is provided by the app'); }),
    deleteMethod: fromPromise<void, { id: number }>(async () => { throw new Error('deleteMethod is provided by the app'); }),
    regenerate: fromPromise<{ recovery_keys: string[] }>(async () => { throw new Error('regenerate is provided by the app'); }),
  },
}).createMachine({
  id: 'mfaSettings',
  context: { methods: [], keys: null, error: null, notice: null },
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
        DELETE: { target: 'deleting', actions: assign({ error: null, notice: null }) },
        REGENERATE: { target: 'regenerating', actions: assign({ error: null, notice: null, keys: null }) },
        DISMISS: { actions: assign({ error: null, notice: null }) },
      },
    },
    switching: {
      invoke: {
        id: 'switchPrimary',
        src: 'switchPrimary',
        input: ({ event }) => ({ id: (event as { id: number }).id }),
        onDone: { target: 'loading', actions: assign({ notice: 'switched' }) },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    deleting: {
      invoke: {
        id: 'deleteMethod',
        src: 'deleteMethod',
        input: ({ event }) => ({ id: (event as { id: number }).id }),
        onDone: { target: 'loading', actions: assign({ notice: 'deleted' }) },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    regenerating: {
      invoke: {
        id: 'regenerate',
        src: 'regenerate',
        onDone: { target: 'ready', actions: assign({ keys: ({ event }) => event.output.recovery_keys, notice: 'regenerated' }) },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
  },
});
