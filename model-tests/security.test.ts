import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { securityMachine } from '../machines/security.ts';
import { report, walkFrom } from './coverage.ts';
import { settle } from './events.ts';
import { methods, passkey, securityModel } from './security.model.ts';

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

describe('security settings machine: making a method primary', () => {
  it('names the method it makes primary while the server answers, and none once it has, or refused', async () => {
    let answer: (ok: boolean) => void = () => {};
    const actor = createActor(
      securityMachine.provide({
        actors: {
          listMethods: fromPromise(async () => methods),
          switchPrimary: fromPromise(
            () =>
              new Promise<void>((resolve, reject) => {
                answer = (ok) => (ok ? resolve() : reject(apiFailure(500, { code: 'internal_error', message: '' })));
              }),
          ),
        },
      }),
      { input: {} },
    ).start();
    await settle();
    actor.send({ type: 'SWITCH', id: 2 });
    expect(actor.getSnapshot().context.switching).toBe(2);
    answer(true);
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ switching: null, notice: 'switched' });
    actor.send({ type: 'SWITCH', id: 2 });
    expect(actor.getSnapshot().context.switching).toBe(2);
    answer(false);
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ switching: null, error: 'internal_error' });
  });
});

describe('MFA settings machine: renaming a passkey', () => {
  function start(rename: (input: { id: number; name: string }) => Promise<void> = async () => {}) {
    const renamed: Array<{ id: number; name: string }> = [];
    let list = [...methods, passkey];
    const actor = createActor(
      securityMachine.provide({
        actors: {
          listMethods: fromPromise(async () => list),
          renamePasskey: fromPromise(async ({ input }) => {
            await rename(input);
            renamed.push(input);
            list = list.map((m) => (m.id === input.id ? { ...m, name: input.name } : m));
          }),
        },
      }),
      { input: {} },
    ).start();
    return { actor, renamed };
  }

  it('opens on its current name, saves the trimmed name, says so and lists it', async () => {
    const { actor, renamed } = start();
    await settle();
    // Only a passkey has a name to give.
    actor.send({ type: 'RENAME', id: 1 });
    expect(actor.getSnapshot().value).toBe('ready');
    actor.send({ type: 'RENAME', id: passkey.id });
    expect(actor.getSnapshot().context.renaming).toEqual({ id: passkey.id, name: 'Phone', error: null });
    actor.send({ type: 'NAME', value: '  Work laptop ' });
    actor.send({ type: 'SAVE_NAME' });
    await settle();
    expect(renamed).toEqual([{ id: passkey.id, name: 'Work laptop' }]);
    expect(actor.getSnapshot().context).toMatchObject({ notice: 'renamed', renaming: null });
    expect(actor.getSnapshot().context.methods.find((m) => m.id === passkey.id)?.name).toBe('Work laptop');
  });

  it('asks for 1 to 64 characters before sending anything, and Cancel leaves the name as it was', async () => {
    const { actor, renamed } = start();
    await settle();
    actor.send({ type: 'RENAME', id: passkey.id });
    actor.send({ type: 'NAME', value: '   ' });
    actor.send({ type: 'SAVE_NAME' });
    expect(actor.getSnapshot().context.renaming?.error).toEqual({ code: 'required_passkey_name' });
    actor.send({ type: 'NAME', value: 'x'.repeat(65) });
    expect(actor.getSnapshot().context.renaming?.error).toBeNull();
    actor.send({ type: 'SAVE_NAME' });
    expect(actor.getSnapshot().context.renaming?.error).toEqual({ code: 'passkey_name_too_long' });
    actor.send({ type: 'CANCEL' });
    await settle();
    expect(renamed).toEqual([]);
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context.renaming).toBeNull();
  });

  it("keeps the form, with the server's refusal, when the name cannot be saved", async () => {
    const { actor } = start(async () => {
      throw apiFailure(404, { code: 'not_found' });
    });
    await settle();
    actor.send({ type: 'RENAME', id: passkey.id });
    actor.send({ type: 'SAVE_NAME' });
    await settle();
    expect(actor.getSnapshot().matches({ renaming: 'editing' })).toBe(true);
    expect(actor.getSnapshot().context.renaming).toMatchObject({ name: 'Phone', error: { code: 'not_found' } });
  });
});
