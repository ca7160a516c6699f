import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { securityMachine } from '../machines/security.ts';
import { report, walkFrom } from './coverage.ts';
import { settle } from './events.ts';
import { methods, securityModel } from './security.model.ts';

describe('MFA settings machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(securityModel);
    console.info(report('security', result));
    expect(result.missing).toEqual([]);
  });

  it('refreshes the list after a deletion and reports the refusal of the last method', async () => {
    let list = methods;
    const actor = createActor(
      securityMachine.provide({
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
      { input: {} },
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
      securityMachine.provide({
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
      { input: {} },
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

describe('security settings machine: after a method was added', () => {
  it('says so once, and the next change says its own', async () => {
    const actor = createActor(
      securityMachine.provide({
        actors: { listMethods: fromPromise(async () => methods), switchPrimary: fromPromise(async () => {}) },
      }),
      { input: { notice: 'added' } },
    ).start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(actor.getSnapshot().context).toMatchObject({ notice: 'added', methods });
    actor.send({ type: 'SWITCH', id: 2 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(actor.getSnapshot().context.notice).toBe('switched');
    const plain = createActor(securityMachine, { input: {} });
    expect(plain.getSnapshot().context.notice).toBeNull();
  });
});
