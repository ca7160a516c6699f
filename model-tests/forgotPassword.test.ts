import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise } from 'xstate';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { forgotPasswordMachine, newCodeOf, type CodeRequest, type ResetMemory } from '../machines/forgotPassword.ts';
import { codeEntryMachineOf } from '../machines/codeEntry.ts';
import { report, walkAll } from './coverage.ts';
import { forgotPasswordModel, memory } from './forgotPassword.model.ts';
import { settle } from './events.ts';

describe('forgotten password machine: model', () => {
  it('takes every declared transition (started on the request, on the code, on the new password)', () => {
    const result = walkAll(forgotPasswordModel);
    console.info(report('forgotPassword', result));
    expect(result.missing).toEqual([]);
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
    const requestCode = async (input: CodeRequest & { captcha: string | null }) => {
      requests.push(input.captcha);
      return { recipient: ['r***@example.be'], technology: 'EMAIL', payload: 'p', expires_in: 900, resend_in: 30 };
    };
    const actor = createActor(
      forgotPasswordMachine.provide({
        actors: {
          requestCode: fromPromise(({ input }) => requestCode(input)),
          // The entry asks again with the same request and the code screen's CAPTCHA answer.
          codeEntry: codeEntryMachineOf<{ payload: string }, CodeRequest>().provide({
            actors: {
              send: fromPromise(({ input }) =>
                requestCode({ ...input.request, captcha: input.captcha }).then(newCodeOf),
              ),
            },
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
    const entryState = () => entry().getSnapshot();
    expect(entry().getSnapshot().context.sent).toMatchObject({ target: 'r***@example.be' });
    expect(entryState().matches({ entering: { expiry: 'running', resend: 'cooling' } })).toBe(true);
    entry().send({ type: 'RESEND', captcha: { token: 'early' } });
    clock.increment(31_000);
    entry().send({ type: 'RESEND', captcha: { token: 'second' } });
    await settle();
    expect(requests).toEqual(['first', 'second']);
    clock.increment(900_000);
    expect(entryState().matches({ entering: { expiry: 'expired' } })).toBe(true);
  });
});
