import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { Device } from '../contract/schemas.ts';
import { devicesMachine, type DeviceAction } from '../machines/devices.ts';
import { report, walk, walkFrom } from './coverage.ts';
import { devices, devicesModel } from './devices.model.ts';
import { done, failingOnce, refuses, settle } from './events.ts';

describe('devices machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(devicesModel);
    console.info(report('devices', result));
    expect(result.missing).toEqual([]);
  });

  it('offers nothing when only this device is signed in', () => {
    const result = walk(devicesMachine, {
      events: () =>
        [done('listDevices', [devices[0]]), { type: 'LOG_OUT_OTHERS' }, { type: 'LOG_OUT', id: 'here' }] as never,
    });
    expect(
      Object.values(result.adjacency).some(({ state }) => (state as { value: unknown }).value === 'confirming'),
    ).toBe(false);
  });
});

describe('devices machine: behaviour', () => {
  async function start(
    options: { list?: () => Promise<Device[]>; run?: (action: DeviceAction) => Promise<void> } = {},
  ) {
    const calls: DeviceAction[] = [];
    const actor = createActor(
      devicesMachine.provide({
        actors: {
          listDevices: fromPromise(options.list ?? (async () => devices)),
          runAction: fromPromise(async ({ input }) => {
            calls.push(input);
            if (options.run) return options.run(input);
          }),
        },
      }),
    ).start();
    await settle();
    return { actor, calls };
  }

  it('signs a device out only after a yes, reloads the list and says so', async () => {
    const { actor, calls } = await start();
    expect(actor.getSnapshot().value).toBe('ready');
    actor.send({ type: 'LOG_OUT', id: 'phone' });
    expect(actor.getSnapshot().context.pending).toEqual({ action: 'logout', id: 'phone' });
    actor.send({ type: 'CANCEL' });
    expect(actor.getSnapshot().context.pending).toBeNull();
    expect(calls).toEqual([]);
    actor.send({ type: 'LOG_OUT', id: 'phone' });
    actor.send({ type: 'CONFIRM' });
    expect(actor.getSnapshot().value).toBe('acting');
    await settle();
    await settle();
    expect(calls).toEqual([{ action: 'logout', id: 'phone' }]);
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({ notice: 'loggedOut', error: null, pending: null });
    actor.send({ type: 'DISMISS' });
    expect(actor.getSnapshot().context.notice).toBeNull();
  });

  it('does not sign out this device or one already signed out by the per-device action', async () => {
    const { actor } = await start();
    actor.send({ type: 'LOG_OUT', id: 'here' });
    actor.send({ type: 'LOG_OUT', id: 'old' });
    expect(actor.getSnapshot().value).toBe('ready');
  });

  it('signs out everywhere else after a yes', async () => {
    const { actor, calls } = await start();
    actor.send({ type: 'LOG_OUT_OTHERS' });
    actor.send({ type: 'CONFIRM' });
    await settle();
    await settle();
    expect(calls).toEqual([{ action: 'others' }]);
    expect(actor.getSnapshot().context.notice).toBe('loggedOutOthers');
  });

  it('ends, signed out, after signing out everywhere', async () => {
    const { actor, calls } = await start();
    actor.send({ type: 'LOG_OUT_EVERYWHERE' });
    expect(actor.getSnapshot().value).toBe('confirming');
    actor.send({ type: 'CONFIRM' });
    await settle();
    expect(calls).toEqual([{ action: 'everywhere' }]);
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().output).toEqual({ signedOut: true });
  });

  it('withdraws a trust at once, and reports the step-up the server asks for', async () => {
    let refuse = true;
    const { actor, calls } = await start({
      run: async () => {
        if (refuse) throw apiFailure(403, { code: 'step_up_required' });
      },
    });
    actor.send({ type: 'UNTRUST', id: 'here' });
    expect(actor.getSnapshot().value).toBe('ready');
    actor.send({ type: 'UNTRUST', id: 'phone' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({ error: 'step_up_required', pending: null });
    refuse = false;
    actor.send({ type: 'UNTRUST', id: 'phone' });
    await settle();
    await settle();
    expect(calls).toHaveLength(2);
    expect(actor.getSnapshot().context).toMatchObject({ notice: 'untrusted', error: null });
  });

  it('takes a device already signed out elsewhere as signed out', async () => {
    const { actor } = await start({ run: refuses(404, { code: 'not_found' }) });
    actor.send({ type: 'LOG_OUT', id: 'phone' });
    actor.send({ type: 'CONFIRM' });
    await settle();
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ notice: 'loggedOut', error: null });
  });

  it('offers to try again when the list cannot load', async () => {
    const { actor } = await start({ list: failingOnce([]) });
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe('database_unavailable');
    actor.send({ type: 'RETRY' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({ error: null, devices: [] });
  });
});
