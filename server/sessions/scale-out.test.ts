// The server keeps no state of its own: two instances on one PostgreSQL database (and one Redis
// for the throttling counts) behave as one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { DEMO_PASSWORD, DEMO_USERS, seedDemo } from '../seed/demo.ts';
import { CAPTCHA_ON, solvedCaptcha } from '../testing/captcha.ts';
import { DEVICE, createPostgresDatabase, databaseKinds } from '../testing/harness.ts';

const kinds = await databaseKinds();
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
const withRedis = kinds.includes('postgres') && (await redisReachable());
if (!withRedis) {
  if (process.env.CI) throw new Error('PostgreSQL and Redis are required in CI for the scale-out test');
  console.warn('scale-out test needs PostgreSQL and Redis: not run');
}

describe.each(withRedis ? ['postgres+redis'] : [])('two instances on %s', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let one: App;
  let two: App;
  const prefix = `t${Date.now()}`;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    // The CAPTCHA is on (the forms' solutions count once across instances) but not at sign-in, where
    // the throttling is what this test counts.
    const env = {
      NODE_ENV: 'test',
      SPA_DIR: 'none',
      DATABASE_URL: database.url,
      REDIS_URL,
      LOGIN_MAX_FAILS_PER_USER_IP: '2',
      LOGIN_MAX_FAILS_PER_IP: '100000',
      ...CAPTCHA_ON,
      CAPTCHA_LOGIN_AFTER_FAILURES: '0',
    };
    one = await buildApp(loadConfig(env));
    await seedDemo(one.ctx);
    two = await buildApp(loadConfig(env));
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await database?.drop();
  });

  it('a token from one instance works on the other, and a sign-out on one holds on both', async () => {
    const emma = DEMO_USERS[0]!;
    const token = (
      await one.app.inject({
        method: 'POST',
        url: '/api/token',
        headers: DEVICE,
        payload: { username: emma.email, password: DEMO_PASSWORD },
      })
    ).json().access_token;
    const auth = { ...DEVICE, authorization: `Bearer ${token}` };
    expect((await two.app.inject({ method: 'GET', url: '/api/user', headers: auth })).statusCode).toBe(200);
    expect((await two.app.inject({ method: 'DELETE', url: '/api/token', headers: auth })).statusCode).toBe(204);
    expect((await one.app.inject({ method: 'GET', url: '/api/user', headers: auth })).statusCode).toBe(401);
  });

  it('a CAPTCHA solution spent on one instance is refused by the other', async () => {
    const captcha = await solvedCaptcha(one.app);
    const forgot = (app: App) =>
      app.app.inject({
        method: 'POST',
        url: '/api/user/forgot-password',
        headers: DEVICE,
        payload: { username: 'nobody@example.be', captcha },
      });
    expect((await forgot(two)).statusCode).toBe(200);
    expect((await forgot(one)).json().code).toBe('captcha_invalid');
  });

  it('throttling counts failures across instances', async () => {
    const username = `${prefix}-nobody@example.com`;
    const attempt = (app: App) =>
      app.app.inject({ method: 'POST', url: '/api/token', headers: DEVICE, payload: { username, password: 'wrong' } });
    expect((await attempt(one)).statusCode).toBe(400);
    expect((await attempt(two)).statusCode).toBe(400);
    expect((await attempt(one)).statusCode).toBe(429);
    expect((await attempt(two)).statusCode).toBe(429);
  });
});
