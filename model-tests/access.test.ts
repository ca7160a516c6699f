import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { AccessGrant } from '../contract/schemas.ts';
import { accessMachine } from '../machines/access.ts';
import { report, walkFrom } from './coverage.ts';
import { accessModel, grants } from './access.model.ts';
import { failingOnce, refuses, settle } from './events.ts';

describe('access grants machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(accessModel);
    console.info(report('access', result));
    expect(result.missing).toEqual([]);
  });
});

describe('access grants machine: behaviour', () => {
  async function start(
    options: { list?: () => Promise<AccessGrant[]>; revoke?: (clientId: string) => Promise<void> } = {},
  ) {
    const calls: string[] = [];
    let current = [...grants];
    const actor = createActor(
      accessMachine.provide({
        actors: {
          listGrants: fromPromise(options.list ?? (async () => current)),
          revokeGrant: fromPromise(async ({ input }) => {
            calls.push(`revoke ${input.clientId}`);
            if (options.revoke) return options.revoke(input.clientId);
            current = current.filter((g) => g.client_id !== input.clientId);
          }),
        },
      }),
    ).start();
    await settle();
    return { actor, calls };
  }

  it('revokes only after a yes, removes the application and says so', async () => {
    const { actor, calls } = await start();
    expect(actor.getSnapshot().value).toBe('ready');
    actor.send({ type: 'REVOKE', clientId: 'deals' });
    expect(actor.getSnapshot().context.pending).toBe('deals');
    actor.send({ type: 'CANCEL' });
    expect(actor.getSnapshot().context.pending).toBeNull();
    expect(calls).toEqual([]);
    actor.send({ type: 'REVOKE', clientId: 'deals' });
    actor.send({ type: 'CONFIRM' });
    expect(actor.getSnapshot().value).toBe('revoking');
    await settle();
    expect(calls).toEqual(['revoke deals']);
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({ notice: 'revoked', error: null, pending: null });
    expect(actor.getSnapshot().context.grants.map((g) => g.client_id)).toEqual(['17']);
    actor.send({ type: 'DISMISS' });
    expect(actor.getSnapshot().context.notice).toBeNull();
  });

  it('ignores a revocation of an application that is not listed', async () => {
    const { actor } = await start();
    actor.send({ type: 'REVOKE', clientId: 'nobody' });
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context.pending).toBeNull();
  });

  it('keeps the list and reports a refused revocation', async () => {
    const { actor } = await start({ revoke: refuses(500, { code: 'internal_error' }) });
    actor.send({ type: 'REVOKE', clientId: 'deals' });
    actor.send({ type: 'CONFIRM' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({ error: 'internal_error', notice: null, pending: null });
    expect(actor.getSnapshot().context.grants).toHaveLength(2);
  });

  it('takes an access already revoked elsewhere as revoked', async () => {
    const { actor } = await start({ revoke: refuses(404, { code: 'not_found' }) });
    actor.send({ type: 'REVOKE', clientId: '17' });
    actor.send({ type: 'CONFIRM' });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ notice: 'revoked', error: null });
  });

  it('offers to try again when the list cannot load', async () => {
    const { actor } = await start({ list: failingOnce([]) });
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe('database_unavailable');
    actor.send({ type: 'RETRY' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({ error: null, grants: [] });
  });
});
