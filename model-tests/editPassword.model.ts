// The password change's model: what its test walks and the testers' paths follow.
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { editPasswordMachine } from '../machines/editPassword.ts';
import type { Model } from './coverage.ts';

export const input = { policy: DEFAULT_PASSWORD_POLICY };

export const editPasswordModel: Model = {
  machine: editPasswordMachine,
  starts: [{ name: 'the form', input }],
  events: () => [
    { type: 'CURRENT', value: 'Tessera-demo-2026!' },
    { type: 'CURRENT', value: '' },
    { type: 'KEEP', value: false },
    { type: 'KEEP', value: true },
    { type: 'SUBMIT' },
    { type: 'SUBMIT', captcha: { token: 'solved' } },
    { type: 'xstate.done.actor.newPassword', output: { result: { session_ended: false } } },
    { type: 'xstate.done.actor.newPassword', output: { result: { session_ended: true } } },
  ],
  serializeState: ({ value, context }) => JSON.stringify([value, context]),
};
