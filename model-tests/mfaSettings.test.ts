import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { MfaMethodSummary } from '../contract/schemas.ts';
import { mfaSettingsMachine } from '../machines/mfaSettings.ts';
import { report, walk } from './coverage.ts';
import { done, settle } from './events.ts';

const methods: MfaMethodSummary[] = [
  { id: 1, method: 'email', target: 'e***@example.be', primary: true },
  { id: 2, method: 'sms', target: '+32•••••••56', primary: false },
];
const fail = (id: string, code: string) => ({ type: `xstate.error.actor.${id}`, error: apiFailure(409, { code }) });

describe('MFA settings machine: model', () => {
  it('takes every declared transition', () => {
    const result = walk(mfaSettingsMachine, {
      events: () =>
        [
          { type: 'SWITCH', id: 2 },
          { type: 'DELETE', id: 2 },
          { type: 'DELETE', id: 99 },
          { type: 'REGENERATE' },
          { type: 'DISMISS' },
          { type: 'CONFIRM' },
          { type: 'CANCEL' },
          { type: 'SAVED' },
          done('listMethods', methods),
          fail('listMethods', 'unauthorized'),
          done('switchPrimary'),
          fail('switchPrimary', 'step_up_required'),
          done('deleteMethod'),
          fail('deleteMethod', 'last_method'),
          done('regenerate', { recovery_keys: ['A'] }),
          fail('regenerate', 'not_found'),
        ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { methods: unknown[]; keys: unknown; error: unknown; notice: unknown; pending: unknown };
        return JSON.stringify([value, c.methods.length, !!c.keys, c.error, c.notice, c.pending]);
      },
    });
    console.info(report('mfaSettings', result));
    expect(result.missing).toEqual([]);
  });

  it('refreshes the list after a deletion and reports the refusal of the last method', async () => {
    let list = methods;
    const actor = createActor(
      mfaSettingsMachine.provide({
        actors: {
          listMethods: fromPromise(async () => list),
          switchPrimary: fromPromise(async () => {}),
          deleteMethod: fromPromise(async ({ input }) => {
            if (list.length === 1) throw apiFailure(409, { code: 'last_method' });
            list = list.filter((m) => m.id !== input.id);
          }),
          regenerate: fromPromise(async () => ({ recovery_keys: [] as string[] })),
        },
      }),
    ).start();
    await settle();
    actor.send({ type: 'DELETE', id: 2 });
    actor.send({ type: 'CONFIRM' });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ notice: 'deleted', methods: [methods[0]] });
    actor.send({ type: 'DELETE', id: 1 });
    actor.send({ type: 'CONFIRM' });
    await settle();
    expect(actor.getSnapshot().context.error).toBe('last_method');
  });

  it('deletes and regenerates only after a yes; a no changes nothing; new keys stay until saved', async () => {
    const calls: string[] = [];
    const actor = createActor(
      mfaSettingsMachine.provide({
        actors: {
          listMethods: fromPromise(async () => methods),
          deleteMethod: fromPromise(async ({ input }) => {
            calls.push(`delete ${input.id}`);
          }),
          regenerate: fromPromise(async () => {
            calls.push('regenerate');
            return { recovery_keys: ['K1', 'K2'] };
          }),
        },
      }),
    ).start();
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    await settle();
    actor.send({ type: 'DELETE', id: 2 });
    expect(actor.getSnapshot().context.pending).toEqual({ action: 'delete', id: 2 });
    actor.send({ type: 'CANCEL' });
    actor.send({ type: 'REGENERATE' });
    actor.send({ type: 'CANCEL' });
    await settle();
    expect(calls).toEqual([]);
    actor.send({ type: 'REGENERATE' });
    actor.send({ type: 'CONFIRM' });
    await settle();
    expect(calls).toEqual(['regenerate']);
    expect(actor.getSnapshot().context.keys).toEqual(['K1', 'K2']);
    actor.send({ type: 'SAVED' });
    expect(actor.getSnapshot().context.keys).toBeNull();
  });
});
