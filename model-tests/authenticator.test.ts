import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { authenticatorMachine, type TotpStart } from '../machines/authenticator.ts';
import { report, walkAll } from './coverage.ts';
import { authenticatorModel } from './authenticator.model.ts';

describe('authenticator set-up machine: model', () => {
  it('takes every declared transition (a set-up, one after a reset, keys the recovery screen made)', () => {
    const result = walkAll(authenticatorModel);
    console.info(report('authenticator', result));
    expect(result.missing).toEqual([]);
  });
});

describe('authenticator set-up machine: the first code', () => {
  it('is six digits that nobody sent: no countdown, no resend', async () => {
    const actor = createActor(
      authenticatorMachine.provide({
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
        authenticatorMachine.provide({
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

describe('authenticator set-up machine: keys the recovery screen made', () => {
  it('shows them on its success page, marked as such, sets nothing up, and says so when done', () => {
    const shown: unknown[] = [];
    let started = 0;
    const actor = createActor(
      authenticatorMachine.provide({
        actors: {
          startTotp: fromPromise(async (): Promise<TotpStart> => {
            started++;
            return null;
          }),
        },
        actions: { show: (_, params) => void shown.push(params) },
      }),
      { input: { regeneratedKeys: ['AAAAABBBBB', 'CCCCCDDDDD'] } },
    ).start();
    expect(actor.getSnapshot().value).toBe('showingKeys');
    expect(actor.getSnapshot().context.keys).toEqual(['AAAAABBBBB', 'CCCCCDDDDD']);
    expect(shown).toEqual([{ screen: 'success', regenerated: true }]);
    actor.send({ type: 'CONTINUE' });
    expect(actor.getSnapshot().output).toEqual({ regenerated: true });
    expect(started).toBe(0);
  });
});
