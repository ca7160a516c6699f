import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { newPasswordMachine } from '../machines/newPassword.ts';
import { report, walkFrom } from './coverage.ts';
import { newPasswordModel } from './newPassword.model.ts';

describe('weak password machine: model', () => {
  it('takes every declared transition, and submits only a password meeting the rules', () => {
    const result = walkFrom(newPasswordModel);
    console.info(report('weakPassword', result));
    expect(result.missing).toEqual([]);
  });

  it('says which rule a refused submit broke first, sends nothing, and forgets it on the next change', () => {
    const actor = createActor(newPasswordMachine, {
      input: { payload: 'ticket', policy: DEFAULT_PASSWORD_POLICY },
    }).start();
    actor.send({ type: 'CHANGE', field: 'password', value: 'Brand-new-pass-77' });
    actor.send({ type: 'CHANGE', field: 'confirmation', value: 'Brand-new-pass-78' });
    actor.send({ type: 'SUBMIT' });
    expect(actor.getSnapshot().value).toBe('editing');
    expect(actor.getSnapshot().context.refused).toBe('mismatch');
    actor.send({ type: 'CHANGE', field: 'password', value: 'short' });
    expect(actor.getSnapshot().context.refused).toBeNull();
    actor.send({ type: 'SUBMIT' });
    expect(actor.getSnapshot().context.refused).toBe('too_short');
  });

  it('judges the password by the policy it was given', async () => {
    const sent: string[] = [];
    const strict = { ...DEFAULT_PASSWORD_POLICY, minDigits: 3 };
    const actor = createActor(
      newPasswordMachine.provide({
        actors: {
          resetPassword: fromPromise(async ({ input }) => {
            sent.push(input.password);
          }),
        },
      }),
      { input: { payload: 'ticket', policy: strict } },
    ).start();
    for (const [field, value] of [
      ['password', 'Brand-new-pass-77'],
      ['confirmation', 'Brand-new-pass-77'],
    ] as const)
      actor.send({ type: 'CHANGE', field, value });
    actor.send({ type: 'SUBMIT' });
    expect(actor.getSnapshot().value).toBe('editing');
    for (const field of ['password', 'confirmation'] as const)
      actor.send({ type: 'CHANGE', field, value: 'Brand-new-pass-777' });
    actor.send({ type: 'SUBMIT' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent).toEqual(['Brand-new-pass-777']);
    expect(actor.getSnapshot().status).toBe('done');
  });
});
