// "This wasn't me" (the link of a notice about a change to the account's emails or phones): the
// page explains what undoing does, and undoes once the person says so — never on arrival, so a
// mail scanner that opens the link changes nothing.
import { assign, fromPromise, setup } from 'xstate';
import { problemCodeOf, type ProblemCode } from './failures.ts';

export const undoChangeMachine = setup({
  types: {
    context: {} as { token: string | null; error: ProblemCode | null },
    input: {} as { token: string | null },
    events: {} as { type: 'UNDO' },
  },
  actors: {
    undo: fromPromise<unknown, { token: string }>(async () => {
      throw new Error('undo is provided by the app');
    }),
  },
  guards: { hasToken: ({ context }) => context.token !== null },
}).createMachine({
  id: 'undoChange',
  context: ({ input }) => ({ token: input.token, error: null }),
  initial: 'checking',
  states: {
    // A page without its token (a link cut short) can only say so.
    checking: {
      always: [
        { guard: 'hasToken', target: 'asking' },
        { target: 'failed', actions: assign({ error: 'undo_unavailable' }) },
      ],
    },
    asking: { on: { UNDO: 'undoing' } },
    undoing: {
      invoke: {
        id: 'undo',
        src: 'undo',
        input: ({ context }) => ({ token: context.token! }),
        onDone: 'done',
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
});
