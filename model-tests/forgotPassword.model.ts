// The forgotten password's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { CAPTCHA_FAILURES } from '../machines/captcha.ts';
import { forgotPasswordMachine } from '../machines/forgotPassword.ts';
import type { Model } from './coverage.ts';
import { AHEAD } from './events.ts';

const sentAnswer = {
  recipient: ['r***@example.be'],
  technology: 'EMAIL',
  payload: 'p',
  expires_in: 900,
  resend_in: 30,
};
/** What a reload finds kept of a reset: its code sent, and its ticket once the code was right. */
export const memory = (ticket: string | null, expiresAt = Date.now() + 900_000) => ({
  mode: 'email',
  username: 'rita@example.be',
  channel: 'sms',
  sent: sentAnswer,
  timers: { target: 'r***@example.be', expiresAt, resendAt: null },
  ticket,
});

export const forgotPasswordModel: Model = {
  machine: forgotPasswordMachine,
  starts: (['email', 'sent', 'reset'] as const).map((entry) => ({
    name: { email: 'the request', sent: 'the code', reset: 'the new password' }[entry],
    input: { mode: 'email', policy: DEFAULT_PASSWORD_POLICY, entry },
  })),
  events: () => [
    ...(['email', 'phone', 'sent', 'reset', 'confirmed'] as const).map((step) => ({ type: 'ROUTE', step })),
    { type: 'SET_CHANNEL', channel: 'whatsapp' },
    { type: 'CHANGE', field: 'username', value: 'rita@example.be' },
    { type: 'SUBMIT' },
    { type: 'SUBMIT', captcha: { token: 'solved' } },
    { type: 'SUBMIT', captcha: { error: CAPTCHA_FAILURES.notLoaded } },
    { type: 'CONTINUE' },
    { type: 'xstate.done.actor.recall', output: null },
    { type: 'xstate.done.actor.recall', output: memory(null, AHEAD) },
    { type: 'xstate.done.actor.recall', output: memory(null, 0) },
    { type: 'xstate.done.actor.recall', output: memory('ticket', AHEAD) },
    { type: 'xstate.error.actor.recall', error: new Error('storage') },
    { type: 'xstate.done.actor.requestCode', output: sentAnswer },
    { type: 'xstate.error.actor.requestCode', error: apiFailure(429, { code: 'too_many_attempts', message: '' }) },
    { type: 'CODE_SENT', ticket: 'p2', sent: { target: 'r***@example.be', expiresAt: AHEAD, resendAt: AHEAD } },
    { type: 'xstate.done.actor.codeEntry', output: { result: { payload: 'ticket' }, failure: null } },
    { type: 'xstate.done.actor.newPassword' },
  ],
  serializeState: ({ value, context }) => {
    const c = context as {
      mode: string;
      username: string;
      channel: string;
      error: unknown;
      sent: unknown;
      ticket: unknown;
    };
    return JSON.stringify([value, c.mode, !!c.username, c.channel, !!c.error, !!c.sent, !!c.ticket]);
  },
};
