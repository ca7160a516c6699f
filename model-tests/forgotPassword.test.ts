import { describe, expect, it } from 'vitest';
import { apiFailure } from '../contract/api.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { CAPTCHA_FAILURES } from '../machines/captcha.ts';
import { forgotPasswordMachine } from '../machines/forgotPassword.ts';
import { report, walk } from './coverage.ts';

describe('forgotten password machine: model', () => {
  it('takes every declared transition', () => {
    const result = walk(forgotPasswordMachine, {
      input: { mode: 'email', policy: DEFAULT_PASSWORD_POLICY },
      events: () => [
        { type: 'SET_MODE', mode: 'phone' }, { type: 'SET_CHANNEL', channel: 'whatsapp' },
        { type: 'CHANGE', field: 'username', value: 'rita@example.be' }, { type: 'CHANGE', field: 'code', value: '12345678' },
        { type: 'SUBMIT' }, { type: 'SUBMIT', captcha: { token: 'solved' } }, { type: 'SUBMIT', captcha: { error: CAPTCHA_FAILURES.notLoaded } },
        { type: 'RESEND', captcha: { token: 'solved' } }, { type: 'RESEND', captcha: { error: CAPTCHA_FAILURES.server } }, { type: 'CONTINUE' },
        { type: 'xstate.done.actor.requestCode', output: { recipient: ['r***@example.be'], technology: 'EMAIL', payload: 'p' } },
        { type: 'xstate.error.actor.requestCode', error: apiFailure(429, { code: 'too_many_attempts', message: '' }) },
        { type: 'xstate.done.actor.verifyCode', output: { payload: 'ticket' } },
        { type: 'xstate.error.actor.verifyCode', error: apiFailure(422, { code: 'invalid_code', message: 'Your code is invalid, try again.' }) },
        { type: 'xstate.done.actor.newPassword' },
      ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { mode: string; username: string; code: string; channel: string; error: unknown; sent: unknown; ticket: unknown };
        return JSON.stringify([value, c.mode, !!c.username, !!c.code, c.channel, !!c.error, !!c.sent, !!c.ticket]);
      },
    });
    console.info(report('forgotPassword', result));
    expect(result.missing).toEqual([]);
  });
});
