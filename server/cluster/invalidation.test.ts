// Keys rotated by the command line are used by every instance at once: the change is announced
// through Redis, each instance reloads and answers, and the announcement returns once all that
// heard it have, or after a second for one that does not answer. No sleep: the test waits for the
// announcement alone.
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateSigningKeys } from '../oidc/keys.ts';
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
