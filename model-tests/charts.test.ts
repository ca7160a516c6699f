import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import { MACHINES, chartDocument, deadEnds, mermaid } from '../scripts/statecharts.ts';

const dir = join(import.meta.dirname, '..', 'docs', 'statecharts');

describe('statechart diagrams', () => {
  it.each(Object.keys(MACHINES))('docs/statecharts/%s.md is current (run `npm run charts`)', (key) => {
    const file = join(dir, `${key}.md`);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(chartDocument(key, MACHINES[key]!));
  });

  it('draws every state and the guarded transitions', () => {
    const login = mermaid(MACHINES.login!);
    for (const state of ['editing', 'submitting', 'done']) expect(login).toContain(`login_${state}`);
    expect(login).toContain('error: submitLogin [needsMfa]');
    expect(login).toContain('SUBMIT [canSubmit]');
  });

  it('draws the eventless branches, guards named', () => {
    expect(mermaid(MACHINES.totpRecovery!)).toContain(
      'totpRecovery_starting --> totpRecovery_counting: [always: uncounted]',
    );
    expect(mermaid(MACHINES.totpRecovery!)).toContain('totpRecovery_starting --> totpRecovery_overview: [always]');
    expect(mermaid(MACHINES.fuzzion!)).toContain('fuzzion_starting --> fuzzion_loading: [always: hasPayload]');
    expect(mermaid(MACHINES.root!)).toContain('root_signedIn_idle --> root_signedIn_security: [always: atSecurity]');
    for (const machine of Object.values(MACHINES)) {
      const branches = getStateNodes(machine.root).flatMap((node) => node.always ?? []);
      expect(mermaid(machine).match(/: \[always[:\]]/g)?.length ?? 0).toBe(
        branches.reduce((n, t) => n + Math.max(1, t.target?.length ?? 1), 0),
      );
    }
  });

  // A screen a flow rests on until the app leaves it by navigation is a final state: the flow is over.
  it.each(Object.keys(MACHINES))('%s: no state but a final one is a dead end', (key) => {
    expect(deadEnds(MACHINES[key]!)).toEqual([]);
  });

  it('finds a dead end: a state with no way out of any kind', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'a',
      states: { a: { always: { target: 'b' } }, b: { on: { GO: 'c' } }, c: {}, d: { type: 'final' } },
    });
    expect(deadEnds(machine)).toEqual(['m.c']);
  });

  it('finds a region resting for good only when no region leads out of the parallel state', () => {
    const regions = (leave: boolean) =>
      createMachine({
        id: 'm',
        initial: 'p',
        states: {
          p: {
            type: 'parallel',
            states: {
              input: { initial: 'typing', states: { typing: leave ? { on: { DONE: '#m.done' } } : {} } },
              expiry: { initial: 'running', states: { running: { after: { 10: 'expired' } }, expired: {} } },
            },
          },
          done: { type: 'final' },
        },
      });
    expect(deadEnds(regions(true))).toEqual([]);
    expect(deadEnds(regions(false))).toEqual(['m.p.input.typing', 'm.p.expiry.expired']);
  });
});
