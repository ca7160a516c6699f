import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { undoChangeMachine } from '../machines/undoChange.ts';
import { report, walk } from './coverage.ts';
import { settle } from './events.ts';

describe('undo-change machine', () => {
  it('takes every declared transition, with and without a token', () => {
    const events = () =>
      [
        { type: 'UNDO' },
        { type: 'xstate.done.actor.undo', output: { undone: 'added' } },
        { type: 'xstate.error.actor.undo', error: apiFailure(410, { code: 'undo_unavailable' }) },
      ] as never;
    const withToken = walk(undoChangeMachine, { input: { token: 't'.repeat(43) }, events });
    const without = walk(undoChangeMachine, { input: { token: null }, events });
    console.info(report('undoChange', withToken));
    expect(withToken.missing.filter((t) => without.missing.includes(t))).toEqual([]);
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
