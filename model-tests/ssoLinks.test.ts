import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { ssoLinksMachine } from '../machines/ssoLinks.ts';
import { report, walkFrom } from './coverage.ts';
import { refuses, settle } from './events.ts';
import { list, ssoLinksModel } from './ssoLinks.model.ts';

describe('linked Microsoft accounts: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(ssoLinksModel);
    console.info(report('ssoLinks', result));
    expect(result.missing).toEqual([]);
  });
});

describe('linked Microsoft accounts: behaviour', () => {
  function start(unlink: (id: string) => Promise<void>) {
    const calls: string[] = [];
    const actor = createActor(
      ssoLinksMachine.provide({
        actors: {
          listIdentities: fromPromise(async () => list),
          unlink: fromPromise(async ({ input }) => {
            calls.push(input.id);
            return unlink(input.id);
          }),
        },
      }),
    ).start();
    return { actor, calls };
  }

  it('unlinks only after a yes, then reads the list again and says so', async () => {
    const { actor, calls } = start(async () => {});
    await settle();
    actor.send({ type: 'UNLINK', id: 'one' });
    actor.send({ type: 'CANCEL' });
    expect(calls).toEqual([]);
    actor.send({ type: 'UNLINK', id: 'one' });
    actor.send({ type: 'CONFIRM' });
    await settle();
    await settle();
    expect(calls).toEqual(['one']);
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context.notice).toBe('unlinked');
  });

  it('keeps the list and names the refusal: a step-up needed, or the last identity of a Microsoft-only account', async () => {
    for (const code of ['step_up_required', 'sso_last_identity']) {
      const { actor } = start(refuses(code === 'step_up_required' ? 403 : 409, { code }));
      await settle();
      actor.send({ type: 'UNLINK', id: 'two' });
      actor.send({ type: 'CONFIRM' });
      await settle();
      expect(actor.getSnapshot().value).toBe('ready');
      expect(actor.getSnapshot().context).toMatchObject({ error: code, pending: null });
      expect(actor.getSnapshot().context.identities).toHaveLength(2);
    }
  });

  it('shows nothing when Microsoft sign-in is off', async () => {
    const actor = createActor(
      ssoLinksMachine.provide({
        actors: {
          listIdentities: fromPromise(refuses(404, { code: 'sso_unavailable' })) as never,
        },
      }),
    ).start();
    await settle();
    expect(actor.getSnapshot().value).toBe('off');
  });
});
