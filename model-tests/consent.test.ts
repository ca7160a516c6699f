import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { AuthorizeAnswer } from '../contract/schemas.ts';
import { consentMachine } from '../machines/consent.ts';
import { report, walkAll } from './coverage.ts';
import { answered, asking, consentModel } from './consent.model.ts';
import { refuses, settle } from './events.ts';

describe('consent machine: model', () => {
  it('takes every declared transition, eventless branches included', () => {
    const result = walkAll(consentModel);
    console.info(report('consent', result));
    expect(result.missing).toEqual([]);
  });

  it('asks nothing without a uid: the request is gone', () => {
    const actor = createActor(consentMachine, { input: { uid: null } }).start();
    expect(actor.getSnapshot().value).toBe('gone');
  });
});

describe('consent machine: behaviour', () => {
  function run(
    read: () => Promise<AuthorizeAnswer>,
    send: (input: { uid: string; approve: boolean }) => Promise<{ target: string }>,
  ) {
    const left: string[] = [];
    const actor = createActor(
      consentMachine.provide({
        actors: { readRequest: fromPromise(read), sendApproval: fromPromise(({ input }) => send(input)) },
        actions: {
          leaveTo: (_, { url }) => {
            left.push(url);
          },
        },
      }),
      { input: { uid: 'abc' } },
    ).start();
    return { actor, left };
  }

  it('asks, sends the acceptance once, and leaves for the authorisation server', async () => {
    const sent: boolean[] = [];
    const { actor, left } = run(
      async () => asking,
      async ({ approve }) => {
        sent.push(approve);
        return { target: '/oidc/auth/abc' };
      },
    );
    await settle();
    expect(actor.getSnapshot().value).toBe('asking');
    expect(actor.getSnapshot().context.scopes).toEqual(['openid', 'user']);
    actor.send({ type: 'ACCEPT' });
    // A second click while the answer travels changes nothing.
    actor.send({ type: 'REFUSE' });
    await settle();
    expect(sent).toEqual([true]);
    expect(left).toEqual(['/oidc/auth/abc']);
  });

  it('shows the refusal and leaves only when the person asks to go back', async () => {
    const { actor, left } = run(
      async () => asking,
      async () => ({ target: '/oidc/auth/abc' }),
    );
    await settle();
    actor.send({ type: 'REFUSE' });
    await settle();
    expect(actor.getSnapshot().value).toBe('refused');
    expect(left).toEqual([]);
    actor.send({ type: 'RETURN' });
    expect(left).toEqual(['/oidc/auth/abc']);
  });

  it('goes on at once when the request was answered already, and says so when it is gone', async () => {
    const first = run(
      async () => answered,
      async () => ({ target: 'x' }),
    );
    await settle();
    expect(first.left).toEqual(['/oidc/auth/abc']);
    const second = run(refuses(410, { code: 'authorization_expired' }), async () => ({ target: 'x' }));
    await settle();
    expect(second.actor.getSnapshot().value).toBe('gone');
  });

  it('keeps the question after a failed answer, with the failure, and can load again after a failed read', async () => {
    let reads = 0;
    const { actor } = run(
      async () => {
        reads += 1;
        if (reads === 1) throw apiFailure(0, {});
        return asking;
      },
      refuses(503, { code: 'database_unavailable' }),
    );
    await settle();
    expect(actor.getSnapshot().value).toBe('failed');
    actor.send({ type: 'RETRY' });
    await settle();
    actor.send({ type: 'ACCEPT' });
    await settle();
    expect(actor.getSnapshot().value).toBe('asking');
    expect(actor.getSnapshot().context.error).toBe('database_unavailable');
  });
});
