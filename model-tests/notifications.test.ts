import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { MarketingPreferences, NotificationsAnswer } from '../contract/schemas.ts';
import { notificationsMachine } from '../machines/notifications.ts';
import { report, walkFrom } from './coverage.ts';
import { failingOnce, refuses, settle } from './events.ts';
import { answer, given, notificationsModel } from './notifications.model.ts';

describe('notifications machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(notificationsModel);
    console.info(report('notifications', result));
    expect(result.missing).toEqual([]);
  });
});

describe('notifications machine: behaviour', () => {
  async function start(
    options: {
      load?: () => Promise<NotificationsAnswer>;
      save?: (marketing: MarketingPreferences) => Promise<NotificationsAnswer>;
    } = {},
  ) {
    const saved: MarketingPreferences[] = [];
    const actor = createActor(
      notificationsMachine.provide({
        actors: {
          loadNotifications: fromPromise(options.load ?? (async () => given)),
          saveNotifications: fromPromise(async ({ input }) => {
            saved.push(input.marketing);
            return options.save ? options.save(input.marketing) : answer(input.marketing);
          }),
        },
      }),
    ).start();
    await settle();
    return { actor, saved };
  }

  it('shows what the server holds, saves the choices made, and says so', async () => {
    const { actor, saved } = await start();
    expect(actor.getSnapshot().context).toMatchObject({ marketing: given.marketing, notice: null });
    actor.send({ type: 'TOGGLE', key: 'partners', value: true });
    actor.send({ type: 'TOGGLE', key: 'email', value: false });
    actor.send({ type: 'SAVE' });
    expect(actor.getSnapshot().value).toBe('saving');
    await settle();
    expect(saved).toEqual([{ email: false, sms: false, partners: true }]);
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({
      notice: 'saved',
      saved: answer({ email: false, sms: false, partners: true }),
    });
    actor.send({ type: 'TOGGLE', key: 'sms', value: true });
    expect(actor.getSnapshot().context.notice).toBeNull();
  });

  it('keeps the choices and reports a refused save', async () => {
    const { actor } = await start({ save: refuses(500, { code: 'internal_error' }) });
    actor.send({ type: 'TOGGLE', key: 'sms', value: true });
    actor.send({ type: 'SAVE' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({
      error: 'internal_error',
      notice: null,
      marketing: { email: true, sms: true, partners: false },
    });
    actor.send({ type: 'DISMISS' });
    expect(actor.getSnapshot().context.error).toBeNull();
  });

  it('offers to try again when the settings cannot load', async () => {
    const { actor } = await start({ load: failingOnce(given) });
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe('database_unavailable');
    actor.send({ type: 'RETRY' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
  });
});
