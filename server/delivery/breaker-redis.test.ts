// With Redis, the providers' circuits live there: instances on different databases share them,
// one sender alone tries a half-open provider, and while Redis is away the database keeps them.
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.ts';
import type { DatabaseHandle } from '../db/index.ts';
import { createTestDatabase, databaseKinds } from '../testing/harness.ts';
import { startSmsProvider, type SmsProvider } from '../testing/peers.ts';
import { freePort } from '../testing/ports.ts';
import { hasRedisServer, startRedis, stopRedis } from '../testing/redis.ts';
import { createDelivery, type Message } from './index.ts';

const kinds = await databaseKinds();

describe.each(hasRedisServer ? kinds : [])('delivery circuits in Redis (%s)', (kind) => {
  const databases: Awaited<ReturnType<typeof createTestDatabase>>[] = [];
  const handles: DatabaseHandle[] = [];
  const clients: Redis[] = [];
  let redisServer: ChildProcess | null = null;
  let first: SmsProvider;
  let second: SmsProvider;
  let now = Date.parse('2026-12-01T09:00:00Z');
  let sequence = 0;

  const sms = (): Message => {
    sequence += 1;
    return { id: `message-${sequence}`, channel: 'sms', to: '+32470000003', subject: '', body: `code ${sequence}` };
  };

  beforeAll(async () => {
    const port = await freePort();
    redisServer = await startRedis(port);
    first = await startSmsProvider();
    second = await startSmsProvider();
    for (let i = 0; i < 2; i++) {
      const database = await createTestDatabase(kind);
      databases.push(database);
      handles.push(await database.open());
      // As the server connects (server/app.ts).
      const client = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 2, commandTimeout: 1000 });
      client.on('error', () => {});
      clients.push(client);
    }
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await stopRedis(redisServer);
    await first?.stop();
    await second?.stop();
    for (const database of databases) await database.drop();
  });

  const instance = (index: number) =>
    createDelivery(
      loadConfig({
        NODE_ENV: 'test',
        SMS_PROVIDERS: `first=${first.url},second=${second.url}`,
        DELIVERY_TIMEOUT_MS: '1000',
        DELIVERY_BREAKER_FAILURES: '3',
      }),
      handles[index]!.db,
      undefined,
      { redis: clients[index]!, now: () => now },
    );

  it('shares a circuit between instances on different databases, and lets one sender try it half-open', async () => {
    const [one, two] = [instance(0), instance(1)];
    first.failing = true;
    for (let i = 0; i < 3; i++) await one.send(sms());
    expect(first.requests).toHaveLength(3);
    await two.send(sms());
    expect(first.requests).toHaveLength(3);
    expect((await two.circuits())[0]).toEqual({ provider: 'first', state: 'open' });
    for (const handle of handles)
      expect(await handle.db.selectFrom('delivery_circuits').selectAll().execute()).toEqual([]);

    now += 31_000;
    first.failing = false;
    first.hanging = true;
    second.messages.length = 0;
    await Promise.all([one, two, one, two].map((delivery) => delivery.send(sms())));
    expect(first.requests).toHaveLength(4);
    expect(second.messages).toHaveLength(4);

    now += 31_000;
    first.hanging = false;
    await two.send(sms());
    expect(first.messages).toHaveLength(1);
    expect((await one.circuits())[0]).toEqual({ provider: 'first', state: 'closed' });
  });

  it('keeps the circuits in the database while Redis is away', async () => {
    const one = instance(0);
    await stopRedis(redisServer);
    redisServer = null;
    await expect.poll(() => clients[0]!.status).not.toBe('ready');
    first.failing = true;
    first.requests.length = 0;
    second.messages.length = 0;
    await one.send(sms());
    expect(first.requests).toHaveLength(1);
    expect(second.messages).toHaveLength(1);
    expect(await handles[0]!.db.selectFrom('delivery_circuits').select(['provider', 'failures']).execute()).toEqual([
      { provider: 'first', failures: 1 },
    ]);
  });
});
