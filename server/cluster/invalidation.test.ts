// Keys rotated and clients changed by the command line are used by every instance at once: the
// change is announced through Redis, each instance reloads (or drops the client rows it keeps) and
// answers, and the announcement returns once all that heard it have, or after a second for one that
// does not answer. No sleep: the test waits for the announcement alone.
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateSigningKeys } from '../oidc/keys.ts';
import { addClient } from '../oidc/registry.ts';
import { cliOn } from '../testing/cli.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { freePort } from '../testing/ports.ts';
import { hasRedisServer, startRedis, stopRedis } from '../testing/redis.ts';
import { announceChange } from './invalidation.ts';

const kinds = await databaseKinds();

describe.runIf(hasRedisServer && kinds.includes('postgres'))('a change announced to every instance (postgres)', () => {
  let redisProcess: ChildProcess;
  let redis: Redis;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    const port = await freePort();
    redisProcess = await startRedis(port);
    const env = { REDIS_URL: `redis://127.0.0.1:${port}` };
    a = await startTestServer('postgres', env, { seed: false });
    b = await startTestServer('postgres', env, { sharing: a, seed: false });
    await Promise.all([a.changesHeard, b.changesHeard]);
    redis = new Redis(port, '127.0.0.1');
  });
  afterAll(async () => {
    redis?.disconnect();
    await b?.stop();
    await a?.stop();
    await stopRedis(redisProcess);
  });

  const kidsOf = async (server: TestServer) => {
    const res = await server.app.inject({ method: 'GET', url: '/oidc/jwks' });
    return (res.json().keys as { kid: string }[]).map((key) => key.kid);
  };

  it('has every instance publish rotated keys once the announcement returns', async () => {
    const before = await kidsOf(b);
    const rotated = await rotateSigningKeys(a.ctx.db, a.ctx.config.secretKey);
    // Not yet: an instance polls every 30 s.
    expect(await kidsOf(b)).toEqual(before);
    expect(await announceChange(redis, 'oidc-keys')).toEqual({ instances: 2, reloaded: 2 });
    for (const server of [a, b]) expect(await kidsOf(server)).toEqual(expect.arrayContaining(rotated.kids));
  });

  it("has every instance use a client's new secret once the command that changed it returns", async () => {
    const { secret } = await addClient(
      a.ctx.db,
      'shared-app',
      { name: 'Shared app', redirect_uris: ['http://127.0.0.1/cb'] },
      { confidential: true },
    );
    /** A token request to the instance as the client with that secret: 401 when it is refused, 400
     * (a code nobody issued) once it is taken. */
    const presenting = async (server: TestServer, presented: string) =>
      (
        await server.app.inject({
          method: 'POST',
          url: '/oidc/token',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`shared-app:${presented}`).toString('base64')}`,
          },
          payload: new URLSearchParams({
            grant_type: 'authorization_code',
            code: 'x'.repeat(43),
            redirect_uri: 'http://127.0.0.1/cb',
            code_verifier: 'v'.repeat(43),
          }).toString(),
        })
      ).statusCode;
    // Each instance has read the client, and keeps it.
    for (const server of [a, b]) expect(await presenting(server, secret!)).toBe(400);
    const edit = await cliOn(a, 'clients', 'edit', 'shared-app', '--rotate-secret');
    expect(edit.code).toBe(0);
    expect(edit.out).toContain('All 2 running instances use the change now.');
    const rotated = /^Secret: ([\w-]{43})$/m.exec(edit.out)![1]!;
    for (const server of [a, b]) {
      expect(await presenting(server, secret!)).toBe(401);
      expect(await presenting(server, rotated)).toBe(400);
    }
  });

  it('returns (after ACK_TIMEOUT_MS) when an instance that heard it does not answer, saying so', async () => {
    const silent = redis.duplicate();
    await silent.subscribe('tessera:invalidate');
    try {
      expect(await announceChange(redis, 'oidc-keys')).toEqual({ instances: 3, reloaded: 2 });
    } finally {
      silent.disconnect();
    }
  });
});
