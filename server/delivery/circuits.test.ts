// What operators see of the delivery providers: /metrics counts each provider's attempts by outcome
// and shows each circuit; /readyz stays 200 but says `degraded`, naming the provider, while a
// circuit is open; the outbox retries a message only when every provider failed it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { startSmsProvider, type SmsProvider } from '../testing/peers.ts';

const kinds = await databaseKinds();

describe.each(kinds)('delivery circuits on the server (%s)', (kind) => {
  let server: TestServer;
  let first: SmsProvider;
  let second: SmsProvider;
  let now = Date.parse('2026-12-01T09:00:00Z');

  beforeAll(async () => {
    first = await startSmsProvider();
    second = await startSmsProvider();
    server = await startTestServer(
      kind,
      {
        SMS_PROVIDERS: `first=${first.url},second=${second.url}`,
        DELIVERY_BREAKER_FAILURES: '2',
        DELIVERY_BREAKER_COOLDOWN_SECONDS: '30',
      },
      { seed: false, now: () => now },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await first?.stop();
    await second?.stop();
  });

  const send = async (body: string) => {
    await server.ctx.outbox.enqueue(server.ctx.db, {
      channel: 'sms',
      to: '+32470000002',
      subject: '',
      body,
      ttlSeconds: 600,
    });
    await server.ctx.outbox.drain();
  };
  const metric = async (line: RegExp) => {
    const text = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(line.exec(text)?.[1] ?? NaN);
  };
  const readyz = async () => {
    const res = await server.app.inject({ method: 'GET', url: '/readyz' });
    return { status: res.statusCode, body: res.json() };
  };

  it('reports the circuit open in /metrics and /readyz while the other provider serves, and closed again after', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });
    first.failing = true;
    await send('one');
    await send('two');
    await send('three');
    expect(first.requests).toHaveLength(2);
    expect(second.messages.map((m) => m.text)).toEqual(['one', 'two', 'three']);

    expect(await readyz()).toEqual({
      status: 200,
      body: { status: 'degraded', checks: { database: 'ok', delivery: { first: 'open' } } },
    });
    expect(await metric(/^tessera_delivery_circuit_state\{provider="first"\} (\d+)$/m)).toBe(2);
    expect(await metric(/^tessera_delivery_circuit_state\{provider="second"\} (\d+)$/m)).toBe(0);
    expect(await metric(/^tessera_deliveries_total\{channel="sms",provider="first",outcome="failed"\} (\d+)$/m)).toBe(
      2,
    );
    expect(await metric(/^tessera_deliveries_total\{channel="sms",provider="first",outcome="skipped"\} (\d+)$/m)).toBe(
      1,
    );
    expect(await metric(/^tessera_deliveries_total\{channel="sms",provider="second",outcome="sent"\} (\d+)$/m)).toBe(3);

    now += 31_000;
    expect((await readyz()).body.checks.delivery).toEqual({ first: 'half_open' });
    expect(await metric(/^tessera_delivery_circuit_state\{provider="first"\} (\d+)$/m)).toBe(1);
    first.failing = false;
    await send('four');
    expect(first.messages.map((m) => m.text)).toEqual(['four']);
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });
    expect(await metric(/^tessera_delivery_circuit_state\{provider="first"\} (\d+)$/m)).toBe(0);
  });

  it('keeps a message for the next retry only when every provider failed it, with the same key on each', async () => {
    first.failing = true;
    second.failing = true;
    first.requests.length = 0;
    second.requests.length = 0;
    await send('five');
    const waiting = await server.ctx.db.selectFrom('message_outbox').selectAll().executeTakeFirstOrThrow();
    expect(waiting).toMatchObject({ attempts: 1, failed_at: null });
    expect(waiting.last_error).toMatch(/first: provider answered 500; second: provider answered 500/);
    expect(first.requests.map((m) => m.idempotencyKey)).toEqual([waiting.id]);
    expect(second.requests.map((m) => m.idempotencyKey)).toEqual([waiting.id]);
  });
});

describe.runIf(kinds.includes('postgres'))('an instance that stops with a message in hand (postgres)', () => {
  it('hands its lease back, so another instance sends it at once, with the same key', async () => {
    const provider = await startSmsProvider();
    const env = { SMS_PROVIDERS: `only=${provider.url}`, DELIVERY_TIMEOUT_MS: '30000' };
    const a = await startTestServer('postgres', env, { seed: false, settleMessages: false });
    let b: TestServer | null = null;
    try {
      provider.hanging = true;
      await a.ctx.outbox.enqueue(a.ctx.db, {
        channel: 'sms',
        to: '+32470000004',
        subject: '',
        body: 'held',
        ttlSeconds: 600,
      });
      a.ctx.outbox.kick();
      await expect.poll(() => provider.requests.length).toBe(1);
      const leased = await a.ctx.db.selectFrom('message_outbox').select('locked_until').executeTakeFirstOrThrow();
      expect(leased.locked_until).not.toBeNull();

      // Told to stop while the provider holds the message: the lease is given back, not left to run out.
      await a.ctx.outbox.stop();
      const row = await a.ctx.db
        .selectFrom('message_outbox')
        .select(['id', 'locked_until', 'failed_at'])
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ locked_until: null, failed_at: null });

      // Another instance takes it at once; the provider sees the same key twice and keeps one.
      provider.hanging = false;
      b = await startTestServer('postgres', env, { sharing: a, seed: false, settleMessages: false });
      await b.ctx.outbox.drain();
      expect(provider.messages.map((m) => m.idempotencyKey)).toEqual([row.id]);
      expect(provider.requests.map((m) => m.idempotencyKey)).toEqual([row.id, row.id]);
    } finally {
      await provider.stop();
      await b?.stop();
      await a.stop();
    }
  });
});
