// Redis goes away and comes back: sign-in keeps working (the throttling counts fall back to the
// database meanwhile), /readyz stays 200 but says Redis is degraded, and Redis is used again
// without a restart. Runs its own throw-away redis-server, never the shared one.
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';
import { freePort } from '../testing/ports.ts';
import { hasRedisServer, startRedis, stopRedis } from '../testing/redis.ts';

const kinds = await databaseKinds();

describe.each(hasRedisServer ? kinds : [])('Redis outage on %s', (kind) => {
  let server: TestServer;
  let redis: ChildProcess | null = null;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    server = await startTestServer(kind, { REDIS_URL: `redis://127.0.0.1:${port}`, LOGIN_MAX_FAILS_PER_USER_IP: '3' });
  });
  afterAll(async () => {
    await server?.stop();
    await stopRedis(redis);
  });

  const signIn = (username: string, password: string) => passwordSignIn(server, username, password);
  const ready = async () => {
    const res = await server.app.inject({ method: 'GET', url: '/readyz' });
    return { status: res.statusCode, body: res.json() };
  };

  it('signs in without Redis, reports it degraded while ready, and uses it again once it is back', async () => {
    const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
    const luc = DEMO_USERS.find((u) => u.key === 'luxembourg')!;
    expect(await ready()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });

    await stopRedis(redis);
    redis = null;
    // Right after the loss and later on, while ioredis retries: never a 500.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await signIn(emma.email, DEMO_PASSWORD)).statusCode);
      await sleep(300);
    }
    expect(statuses).toEqual([200, 200, 200]);
    // Throttling still holds: the database counts the failures meanwhile.
    const failures = [];
    for (let i = 0; i < 4; i++) failures.push((await signIn(luc.email, 'not-the-password')).statusCode);
    expect(failures).toEqual([400, 400, 400, 429]);

    // Ready, so a load balancer keeps the instance, but saying what is missing.
    expect(await ready()).toEqual({
      status: 200,
      body: { status: 'degraded', checks: { database: 'ok', redis: 'degraded' } },
    });

    redis = await startRedis(port);
    let back = await ready();
    for (let i = 0; i < 100 && back.body.checks.redis !== 'ok'; i++) {
      await sleep(100);
      back = await ready();
    }
    expect(back).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });

    // The counts are in Redis again (the restarted server started empty).
    expect((await signIn(emma.email, 'not-the-password')).statusCode).toBe(400);
    const probe = new Redis(port, '127.0.0.1');
    try {
      expect((await probe.keys('ip:*')).length).toBeGreaterThan(0);
    } finally {
      probe.disconnect();
    }
  });
});
