import { describe, expect, it } from 'vitest';
import { apiFailure } from '../contract/api.ts';
import { totpSetupMachine } from '../machines/totpSetup.ts';
import { report, walk } from './coverage.ts';

describe('authenticator set-up machine: model', () => {
  it('takes every declared transition', () => {
    const result = walk(totpSetupMachine, {
      events: () => [
        { type: 'CHANGE', value: '123456' }, { type: 'CHANGE', value: '12' }, { type: 'SUBMIT' }, { type: 'CONTINUE' }, { type: 'RETRY' },
        { type: 'xstate.done.actor.startTotp', output: null },
        { type: 'xstate.done.actor.startTotp', output: { payload: 'p', data: { secret: 'S', qr_svg: '<svg/>' } } },
        { type: 'xstate.error.actor.startTotp', error: apiFailure(403, { code: 'step_up_required', message: '' }) },
        { type: 'xstate.done.actor.confirmTotp', output: { recovery_keys: ['A'] } },
        { type: 'xstate.error.actor.confirmTotp', error: apiFailure(422, { code: 'invalid_code', message: 'Your code is invalid, try again.' }) },
      ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { code: string; payload: unknown; keys: unknown; error: unknown };
        return JSON.stringify([value, c.code, !!c.payload, !!c.keys, !!c.error]);
      },
    });
    console.info(report('totpSetup', result));
    expect(result.missing).toEqual([]);
  });
});
