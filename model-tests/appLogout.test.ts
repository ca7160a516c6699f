import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { LogoutRequestAnswer } from '../contract/schemas.ts';
import { appLogoutMachine, type AppLogoutInput, type LogoutAnswer } from '../machines/appLogout.ts';
import { report, walkAll } from './coverage.ts';
import { REF, appLogoutModel, request } from './appLogout.model.ts';
import { refuses, settle } from './events.ts';

describe('appLogout machine: model', () => {
  it('takes every declared transition, eventless branches included', () => {
    const result = walkAll(appLogoutModel);
    console.info(report('appLogout', result));
    expect(result.missing).toEqual([]);
  });
});

describe('appLogout machine: behaviour', () => {
  function run(
    read: () => Promise<LogoutRequestAnswer>,
    input: AppLogoutInput = { step: 'confirm', search: `?ref=${REF}` },
  ) {
    const answers: LogoutAnswer[] = [];
    const reads: string[] = [];
    const actor = createActor(
      appLogoutMachine.provide({
        actors: {
          readLogout: fromPromise(({ input: { ref } }) => {
            reads.push(ref);
            return read();
          }),
        },
        actions: { answer: (_, params) => void answers.push(params) },
      }),
      { input },
    ).start();
    return { actor, answers, reads };
  }

  it('reads the request by its reference, names the application, and posts "yes" once', async () => {
    const { actor, answers, reads } = run(async () => request);
    await settle();
    expect(reads).toEqual([REF]);
    expect(actor.getSnapshot().value).toBe('asking');
    expect(actor.getSnapshot().context.client?.name).toBe('Deals partner');
    actor.send({ type: 'SIGN_OUT' });
    // A second click while the page leaves changes nothing.
    actor.send({ type: 'STAY' });
    expect(answers).toEqual([{ action: '/oidc/session/end/confirm', xsrf: 'xsrf-secret', logout: true }]);
  });

  it('posts "no" without logout: the person stays signed in to Tessera', async () => {
    const { actor, answers } = run(async () => request);
    await settle();
    actor.send({ type: 'STAY' });
    expect(answers).toEqual([{ action: '/oidc/session/end/confirm', xsrf: 'xsrf-secret', logout: false }]);
  });

  it('says a request is gone without asking: unknown, or no reference at all', async () => {
    const unknown = run(refuses(404, { code: 'not_found' }));
    await settle();
    expect(unknown.actor.getSnapshot().value).toBe('gone');
    const none = run(async () => request, { step: 'confirm', search: '?ref=short' });
    expect(none.actor.getSnapshot().value).toBe('gone');
    expect(none.reads).toEqual([]);
  });

  it('can load again after a failed read, and shows the success as it came', async () => {
    let reads = 0;
    const { actor } = run(async () => {
      reads += 1;
      if (reads === 1) throw apiFailure(0, {});
      return request;
    });
    await settle();
    expect(actor.getSnapshot().value).toBe('failed');
    actor.send({ type: 'RETRY' });
    await settle();
    expect(actor.getSnapshot().value).toBe('asking');
    const stayed = run(async () => request, { step: 'done', search: '?client_id=2' });
    expect(stayed.actor.getSnapshot().value).toBe('done');
    expect(stayed.actor.getSnapshot().context.stayed).toBe(true);
    expect(run(async () => request, { step: 'done', search: '' }).actor.getSnapshot().context.stayed).toBe(false);
  });
});
