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
