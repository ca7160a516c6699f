import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { totpRecoveryMachine } from '../machines/totpRecovery.ts';
import { report, walkAll } from './coverage.ts';
import { settle } from './events.ts';
import { totpRecoveryModel } from './totpRecovery.model.ts';

describe('TOTP recovery machine: model', () => {
  it('takes every declared transition, reached from a sign-in (its count known) and by a reload (counted)', () => {
    const result = walkAll(totpRecoveryModel);
    console.info(report('totpRecovery', result));
    expect(result.missing).toEqual([]);
  });
});

describe('TOTP recovery machine: behaviour', () => {
  /** The flow with its calls answering as given; `calls` records which ran. */
  function start(
    keysLeft: number | null,
    answers: {
      count?: () => Promise<number>;
      regenerate?: () => Promise<{ recovery_keys: string[] }>;
      reset?: () => Promise<void>;
    } = {},
  ) {
    const calls: string[] = [];
    const actor = createActor(
      totpRecoveryMachine.provide({
        actors: {
          countKeys: fromPromise(async () => {
            calls.push('count');
            return (answers.count ?? (async () => 4))();
          }),
          regenerate: fromPromise(async () => {
            calls.push('regenerate');
            return (answers.regenerate ?? (async () => ({ recovery_keys: ['AAAAABBBBB', 'CCCCCDDDDD'] })))();
          }),
          resetAuthenticator: fromPromise(async () => {
            calls.push('reset');
            return (answers.reset ?? (async () => {}))();
          }),
        },
      }),
      { input: { keysLeft } },
    ).start();
    return { actor, calls };
  }

  it('after a reload asks the server how many keys remain before showing the screen', async () => {
    const { actor, calls } = start(null);
    expect(actor.getSnapshot().value).toBe('counting');
    await settle();
    expect(actor.getSnapshot().value).toBe('overview');
    expect(actor.getSnapshot().context.keysLeft).toBe(4);
    expect(calls).toEqual(['count']);
  });

  it('shows the count the sign-in gave without asking, and reads an unanswered count as none left', async () => {
    const known = start(3);
    expect(known.actor.getSnapshot().value).toBe('overview');
    expect(known.calls).toEqual([]);
    const failed = start(null, { count: async () => Promise.reject(apiFailure(503, {})) });
    await settle();
    expect(failed.actor.getSnapshot().value).toBe('overview');
    expect(failed.actor.getSnapshot().context.keysLeft).toBe(0);
  });

  it('ends with the new keys, for the success page that shows them once', async () => {
    const { actor, calls } = start(1);
    actor.send({ type: 'REGENERATE' });
    await settle();
    expect(calls).toEqual(['regenerate']);
    expect(actor.getSnapshot().output).toEqual({ outcome: 'regenerated', keys: ['AAAAABBBBB', 'CCCCCDDDDD'] });
  });

  it('ends with "reset" once the authenticator is deleted, so the set-up of a new one follows', async () => {
    const { actor, calls } = start(2);
    actor.send({ type: 'RESET' });
    await settle();
    expect(calls).toEqual(['reset']);
    expect(actor.getSnapshot().output).toEqual({ outcome: 'reset' });
  });

  it('stays on the screen with the reason when new keys are refused, and a skip ends with nothing changed', async () => {
    const refused = async () => Promise.reject(apiFailure(403, { code: 'step_up_required', message: '' }));
    const { actor } = start(2, { regenerate: refused });
    actor.send({ type: 'REGENERATE' });
    await settle();
    expect(actor.getSnapshot().value).toBe('overview');
    expect(actor.getSnapshot().context).toMatchObject({ error: 'step_up_required', keys: null, keysLeft: 2 });
    actor.send({ type: 'SKIP' });
    expect(actor.getSnapshot().output).toEqual({ outcome: 'done' });
  });

  it('only notes a failed delete and goes on with the reset, whose set-up replaces the method anyway (spec §8)', async () => {
    const noted: unknown[] = [];
    const actor = createActor(
      totpRecoveryMachine.provide({
        actors: {
          resetAuthenticator: fromPromise(async (): Promise<void> => {
            throw apiFailure(503, { code: 'database_unavailable', message: '' });
          }),
        },
        actions: { note: (_, params) => void noted.push(params) },
      }),
      { input: { keysLeft: 1 } },
    ).start();
    actor.send({ type: 'RESET' });
    await settle();
    expect(noted).toEqual([{ failure: 'database_unavailable' }]);
    expect(actor.getSnapshot().output).toEqual({ outcome: 'reset' });
  });
});
