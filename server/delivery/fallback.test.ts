// A code that does not arrive goes another way: a WhatsApp code whose provider fails goes by SMS at
// once; one its provider took but said nothing of in time goes by SMS then by call; a failed receipt
// moves it on at once; a delivered one (of any step) or a spent code stops it. Each step carries the
// same code, is no new send, and the code screen's question says which way it went and why; a
// forgotten password's answers nothing of it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CodeDelivery } from '../../contract/schemas.ts';
import * as v from 'valibot';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { client, makeUser, skipResendWaits } from '../testing/mfaKit.ts';
import { codeIn, startSmsProvider, type SmsProvider } from '../testing/peers.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signReceipt } from './receipts.ts';

const kinds = await databaseKinds();
const SECRET = 'receipts-secret-of-the-first-provider-0123456789';

describe.each(kinds)('a code that does not arrive goes another way (%s)', (kind) => {
  let server: TestServer;
  let provider: SmsProvider;
  let api: ReturnType<typeof client>;
  let device = 0;

  beforeAll(async () => {
    provider = await startSmsProvider();
    server = await startTestServer(
      kind,
      { SMS_PROVIDERS: `first=${provider.url}`, DELIVERY_RECEIPT_SECRET_FIRST: SECRET },
      { seed: false },
    );
    api = client(server);
  });
  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });
  beforeEach(() => {
    provider.failingChannels.clear();
    provider.requests.length = 0;
    provider.messages.length = 0;
  });

  /** A sign-in's code asked for by `channel` on the account's phone: what it answered, and how to
   * ask what became of it. */
  async function codeBy(channel: 'whatsapp' | 'sms' | 'call') {
    const user = await makeUser(server, { methods: ['sms'] });
    const at = `fallback-device-${++device}`;
    const payload = await api.loginPayload(user.email, at);
    const started = await api.challenge(payload, user.ids.sms!, at, channel);
    expect(started.statusCode, started.body).toBe(200);
    const challenge = started.json().payload as string;
    return {
      user,
      challenge,
      at,
      delivery: async () => {
        const res = await server.app.inject({
          method: 'GET',
          url: `/api/codes/${encodeURIComponent(challenge)}/delivery`,
          headers: { 'x-device-id': at },
        });
        expect(res.statusCode, res.body).toBe(200);
        return v.parse(CodeDelivery, res.json());
      },
    };
  }
  /** The step's time passes (as DELIVERY_STEP_SECONDS_<CHANNEL> would), and the worker looks. */
  const stepTimePasses = async () => {
    await server.ctx.db
      .updateTable('message_outbox')
      .set({ next_attempt_at: '2000-01-01T00:00:00.000Z' })
      .where('awaiting_id', 'is not', null)
      .execute();
    await server.ctx.outbox.drain();
  };
  const receipt = async (id: string, status: 'delivered' | 'failed' | 'unknown') => {
    const body = JSON.stringify({ id, status });
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/delivery/receipts/first',
      headers: {
        'content-type': 'application/json',
        [TIMESTAMP_HEADER]: String(timestamp),
        [SIGNATURE_HEADER]: signReceipt(SECRET, timestamp, body),
      },
      payload: body,
    });
    expect(res.statusCode).toBe(204);
  };
  const channels = () => provider.messages.map((m) => m.channel);
  const codes = () => new Set(provider.messages.map((m) => codeIn(m.text)));
  const metric = async (line: RegExp) => {
    const text = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(line.exec(text)?.[1] ?? 0);
  };

  it('sends the same code by SMS at once when WhatsApp fails, says so, and the code signs in; no new send is counted', async () => {
    provider.failingChannels.add('whatsapp');
    const { challenge, at, delivery } = await codeBy('whatsapp');
    expect(provider.requests.map((m) => m.channel)).toEqual(['whatsapp', 'sms']);
    expect(channels()).toEqual(['sms']);
    // The SMS is an SMS: its origin-bound line for WebOTP.
    expect(provider.messages[0]!.text).toMatch(/\n@[^ ]+ #\d{8}$/);
    expect(await delivery()).toEqual({ channel: 'sms', status: 'sent', fell_back_from: 'whatsapp' });
    expect(await metric(/^tessera_delivery_fallbacks_total\{from="whatsapp",to="sms"\} (\d+)$/m)).toBeGreaterThan(0);
    // The step is no new send: the challenge was sent once, and its resend wait is the first one's.
    const row = await server.ctx.db
      .selectFrom('mfa_challenges')
      .select(['sends'])
      .where('completed_at', 'is', null)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(Number(row.sends)).toBe(1);
    const right = await api.verify(challenge, codeIn(provider.messages[0]!.text), at);
    expect(right.statusCode).toBe(200);
  });

  it('moves on when the provider took a step but no receipt said delivered in time, and stops at the first delivery', async () => {
    const { delivery } = await codeBy('whatsapp');
    expect(channels()).toEqual(['whatsapp']);
    expect(await delivery()).toEqual({ channel: 'whatsapp', status: 'sent', fell_back_from: null });

    await stepTimePasses();
    expect(channels()).toEqual(['whatsapp', 'sms']);
    expect(codes().size).toBe(1);
    expect(await delivery()).toEqual({ channel: 'sms', status: 'sent', fell_back_from: 'whatsapp' });

    // The SMS arrives: nothing more is tried, however long one waits.
    await receipt(provider.messages[1]!.idempotencyKey!, 'delivered');
    expect(await delivery()).toEqual({ channel: 'sms', status: 'delivered', fell_back_from: 'whatsapp' });
    await stepTimePasses();
    expect(channels()).toEqual(['whatsapp', 'sms']);
    expect(await server.ctx.db.selectFrom('message_outbox').select('id').execute()).toEqual([]);
  });

  it('moves on at once on a failed receipt, to a call after SMS, with one message per step and each its own key', async () => {
    const { delivery } = await codeBy('sms');
    await receipt(provider.messages[0]!.idempotencyKey!, 'failed');
    await server.ctx.outbox.drain();
    expect(channels()).toEqual(['sms', 'call']);
    expect(codes().size).toBe(1);
    // A call reads the digits.
    expect(provider.messages[1]!.text).toMatch(/\d, \d, \d/);
    const keys = provider.messages.map((m) => m.idempotencyKey);
    expect(new Set(keys).size).toBe(2);
    expect(keys[1]).toBe(`${keys[0]}.1`);
    expect(await delivery()).toEqual({ channel: 'call', status: 'sent', fell_back_from: 'sms' });
    // Twice, late: nothing moves again. The call was the last way: no wait is left.
    await receipt(provider.messages[0]!.idempotencyKey!, 'failed');
    await stepTimePasses();
    expect(channels()).toEqual(['sms', 'call']);
  });

  it('stops once the code is spent, and a late delivery of an earlier step stops what follows', async () => {
    const spent = await codeBy('whatsapp');
    const right = await api.verify(spent.challenge, codeIn(provider.messages[0]!.text), spent.at);
    expect(right.statusCode).toBe(200);
    await stepTimePasses();
    expect(channels()).toEqual(['whatsapp']);

    provider.messages.length = 0;
    await skipResendWaits(server);
    await codeBy('whatsapp');
    await stepTimePasses();
    expect(channels()).toEqual(['whatsapp', 'sms']);
    // The WhatsApp message arrived after all: no call follows.
    await receipt(provider.messages[0]!.idempotencyKey!, 'delivered');
    await stepTimePasses();
    expect(channels()).toEqual(['whatsapp', 'sms']);
  });

  it("falls back for a forgotten password's code too, and answers nothing of it, as for a code that does not exist", async () => {
    provider.failingChannels.add('whatsapp');
    const user = await makeUser(server, { methods: ['sms'] });
    const asked = await server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      headers: { 'x-device-id': 'fallback-reset' },
      payload: { username: user.phone, channel: 'whatsapp' },
    });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(provider.requests.map((m) => m.channel)).toEqual(['whatsapp', 'sms']);
    expect(provider.messages.map((m) => m.to)).toEqual([user.phone]);
    const payload = asked.json().payload as string;
    const answers = await Promise.all(
      [payload, 'no-such-payload'].map((p) =>
        server.app.inject({
          method: 'GET',
          url: `/api/codes/${encodeURIComponent(p)}/delivery`,
          headers: { 'x-device-id': 'fallback-reset' },
        }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([404, 404]);
    expect(answers[0]!.body).toBe(answers[1]!.body);
  });
});

describe.each(kinds)('a code whose provider hangs goes another way once its wait is over (%s)', (kind) => {
  let server: TestServer;
  let provider: SmsProvider;

  beforeAll(async () => {
    provider = await startSmsProvider();
    // The provider's answer is awaited this long (DELIVERY_TIMEOUT_MS), instead of ten seconds.
    server = await startTestServer(
      kind,
      { SMS_PROVIDERS: `first=${provider.url}`, DELIVERY_TIMEOUT_MS: '200' },
      { seed: false },
    );
  });
  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  it('sends the same code by SMS when WhatsApp never answers', async () => {
    provider.hangingChannels.add('whatsapp');
    const api = client(server);
    const user = await makeUser(server, { methods: ['sms'] });
    const payload = await api.loginPayload(user.email, 'hanging-device');
    const started = await api.challenge(payload, user.ids.sms!, 'hanging-device', 'whatsapp');
    expect(started.statusCode).toBe(200);
    expect(provider.requests.map((m) => m.channel)).toEqual(['whatsapp', 'sms']);
    expect(provider.messages.map((m) => m.channel)).toEqual(['sms']);
    const right = await api.verify(started.json().payload, codeIn(provider.messages[0]!.text), 'hanging-device');
    expect(right.statusCode).toBe(200);
  });
});

describe.runIf(kinds.includes('postgres'))('two instances draining one outbox (postgres)', () => {
  let a: TestServer;
  let b: TestServer;
  let provider: SmsProvider;

  beforeAll(async () => {
    provider = await startSmsProvider();
    const env = { SMS_PROVIDERS: `first=${provider.url}` };
    a = await startTestServer('postgres', env, { seed: false, settleMessages: false });
    b = await startTestServer('postgres', env, { sharing: a, settleMessages: false });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await provider?.stop();
  });

  it('sends each step of each code once, whichever instance takes it', async () => {
    provider.failingChannels.add('whatsapp');
    const api = client(a);
    const users = await Promise.all(Array.from({ length: 12 }, () => makeUser(a, { methods: ['sms'] })));
    for (const [i, user] of users.entries()) {
      const payload = await api.loginPayload(user.email, `two-nodes-${i}`);
      expect((await api.challenge(payload, user.ids.sms!, `two-nodes-${i}`, 'whatsapp')).statusCode).toBe(200);
    }
    // Both workers at once, each until nothing is left.
    await Promise.all([a.ctx.outbox.drain(), b.ctx.outbox.drain(), a.ctx.outbox.drain(), b.ctx.outbox.drain()]);
    await Promise.all([a.ctx.outbox.drain(), b.ctx.outbox.drain()]);
    const tries = provider.requests.map((m) => `${m.to} ${m.channel}`).sort();
    expect(tries).toEqual(users.flatMap((u) => [`${u.phone} sms`, `${u.phone} whatsapp`]).sort());
    expect(provider.messages).toHaveLength(users.length);
  });
});
