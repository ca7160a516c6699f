import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise } from 'xstate';
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
        ...(['email', 'phone', 'sent', 'reset', 'confirmed'] as const).map((step) => ({ type: 'ROUTE', step })), { type: 'SET_CHANNEL', channel: 'whatsapp' },
        { type: 'CHANGE', field: 'username', value: 'rita@example.be' },
        { type: 'SUBMIT' }, { type: 'SUBMIT', captcha: { token: 'solved' } }, { type: 'SUBMIT', captcha: { error: CAPTCHA_FAILURES.notLoaded } },
        { type: 'RESEND', captcha: { token: 'solved' } }, { type: 'RESEND', captcha: { error: CAPTCHA_FAILURES.server } }, { type: 'CONTINUE' },
        { type: 'xstate.done.actor.requestCode', output: { recipient: ['r***@example.be'], technology: 'EMAIL', payload: 'p', expires_in: 900, resend_in: 30 } },
        { type: 'xstate.error.actor.requestCode', error: apiFailure(429, { code: 'too_many_attempts', message: '' }) },
        { type: 'xstate.done.actor.resendCode', output: { recipient: ['r***@example.be'], technology: 'EMAIL', payload: 'p2', expires_in: 900, resend_in: 30 } },
        { type: 'xstate.error.actor.resendCode', error: apiFailure(429, { code: 'resend_too_soon', message: '' }) },
        { type: 'xstate.done.actor.codeEntry', output: { result: { payload: 'ticket' }, failure: null } },
        { type: 'xstate.done.actor.newPassword' },
      ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { mode: string; username: string; channel: string; error: unknown; sent: unknown; ticket: unknown };
        return JSON.stringify([value, c.mode, !!c.username, c.channel, !!c.error, !!c.sent, !!c.ticket]);
      },
    });
    console.info(report('forgotPassword', result));
    expect(result.missing).toEqual([]);
  });
});

describe('forgotten password machine: the code', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('times the code from the answer, and asks for a new one with the CAPTCHA once the wait is over', async () => {
    const clock = new SimulatedClock();
    const requests: unknown[] = [];
    const actor = createActor(forgotPasswordMachine.provide({
      actors: {
        requestCode: fromPromise(async ({ input }) => {
          requests.push(input.captcha);
          return { recipient: ['r***@example.be'], technology: 'EMAIL', payload: 'p', expires_in: 900, resend_in: 30 };
        }),
      },
    }), { input: { mode: 'email', policy: DEFAULT_PASSWORD_POLICY }, clock }).start();
    actor.send({ type: 'CHANGE', field: 'username', value: 'rita@example.be' });
    actor.send({ type: 'SUBMIT', captcha: { token: 'first' } });
    await settle();
    const entry = () => actor.getSnapshot().children.codeEntry!;
    expect(entry().getSnapshot().context.sent).toMatchObject({ target: 'r***@example.be' });
    expect(entry().getSnapshot().matches({ entering: { expiry: 'running', resend: 'cooling' } })).toBe(true);
    entry().send({ type: 'RESEND', captcha: { token: 'early' } });
    clock.increment(31_000);
    entry().send({ type: 'RESEND', captcha: { token: 'second' } });
    await settle();
    expect(requests).toEqual(['first', 'second']);
    clock.increment(900_000);
    expect(entry().getSnapshot().matches({ entering: { expiry: 'expired' } })).toBe(true);
  });
});
