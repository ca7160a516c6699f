// The forgotten username's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { CAPTCHA_FAILURES } from '../machines/captcha.ts';
import { forgotUsernameMachine } from '../machines/forgotUsername.ts';
import type { Model } from './coverage.ts';

export const forgotUsernameModel: Model = {
  machine: forgotUsernameMachine,
  starts: [{ name: 'the form' }],
  events: () => [
    { type: 'SET_KIND', kind: 'nationalRegister' },
    { type: 'SET_KIND', kind: 'card' },
    { type: 'CHANGE', value: '5065000000000002' },
    { type: 'CHANGE', value: '85073003328' },
    { type: 'CHANGE', value: '123' },
    { type: 'SUBMIT', captcha: { token: 'solved' } },
    { type: 'SUBMIT', captcha: { error: CAPTCHA_FAILURES.element } },
    { type: 'AGAIN' },
    { type: 'ROUTE', step: 'ask' },
    { type: 'ROUTE', step: 'response' },
    { type: 'xstate.done.actor.findUsernames', output: ['e***@example.be'] },
    {
      type: 'xstate.error.actor.findUsernames',
      error: apiFailure(429, { code: 'too_many_attempts', message: '' }),
    },
  ],
  serializeState: ({ value, context }) => {
    const c = context as { kind: string; value: string; usernames: unknown; error: unknown };
    return JSON.stringify([value, c.kind, c.value, !!c.usernames, !!c.error]);
  },
};
