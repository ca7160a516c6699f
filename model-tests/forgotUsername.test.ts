import { describe, expect, it } from 'vitest';
import { apiFailure } from '../contract/api.ts';
import { CAPTCHA_FAILURES } from '../machines/captcha.ts';
import { forgotUsernameMachine } from '../machines/forgotUsername.ts';
import { report, walk } from './coverage.ts';

describe('forgotten username machine: model', () => {
  it('takes every declared transition; a malformed number never reaches the server', () => {
    const result = walk(forgotUsernameMachine, {
      events: () =>
        [
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
        ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { kind: string; value: string; usernames: unknown; error: unknown };
        return JSON.stringify([value, c.kind, c.value, !!c.usernames, !!c.error]);
      },
    });
    console.info(report('forgotUsername', result));
    expect(result.missing).toEqual([]);
  });
});
