import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { CAPTCHA_FAILURES } from '../machines/captcha.ts';
import { forgotPasswordMachine, type ResetMemory } from '../machines/forgotPassword.ts';
import { report, walk } from './coverage.ts';
import { settle } from './events.ts';

const sentAnswer = {
  recipient: ['r***@example.be'],
  technology: 'EMAIL',
  payload: 'p',
  expires_in: 900,
  resend_in: 30,
};
const memory = (ticket: string | null, expiresAt = Date.now() + 900_000) => ({
  mode: 'email',
  username: 'rita@example.be',
  channel: 'sms',
  sent: sentAnswer,
  timers: { target: 'r***@example.be', expiresAt, resendAt: null },
  ticket,
});

function walkFrom(entry: 'email' | 'sent' | 'reset') {
  return walk(forgotPasswordMachine, {
    input: { mode: 'email', policy: DEFAULT_PASSWORD_POLICY, entry },
    events: () =>
      [
        ...(['email', 'phone', 'sent', 'reset', 'confirmed'] as const).map((step) => ({ type: 'ROUTE', step })),
        { type: 'SET_CHANNEL', channel: 'whatsapp' },
        { type: 'CHANGE', field: 'username', value: 'rita@example.be' },
        { type: 'SUBMIT' },
        { type: 'SUBMIT', captcha: { token: 'solved' } },
        { type: 'SUBMIT', captcha: { error: CAPTCHA_FAILURES.notLoaded } },
        { type: 'RESEND', captcha: { token: 'solved' } },
        { type: 'RESEND', captcha: { error: CAPTCHA_FAILURES.server } },
        { type: 'CONTINUE' },
        { type: 'xstate.done.actor.recall', output: null },
        { type: 'xstate.done.actor.recall', output: memory(null) },
        { type: 'xstate.done.actor.recall', output: memory(null, 0) },
        { type: 'xstate.done.actor.recall', output: memory('ticket') },
        { type: 'xstate.error.actor.recall', error: new Error('storage') },
        { type: 'xstate.done.actor.requestCode', output: sentAnswer },
        { type: 'xstate.error.actor.requestCode', error: apiFailure(429, { code: 'too_many_attempts', message: '' }) },
        { type: 'xstate.done.actor.resendCode', output: { ...sentAnswer, payload: 'p2' } },
        { type: 'xstate.error.actor.resendCode', error: apiFailure(429, { code: 'resend_too_soon', message: '' }) },
        { type: 'xstate.done.actor.codeEntry', output: { result: { payload: 'ticket' }, failure: null } },
        { type: 'xstate.done.actor.newPassword' },
      ] as never,
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
  });
}

describe('forgotten password machine: model', () => {
  it('takes every declared transition (started on the request, on the code, on the new password)', () => {
    const runs = [walkFrom('email'), walkFrom('sent'), walkFrom('reset')];
    const missing = runs[0]!.missing.filter((t) => runs.every((r) => r.missing.includes(t)));
    const result = {
      ...runs[0]!,
      taken: runs[0]!.declared - missing.length,
      missing,
      states: runs.reduce((n, r) => n + r.states, 0),
    };
    console.info(report('forgotPassword', result));
    expect(missing).toEqual([]);
  });
});

describe('forgotten password machine: a reload', () => {
  const started = (entry: 'email' | 'sent' | 'reset', kept: unknown) => {
    const shown: string[] = [];
    const actor = createActor(
      forgotPasswordMachine.provide({
        actors: { recall: fromPromise(async (): Promise<ResetMemory | null> => kept as ResetMemory | null) },
        actions: {
          show: (_, { screen }) => {
            shown.push(screen);
          },
        },
      }),
      { input: { mode: 'email', policy: DEFAULT_PASSWORD_POLICY, entry } },
    ).start();
    return { actor, shown };
  };

  it('on the code resumes it while it lives, with its timers and where it went', async () => {
    const { actor } = started('sent', memory(null));
    await settle();
    expect(actor.getSnapshot().value).toBe('sent');
    expect(actor.getSnapshot().children.codeEntry!.getSnapshot().context).toMatchObject({
      ticket: 'p',
      sent: { target: 'r***@example.be' },
    });
  });

  it('on the new password resumes it with the ticket the code bought', async () => {
    const { actor } = started('reset', memory('ticket'));
    await settle();
    expect(actor.getSnapshot().value).toBe('resetting');
    expect(actor.getSnapshot().children.newPassword!.getSnapshot().context.payload).toBe('ticket');
  });

  it('on a code that expired, or with nothing kept, shows the request and says why', async () => {
    for (const kept of [memory(null, Date.now() - 1), null]) {
      const { actor, shown } = started('sent', kept);
      await settle();
      expect(actor.getSnapshot().value).toBe('asking');
      expect(actor.getSnapshot().context.error).toEqual({ code: 'code_expired' });
      expect(shown).toEqual(['email']);
    }
  });
});

describe('forgotten password machine: the code', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('times the code from the answer, and asks for a new one with the CAPTCHA once the wait is over', async () => {
    const clock = new SimulatedClock();
    const requests: unknown[] = [];
    const actor = createActor(
      forgotPasswordMachine.provide({
        actors: {
          requestCode: fromPromise(async ({ input }) => {
            requests.push(input.captcha);
            return {
              recipient: ['r***@example.be'],
              technology: 'EMAIL',
              payload: 'p',
              expires_in: 900,
              resend_in: 30,
            };
          }),
        },
      }),
      { input: { mode: 'email', policy: DEFAULT_PASSWORD_POLICY }, clock },
    ).start();
    await settle(); // nothing kept from before
    actor.send({ type: 'CHANGE', field: 'username', value: 'rita@example.be' });
    actor.send({ type: 'SUBMIT', captcha: { token: 'first' } });
    await settle();
    const entry = () => actor.getSnapshot().children.codeEntry!;
    expect(entry().getSnapshot().context.sent).toMatchObject({ target: 'r***@example.be' });
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { expiry: 'running', resend: 'cooling' } }),
    ).toBe(true);
    entry().send({ type: 'RESEND', captcha: { token: 'early' } });
    clock.increment(31_000);
    entry().send({ type: 'RESEND', captcha: { token: 'second' } });
    await settle();
    expect(requests).toEqual(['first', 'second']);
    clock.increment(900_000);
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { expiry: 'expired' } }),
    ).toBe(true);
  });
});
