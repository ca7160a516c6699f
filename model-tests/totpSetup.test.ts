import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { totpSetupMachine, type TotpStart } from '../machines/totpSetup.ts';
import { report, walk } from './coverage.ts';

describe('authenticator set-up machine: model', () => {
  it('takes every declared transition', () => {
    const result = walk(totpSetupMachine, {
      events: () =>
        [
          { type: 'CONTINUE' },
          { type: 'RETRY' },
          { type: 'xstate.done.actor.startTotp', output: null },
          { type: 'xstate.done.actor.startTotp', output: { payload: 'p', data: { secret: 'S', qr_svg: '<svg/>' } } },
          { type: 'xstate.error.actor.startTotp', error: apiFailure(403, { code: 'step_up_required', message: '' }) },
          { type: 'xstate.done.actor.codeEntry', output: { result: { recovery_keys: ['A'] }, failure: null } },
        ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { payload: unknown; keys: unknown; error: unknown };
        return JSON.stringify([value, !!c.payload, !!c.keys, !!c.error]);
      },
    });
    console.info(report('totpSetup', result));
    expect(result.missing).toEqual([]);
  });
});

describe('authenticator set-up machine: the first code', () => {
  it('is six digits that nobody sent: no countdown, no resend', async () => {
    const actor = createActor(
      totpSetupMachine.provide({
        actors: { startTotp: fromPromise(async (): Promise<TotpStart> => ({ payload: 'p', data: { secret: 'S' } })) },
      }),
    ).start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const entry = actor.getSnapshot().children.codeEntry!;
    expect(entry.getSnapshot().context).toMatchObject({ ticket: 'p', length: 6, sent: null });
    expect(entry.getSnapshot().matches({ entering: { expiry: 'untimed', resend: 'unavailable' } })).toBe(true);
  });
});
