// The recovery key's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { totpRecoveryMachine } from '../machines/totpRecovery.ts';
import type { Model } from './coverage.ts';

export const totpRecoveryModel: Model = {
  machine: totpRecoveryMachine,
  starts: [
    { name: 'a sign-in, its count known', input: { keysLeft: 3 } },
    { name: 'a reload, counted', input: { keysLeft: null } },
  ],
  events: () => [
    { type: 'SKIP' },
    { type: 'REGENERATE' },
    { type: 'RESET' },
    { type: 'xstate.done.actor.countKeys', output: 2 },
    { type: 'xstate.error.actor.countKeys', error: apiFailure(503, {}) },
    { type: 'xstate.done.actor.resetAuthenticator' },
    { type: 'xstate.error.actor.resetAuthenticator', error: apiFailure(403, { code: 'step_up_required' }) },
    { type: 'xstate.done.actor.regenerate', output: { recovery_keys: ['A', 'B'] } },
    { type: 'xstate.error.actor.regenerate', error: apiFailure(403, { code: 'step_up_required' }) },
  ],
};
