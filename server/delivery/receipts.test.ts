// Delivery receipts, from the provider's side and from an attacker's: a provider with a receipt
// secret reports what became of each message it took, signed; a receipt that comes late, twice, out
// of order or before the node wrote the message down never moves it back; an unsigned, stale or
// malformed one changes nothing; a provider without receipts counts as delivered once it took it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { startSmsProvider, type SmsProvider } from '../testing/peers.ts';
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  deliveryOf,
  forgetOldDeliveries,
  recordDelivery,
  signReceipt,
} from './receipts.ts';

const kinds = await databaseKinds();
const SECRET = 'receipts-secret-of-the-first-provider-0123456789';

describe.each(kinds)('delivery receipts (%s)', (kind) => {
  let server: TestServer;
  let first: SmsProvider;
  let second: SmsProvider;

  beforeAll(async () => {
    first = await startSmsProvider();
    second = await startSmsProvider();
    server = await startTestServer(
      kind,
      { SMS_PROVIDERS: `first=${first.url},second=${second.url}`, DELIVERY_RECEIPT_SECRET_FIRST: SECRET },
      { seed: false },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await first?.stop();
    await second?.stop();
  });
  beforeEach(async () => {
    first.failing = false;
    first.requests.length = 0;
    second.requests.length = 0;
    await server.ctx.db.deleteFrom('message_deliveries').execute();
  });

  /** A message handed to the providers; its id, as the provider that took it was told. */
  const send = async (provider: SmsProvider) => {
    await server.ctx.outbox.enqueue(server.ctx.db, {
      channel: 'sms',
      to: '+32470000003',
      subject: '',
      body: 'Your code is 12345678',
      ttlSeconds: 600,
    });
    await server.ctx.outbox.drain();
    return provider.requests.at(-1)!.idempotencyKey!;
  };
  const receipt = (
    body: object | string,
    options: { provider?: string; secret?: string; timestamp?: number; signature?: string } = {},
  ) => {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    return server.app.inject({
      method: 'POST',
      url: `/api/delivery/receipts/${options.provider ?? 'first'}`,
      headers: {
        'content-type': 'application/json',
        [TIMESTAMP_HEADER]: String(timestamp),
        [SIGNATURE_HEADER]: options.signature ?? signReceipt(options.secret ?? SECRET, timestamp, payload),
      },
      payload,
    });
  };
  const status = async (id: string) => (await deliveryOf(server.ctx.db, id))?.status ?? null;
  const metric = async (line: RegExp) => {
    const text = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(line.exec(text)?.[1] ?? NaN);
  };

  it('marks a message sent once its provider took it, then delivered by its receipt, once, whatever comes after', async () => {
    const id = await send(first);
    expect(await deliveryOf(server.ctx.db, id)).toMatchObject({ channel: 'sms', provider: 'first', status: 'sent' });

    const delivered = await receipt({ id, status: 'delivered' });
    expect(delivered.statusCode).toBe(204);
    expect(await status(id)).toBe('delivered');
    // Twice, then a failure that arrives late: a delivery is final.
    expect((await receipt({ id, status: 'delivered' })).statusCode).toBe(204);
    expect((await receipt({ id, status: 'failed' })).statusCode).toBe(204);
    expect((await receipt({ id, status: 'unknown' })).statusCode).toBe(204);
    expect(await status(id)).toBe('delivered');

    expect(await metric(/^tessera_delivery_receipts_total\{provider="first",status="delivered"\} (\d+)$/m)).toBe(2);
    // Time to delivery is measured once, for the first receipt that says so.
    expect(await metric(/^tessera_delivery_seconds_count\{channel="sms"\} (\d+)$/m)).toBe(1);
  });

  it('raises a status and never lowers it: unknown, then failed, then delivered; a failure outranks an unknown', async () => {
    const id = await send(first);
    await receipt({ id, status: 'unknown' });
    expect(await status(id)).toBe('unknown');
    await receipt({ id, status: 'failed' });
    expect(await status(id)).toBe('failed');
    await receipt({ id, status: 'unknown' });
    expect(await status(id)).toBe('failed');
    await receipt({ id, status: 'delivered' });
    expect(await status(id)).toBe('delivered');
  });

  it("keeps a receipt that arrives before the node wrote the message down, and the node's record fills in the rest", async () => {
    const id = 'message-not-yet-written';
    expect((await receipt({ id, status: 'delivered', at: '2026-12-01T09:00:05.000Z' })).statusCode).toBe(204);
    expect(await deliveryOf(server.ctx.db, id)).toMatchObject({ channel: null, status: 'delivered', sent_at: null });
    await recordDelivery(server.ctx.db, {
      id,
      provider: 'first',
      channel: 'sms',
      status: 'sent',
      at: '2026-12-01T09:00:00.000Z',
    });
    expect(await deliveryOf(server.ctx.db, id)).toMatchObject({
      channel: 'sms',
      status: 'delivered',
      sent_at: '2026-12-01T09:00:00.000Z',
      updated_at: '2026-12-01T09:00:05.000Z',
    });
  });

  it('counts a provider without receipts as delivered once it took a message, and takes no receipt for it', async () => {
    first.failing = true;
    const id = await send(second);
    expect(await deliveryOf(server.ctx.db, id)).toMatchObject({ provider: 'second', status: 'delivered' });
    const forged = await receipt({ id, status: 'failed' }, { provider: 'second' });
    expect(forged.statusCode).toBe(404);
    expect(await status(id)).toBe('delivered');
    expect((await receipt({ id, status: 'failed' }, { provider: 'nobody' })).statusCode).toBe(404);
  });

  it('refuses an unsigned, wrongly signed, replayed or malformed receipt, and changes nothing', async () => {
    const id = await send(first);
    const now = Math.floor(Date.now() / 1000);
    const refusals = [
      await receipt({ id, status: 'failed' }, { signature: '' }),
      await receipt({ id, status: 'failed' }, { secret: 'another-secret-of-at-least-32-characters!!' }),
      // Signed for another body.
      await receipt({ id, status: 'failed' }, { signature: signReceipt(SECRET, now, '{}') }),
      // Signed, but long ago (a replay) or far ahead.
      await receipt({ id, status: 'failed' }, { timestamp: now - 600 }),
      await receipt({ id, status: 'failed' }, { timestamp: now + 600 }),
    ];
    for (const refused of refusals) {
      expect(refused.statusCode).toBe(401);
      expect(refused.json().code).toBe('unauthorized');
    }
    const malformed = [
      await receipt('not json'),
      await receipt({ id, status: 'lost' }),
      await receipt({ id, status: 'failed', extra: true }),
      await receipt({ id: '', status: 'failed' }),
      await receipt({ id, status: 'failed', at: 'yesterday' }),
    ];
    for (const refused of malformed) {
      expect(refused.statusCode).toBe(400);
      expect(['invalid_json', 'invalid_request']).toContain(refused.json().code);
    }
    const tooLarge = await receipt({ id, status: 'failed', padding: 'x'.repeat(5000) });
    expect(tooLarge.statusCode).toBe(413);
    expect(await status(id)).toBe('sent');
    expect(await server.ctx.db.selectFrom('message_deliveries').select('id').execute()).toHaveLength(1);
  });

  it('forgets what became of messages a day on', async () => {
    const id = await send(first);
    await forgetOldDeliveries(server.ctx.db, Date.now() + 23 * 3600_000);
    expect(await status(id)).toBe('sent');
    await forgetOldDeliveries(server.ctx.db, Date.now() + 25 * 3600_000);
    expect(await status(id)).toBeNull();
  });
});
