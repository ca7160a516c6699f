import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { totpSetupMachine, type TotpStart } from '../machines/totpSetup.ts';
import { report, walkFrom } from './coverage.ts';
import { totpSetupModel } from './totpSetup.model.ts';

describe('authenticator set-up machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(totpSetupModel);
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
      { input: {} },
    ).start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const entry = actor.getSnapshot().children.codeEntry!;
    expect(entry.getSnapshot().context).toMatchObject({ ticket: 'p', length: 6, sent: null });
    expect(entry.getSnapshot().matches({ entering: { expiry: 'untimed', resend: 'unavailable' } })).toBe(true);
  });
});

describe('authenticator set-up machine: after a reset', () => {
  it('asks to replace the authenticator the account may still have, and only then', async () => {
    for (const reset of [true, false]) {
      const asked: unknown[] = [];
      const actor = createActor(
        totpSetupMachine.provide({
          actors: {
            startTotp: fromPromise(async ({ input }): Promise<TotpStart> => {
              asked.push(input);
              return { payload: 'p', data: { secret: 'S' } };
            }),
          },
        }),
        { input: reset ? { reset } : {} },
      ).start();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(asked).toEqual([{ reset }]);
      expect(actor.getSnapshot().context.reset).toBe(reset);
      expect(actor.getSnapshot().value).toBe('scanning');
    }
  });
});
