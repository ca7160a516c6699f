import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { SsoIdentity, SsoIdentityList } from '../contract/sso.ts';
import { ssoLinksMachine } from '../machines/ssoLinks.ts';
import { report, walk } from './coverage.ts';
import { done, fail, settle } from './events.ts';

const identity = (id: string): SsoIdentity => ({
  id,
  provider: 'microsoft',
  tenant: { id: 'tenant-a', name: 'Contoso' },
  email: 'ann@contoso.example',
  name: 'Ann',
  linked_at: '2026-11-01T10:00:00.000Z',
  last_used_at: null,
});
const list: SsoIdentityList = { data: [identity('one'), identity('two')], sso_only: false };

describe('linked Microsoft accounts: model', () => {
  it('takes every declared transition', () => {
    const result = walk(ssoLinksMachine, {
      events: () =>
        [
          { type: 'UNLINK', id: 'one' },
          { type: 'UNLINK', id: 'unknown' },
          { type: 'CONFIRM' },
          { type: 'CANCEL' },
          { type: 'RETRY' },
          { type: 'DISMISS' },
          done('listIdentities', list),
          fail('listIdentities', 404, 'sso_unavailable'),
          fail('listIdentities', 503, 'database_unavailable'),
          done('unlink'),
          fail('unlink', 404, 'not_found'),
          fail('unlink', 403, 'step_up_required'),
          fail('unlink', 409, 'sso_last_identity'),
        ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { identities: unknown[]; error: unknown; notice: unknown; pending: unknown };
        return JSON.stringify([value, c.identities.length, c.error, c.notice, c.pending]);
      },
    });
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
      const { actor } = start(async () => {
        throw apiFailure(code === 'step_up_required' ? 403 : 409, { code });
      });
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
          listIdentities: fromPromise(async () => {
            throw apiFailure(404, { code: 'sso_unavailable' });
          }) as never,
        },
      }),
    ).start();
    await settle();
    expect(actor.getSnapshot().value).toBe('off');
  });
});
