import { describe, expect, it } from 'vitest';
import { apiFailure } from '../contract/api.ts';
import { weakPasswordMachine } from '../machines/weakPassword.ts';
import { report, walk } from './coverage.ts';

describe('weak password machine: model', () => {
  it('takes every declared transition, and submits only a password meeting the rules', () => {
    const result = walk(weakPasswordMachine, {
      input: { payload: 'ticket' },
      events: () => [
        { type: 'CHANGE', field: 'password', value: 'Brand-new-pass-77' }, { type: 'CHANGE', field: 'password', value: 'weak' },
        { type: 'CHANGE', field: 'confirmation', value: 'Brand-new-pass-77' }, { type: 'SUBMIT' },
        { type: 'xstate.done.actor.resetPassword' },
        { type: 'xstate.error.actor.resetPassword', error: apiFailure(422, { code: 'password_reused', message: 'Choose a password you have not used recently.' }) },
      ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { password: string; confirmation: string; error: unknown };
        return JSON.stringify([value, c.password, c.confirmation, !!c.error]);
      },
    });
    console.info(report('weakPassword', result));
    expect(result.missing).toEqual([]);
  });
});
