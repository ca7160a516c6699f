import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { undoChangeMachine } from '../machines/undoChange.ts';
import { report, walkAll } from './coverage.ts';
import { undoChangeModel } from './undoChange.model.ts';
import { settle } from './events.ts';

describe('undo-change machine', () => {
  it('takes every declared transition, with and without a token', () => {
    const result = walkAll(undoChangeModel);
    console.info(report('undoChange', result.runs[0]!));
    expect(result.missing).toEqual([]);
  });

  it('undoes only when asked, never on arrival', async () => {
    const calls: unknown[] = [];
    const actor = createActor(
      undoChangeMachine.provide({
        actors: {
          undo: fromPromise(async ({ input }) => {
            calls.push(input);
            return {};
          }),
        },
      }),
      { input: { token: 'abc'.repeat(10) } },
    ).start();
    await settle();
    expect(calls).toEqual([]);
    expect(actor.getSnapshot().value).toBe('asking');
    actor.send({ type: 'UNDO' });
    await settle();
    expect(calls).toEqual([{ token: 'abc'.repeat(10) }]);
    expect(actor.getSnapshot().value).toBe('done');
  });
});
