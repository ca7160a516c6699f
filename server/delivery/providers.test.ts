// Several providers per channel, each behind a circuit breaker shared through the database: a
// provider that fails, hangs or answers too late is passed over for the next within the same try,
// with the same idempotency key; after enough failures it is skipped for a cool-down, then one
// message tries it. Real HTTP and SMTP peers on loopback; the breaker's clock is moved by hand.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.ts';
import type { DatabaseHandle } from '../db/index.ts';
import { createTestDatabase, databaseKinds } from '../testing/harness.ts';
import { startSmsProvider, startSmtp, type SmsProvider } from '../testing/peers.ts';
import { freePort } from '../testing/ports.ts';
import { DeliveryUnavailable, createDelivery, type DeliveryOutcome, type Message } from './index.ts';

const kinds = await databaseKinds();
const START = Date.parse('2026-12-01T09:00:00Z');

describe.each(kinds)('delivery providers (%s)', (kind) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let handle: DatabaseHandle;
  let first: SmsProvider;
  let second: SmsProvider;
  let now = START;
  const clock = () => now;
  let outcomes: string[] = [];
  let sequence = 0;

  const deliveryOn = (db: DatabaseHandle, env: Record<string, string> = {}) =>
    createDelivery(
      loadConfig({
        NODE_ENV: 'test',
        SMS_PROVIDERS: `first=${first.url}, second=${second.url}`,
        DELIVERY_TIMEOUT_MS: '1000',
        DELIVERY_BREAKER_FAILURES: '3',
        DELIVERY_BREAKER_COOLDOWN_SECONDS: '30',
        ...env,
      }),
      db.db,
      undefined,
      {
        now: clock,
        observe: (channel, provider, outcome: DeliveryOutcome) => outcomes.push(`${channel} ${provider} ${outcome}`),
      },
    );
  const sms = (): Message => {
    sequence += 1;
    return { id: `message-${sequence}`, channel: 'sms', to: '+32470000001', subject: '', body: `code ${sequence}` };
  };
  const stateOf = async (delivery: ReturnType<typeof deliveryOn>, provider: string) =>
    (await delivery.circuits()).find((circuit) => circuit.provider === provider)?.state;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    handle = await database.open();
    first = await startSmsProvider();
    second = await startSmsProvider();
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
  });
  beforeEach(async () => {
    await handle.db.deleteFrom('delivery_circuits').execute();
    now = START;
    outcomes = [];
  });
  afterEach(() => {
    for (const peer of [first, second]) {
      peer.messages.length = 0;
      peer.requests.length = 0;
      peer.failing = false;
      peer.hanging = false;
      peer.delayMs = 0;
    }
  });

  it('sends to the first provider alone while it answers', async () => {
    await deliveryOn(handle).send(sms());
    expect(first.messages.map((m) => m.text)).toEqual([`code ${sequence}`]);
    expect(second.requests).toEqual([]);
    expect(outcomes).toEqual(['sms first sent']);
  });

  it('passes a failing provider over for the next, which gets the message once with the same key', async () => {
    first.failing = true;
    const message = sms();
    await deliveryOn(handle).send(message);
    expect(first.requests.map((m) => m.idempotencyKey)).toEqual([message.id]);
    expect(second.messages.map((m) => [m.idempotencyKey, m.text])).toEqual([[message.id, message.body]]);
    expect(outcomes).toEqual(['sms first failed', 'sms second sent']);
  });

  it('passes a provider that does not answer in time over for the next', async () => {
    first.hanging = true;
    await deliveryOn(handle).send(sms());
    expect(first.requests).toHaveLength(1);
    expect(second.messages).toHaveLength(1);
    expect(outcomes).toEqual(['sms first timeout', 'sms second sent']);
  });

  it('waits for a slow provider within the timeout; past it, the next one gets the same key', async () => {
    first.delayMs = 50;
    await deliveryOn(handle, { DELIVERY_TIMEOUT_MS: '10000' }).send(sms());
    expect(first.messages).toHaveLength(1);
    expect(second.requests).toEqual([]);

    first.messages.length = 0;
    first.delayMs = 3000;
    const late = sms();
    await deliveryOn(handle).send(late);
    expect(second.messages.map((m) => m.idempotencyKey)).toEqual([late.id]);
    // The slow one took it after all: the shared key lets the provider side drop the repeat.
    await expect.poll(() => first.messages.map((m) => m.idempotencyKey), { timeout: 10_000 }).toEqual([late.id]);
  });

  it('fails the attempt, naming each provider, only when every provider failed', async () => {
    first.failing = true;
    second.failing = true;
    const sending = deliveryOn(handle).send(sms());
    await expect(sending).rejects.toThrow(DeliveryUnavailable);
    await expect(sending).rejects.toThrow(/first: provider answered 500; second: provider answered 500/);
  });

  it('opens the circuit after consecutive failures, skips it for the cool-down, then closes it on one good try', async () => {
    const delivery = deliveryOn(handle);
    first.failing = true;
    for (let i = 0; i < 3; i++) await delivery.send(sms());
    expect(first.requests).toHaveLength(3);
    expect(await stateOf(delivery, 'first')).toBe('open');

    await delivery.send(sms());
    now += 29_000;
    await delivery.send(sms());
    expect(first.requests).toHaveLength(3);
    expect(second.messages).toHaveLength(5);
    expect(outcomes.slice(-2)).toEqual(['sms first skipped', 'sms second sent']);

    now += 2_000;
    expect(await stateOf(delivery, 'first')).toBe('half_open');
    first.failing = false;
    await delivery.send(sms());
    expect(first.messages).toHaveLength(1);
    expect(second.messages).toHaveLength(5);
    expect(await stateOf(delivery, 'first')).toBe('closed');
    await delivery.send(sms());
    expect(first.messages).toHaveLength(2);
  });

  it('counts only consecutive failures: a success in between starts again', async () => {
    const delivery = deliveryOn(handle);
    first.failing = true;
    for (let i = 0; i < 2; i++) await delivery.send(sms());
    first.failing = false;
    await delivery.send(sms());
    first.failing = true;
    for (let i = 0; i < 2; i++) await delivery.send(sms());
    expect(await stateOf(delivery, 'first')).toBe('closed');
    await delivery.send(sms());
    expect(await stateOf(delivery, 'first')).toBe('open');
  });

  it('opens the circuit again when the half-open try fails', async () => {
    const delivery = deliveryOn(handle);
    first.failing = true;
    for (let i = 0; i < 3; i++) await delivery.send(sms());
    now += 31_000;
    await delivery.send(sms());
    expect(first.requests).toHaveLength(4);
    expect(await stateOf(delivery, 'first')).toBe('open');
    await delivery.send(sms());
    expect(first.requests).toHaveLength(4);
    expect(second.messages).toHaveLength(5);
  });

  it('lets exactly one of several senders, on two instances, try a half-open provider', async () => {
    const one = deliveryOn(handle);
    const two = deliveryOn(await database.open());
    first.failing = true;
    for (let i = 0; i < 3; i++) await one.send(sms());
    first.requests.length = 0;
    now += 31_000;
    // The try hangs until its timeout: every other sender meanwhile finds it taken.
    first.failing = false;
    first.hanging = true;
    second.messages.length = 0;
    await Promise.all([one, two, one, two, one, two].map((delivery) => delivery.send(sms())));
    expect(first.requests).toHaveLength(1);
    expect(second.messages).toHaveLength(6);
    expect(outcomes.filter((o) => o === 'sms first skipped')).toHaveLength(5);
  });

  it('lets another sender try a half-open provider once the try of a sender that died has lapsed', async () => {
    const delivery = deliveryOn(handle);
    first.failing = true;
    for (let i = 0; i < 3; i++) await delivery.send(sms());
    now += 31_000;
    // A sender took the try (its lease: twice the 1 s timeout) and never reported.
    await handle.db
      .updateTable('delivery_circuits')
      .set({ trial_until: new Date(now + 2000).toISOString() })
      .where('provider', '=', 'first')
      .execute();
    first.failing = false;
    await delivery.send(sms());
    expect(first.messages).toEqual([]);
    now += 2001;
    await delivery.send(sms());
    expect(first.messages).toHaveLength(1);
    expect(await stateOf(delivery, 'first')).toBe('closed');
  });

  it('fails mail over to the next SMTP server with the same Message-ID', async () => {
    const mail = await startSmtp();
    try {
      const refused = `smtp://127.0.0.1:${await freePort()}`;
      const delivery = deliveryOn(handle, { SMTP_URLS: `${refused},${mail.url}`, DELIVERY_TIMEOUT_MS: '10000' });
      await delivery.send({ id: 'mail-1', channel: 'email', to: 'ann@example.be', subject: 'Code', body: 'x' });
      expect(mail.mails).toHaveLength(1);
      expect(mail.mails[0]!.raw).toMatch(/^Message-ID: <mail-1@tessera\.example>$/im);
      expect(outcomes).toEqual([
        `email smtp:${new URL(refused).host} failed`,
        `email smtp:${new URL(mail.url).host} sent`,
      ]);
    } finally {
      await mail.stop();
    }
  });
});
