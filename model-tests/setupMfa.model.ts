// The second factor's set-up's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { setupMfaMachine } from '../machines/setupMfa.ts';
import type { Model } from './coverage.ts';
import { AHEAD } from './events.ts';

const answers = [
  { type: 'xstate.done.actor.methodKinds', output: [] },
  { type: 'xstate.done.actor.methodKinds', output: ['sms', 'totp'] },
  { type: 'xstate.error.actor.methodKinds', error: apiFailure(500, { code: 'internal_error' }) },
  { type: 'xstate.done.actor.startActivation', output: null },
  {
    type: 'xstate.done.actor.startActivation',
    output: { payload: 'p', fuzzion: false, data: { target: '+32•••••••44', expires_in: 900, resend_in: 30 } },
  },
  {
    type: 'xstate.error.actor.startActivation',
    error: apiFailure(400, { code: 'invalid_phone', message: 'The phone number provided is invalid' }),
  },
  { type: 'xstate.error.actor.startActivation', error: apiFailure(403, { code: 'step_up_required', message: '' }) },
  { type: 'xstate.done.actor.codeEntry', output: { result: {}, failure: null } },
  { type: 'xstate.done.actor.codeEntry', output: { result: null, failure: { code: 'code_expired' } } },
  // The code came back, and the number is another account's: the answer carries the merge's offer.
  {
    type: 'xstate.done.actor.codeEntry',
    output: {
      result: null,
      failure: { code: 'phone_in_use' },
      body: { code: 'phone_in_use', fuzzion: { payload: 'offer-1', kind: 'phone', target: '+32470444444' } },
    },
  },
  {
    type: 'CODE_SENT',
    ticket: 'p2',
    sent: { target: '+32•••••••44', expiresAt: AHEAD + 900_000, resendAt: AHEAD + 30_000 },
  },
  { type: 'xstate.done.actor.remindLater' },
  { type: 'xstate.error.actor.remindLater', error: apiFailure(503, { code: 'database_unavailable' }) },
];

export const setupMfaModel: Model = {
  // What the flow tells its parent needs a parent: the walk runs it alone.
  machine: setupMfaMachine.provide({ actions: { offerFuzzion: () => {} } }),
  starts: [
    { name: 'a forced user', input: { forced: true, customer: false } },
    { name: 'a forced user with SMS', input: { forced: true, customer: false, hasSms: true } },
    { name: 'an offered customer', input: { forced: false, customer: true } },
    ...(['selection', 'phone', 'email'] as const).map((entry) => ({
      name: `from Security: ${entry}`,
      input: { forced: false, customer: false, entry },
    })),
  ],
  events: () => [
    { type: 'ACTIVATE' },
    { type: 'SKIP' },
    { type: 'CHOOSE', kind: 'sms' },
    { type: 'CHOOSE', kind: 'email' },
    { type: 'CHOOSE', kind: 'totp' },
    { type: 'CHANGE', value: '0470 44 44 44' },
    { type: 'CHANGE', value: '' },
    { type: 'SUBMIT' },
    { type: 'BACK' },
    { type: 'CONTINUE' },
    ...(['intro', 'selection', 'phone', 'email', 'confirmation', 'success'] as const).map((step) => ({
      type: 'ROUTE',
      step,
    })),
    ...answers,
  ],
  serializeState: ({ value, context }) => {
    const c = context as { kind: unknown; target: string; error: unknown; challenge: unknown; hasSms: boolean };
    return JSON.stringify([value, c.kind, !!c.target, !!c.error, !!c.challenge, c.hasSms]);
  },
};
