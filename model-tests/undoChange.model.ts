// The undo link's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { undoChangeMachine } from '../machines/undoChange.ts';
import type { Model } from './coverage.ts';

export const undoChangeModel: Model = {
  machine: undoChangeMachine,
  starts: [
    { name: 'with a token', input: { token: 't'.repeat(43) } },
    { name: 'without a token', input: { token: null } },
  ],
  events: () => [
    { type: 'UNDO' },
    { type: 'xstate.done.actor.undo', output: { undone: 'added' } },
    { type: 'xstate.error.actor.undo', error: apiFailure(410, { code: 'undo_unavailable' }) },
  ],
};
