// The walk's counting, on small machines: an eventless branch counts only when a walk takes it.
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { declaredTransitions, walk } from './coverage.ts';

const machine = setup({
  types: { input: {} as { ready: boolean }, context: {} as { ready: boolean } },
  guards: { ready: ({ context }) => context.ready },
}).createMachine({
  id: 'm',
  context: ({ input }) => ({ ready: input.ready }),
  initial: 'starting',
  states: {
    starting: { always: [{ guard: 'ready', target: 'open' }, { target: 'waiting' }] },
    waiting: { on: { GO: 'deciding' } },
    deciding: { always: { target: 'open' } },
    open: {},
  },
});

describe('coverage: eventless branches', () => {
  it('declares each always branch as a transition', () => {
    expect(declaredTransitions(machine)).toHaveLength(4);
  });

  it('counts a branch taken on the first snapshot and after an event, and misses one never taken', () => {
    const result = walk(machine, { input: { ready: false }, events: () => [{ type: 'GO' }] });
    expect(result.missing).toEqual(['m.starting --always [ready]#0--> m.open']);
    expect(result.taken).toBe(3);
  });

  it('takes the branch from a named start that seeds the context', () => {
    expect(walk(machine, { input: { ready: true }, events: () => [{ type: 'GO' }] }).missing).toEqual([
      'm.starting --always#1--> m.waiting',
      'm.waiting --GO#2--> m.deciding',
      'm.deciding --always#3--> m.open',
    ]);
  });
});
