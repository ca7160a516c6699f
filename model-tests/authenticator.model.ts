// The authenticator set-up's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { authenticatorMachine } from '../machines/authenticator.ts';
import type { Model } from './coverage.ts';

export const authenticatorModel: Model = {
  machine: authenticatorMachine,
  starts: [
    { name: 'the set-up', input: {} },
    { name: 'the set-up after a reset', input: { reset: true } },
    { name: 'new keys from the recovery screen', input: { regeneratedKeys: ['AAAAABBBBB'] } },
  ],
  events: () => [
    { type: 'CONTINUE' },
    { type: 'RETRY' },
    { type: 'xstate.done.actor.startTotp', output: null },
    { type: 'xstate.done.actor.startTotp', output: { payload: 'p', data: { secret: 'S', qr_svg: '<svg/>' } } },
    { type: 'xstate.error.actor.startTotp', error: apiFailure(403, { code: 'step_up_required', message: '' }) },
    { type: 'xstate.done.actor.codeEntry', output: { result: { recovery_keys: ['A'] }, failure: null } },
  ],
  serializeState: ({ value, context }) => {
    const c = context as { payload: unknown; keys: unknown; error: unknown };
    return JSON.stringify([value, !!c.payload, !!c.keys, !!c.error]);
  },
};
