// A call repeated with its Idempotency-Key answers as the first did and does nothing again: one
// code sent, one session, one account. From an attacker's side: the key is bound to its device, its
// call and its credentials, so another body, session or device never gets the kept answer; a
// refusal is never kept; the kept answer is sealed at rest and forgotten after its minutes.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { DEMO_MFA_USERS, DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { DEVICE, databaseKinds, type TestServer } from '../testing/harness.ts';
import { makeCard, onboardingClient } from '../testing/onboardingKit.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { IDEMPOTENCY_HEADER } from '../../contract/constants.ts';
import { KEPT_SECONDS } from './idempotency.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;

describe.each(kinds)('calls repeated with their Idempotency-Key (%s)', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;
  useServerWithPeers(kind, {}, async (peers) => {
    ({ server, smtp, sms } = peers);
  });
  afterEach(() => vi.useRealTimers());
  afterAll(() => undefined);

  let n = 0;
  const newKey = () => `key-${kind}-${++n}-${Math.random().toString(36).slice(2)}`;
  const post = (url: string, payload: object, key?: string, headers: Record<string, string> = {}) =>
    server.app.inject({
      method: 'POST',
      url: `/api/${url}`,
      headers: { ...DEVICE, ...(key ? { [IDEMPOTENCY_HEADER]: key } : {}), ...headers },
      payload,
    });
  const signIn = (key?: string, password = DEMO_PASSWORD) => post('token', { username: emma.email, password }, key);
  const sessions = async () =>
    Number(
      (
        await server.ctx.db
          .selectFrom('sessions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('gives a repeated sign-in the same session and cookie, and opens no second session', async () => {
    const key = newKey();
    const before = await sessions();
    const first = await signIn(key);
    expect(first.statusCode).toBe(200);
    const again = await signIn(key);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().access_token).toBe(first.json().access_token);
    expect(again.headers['set-cookie']).toEqual(first.headers['set-cookie']);
    expect(await sessions()).toBe(before + 1);
    // Without a key each sign-in is its own.
    expect((await signIn()).statusCode).toBe(200);
    expect(await sessions()).toBe(before + 2);
  });

  it('sends one code for a repeated onboarding step, and the repeat answers as the first did', async () => {
    const api = onboardingClient(server, { mails: smtp.mails, messages: sms.messages });
    const card = await makeCard(server);
    const flow = (await api.card(card.number, card.activationCode)).json().flow as string;
    expect((await api.terms(flow)).statusCode).toBe(204);
    expect((await api.profile(flow)).statusCode).toBe(204);
    const key = newKey();
    const first = await post('onboarding/email', { flow, email: card.email }, key);
    const again = await post('onboarding/email', { flow, email: card.email }, key);
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(smtp.mails.filter((m) => m.to === card.email)).toHaveLength(1);
    // The same step without the key is a new send, refused as too soon: what the key spares a repeat.
    expect((await post('onboarding/email', { flow, email: card.email })).json().code).toBe('resend_too_soon');
  });

  it("sends one code for the spec's code-sending GET repeated with its key; a plain read keeps nothing", async () => {
    const asked = await post('token', { username: mila.email, password: DEMO_PASSWORD });
    expect(asked.statusCode).toBe(401);
    const { mfa } = asked.json() as { mfa: { payload: string; methods: { id: number; method: string }[] } };
    const email = mfa.methods.find((m) => m.method === 'email')!;
    const key = newKey();
    const ask = () =>
      server.app.inject({
        method: 'GET',
        url: `/api/mfa/sudo?mfaId=${email.id}&payload=${encodeURIComponent(mfa.payload)}`,
        headers: { ...DEVICE, [IDEMPOTENCY_HEADER]: key },
      });
    const before = smtp.mails.filter((m) => m.to === mila.email).length;
    const first = await ask();
    const again = await ask();
    expect(first.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().payload).toBe(first.json().payload);
    expect(smtp.mails.filter((m) => m.to === mila.email).length).toBe(before + 1);

    const token = (await signIn(newKey())).json().access_token as string;
    const kept = async () => (await server.ctx.db.selectFrom('kept_answers').select('id').execute()).length;
    const rows = await kept();
    const read = await server.app.inject({
      method: 'GET',
      url: '/api/user',
      headers: { ...DEVICE, [IDEMPOTENCY_HEADER]: newKey(), authorization: `Bearer ${token}` },
    });
    expect(read.statusCode).toBe(200);
    expect(await kept()).toBe(rows);
  });

  it('refuses a key sent again with another body, and runs nothing', async () => {
    const key = newKey();
    expect((await signIn(key)).statusCode).toBe(200);
    const before = await sessions();
    const other = await post('token', { username: emma.email, password: `${DEMO_PASSWORD}x` }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('idempotency_key_reused');
    expect(await sessions()).toBe(before);
  });

  it('never gives the kept answer to another device or another session', async () => {
    const key = newKey();
    const first = await signIn(key);
    // Another device with the same key and body: its own call, its own session.
    const elsewhere = await post('token', { username: emma.email, password: DEMO_PASSWORD }, key, {
      'x-device-id': 'another-device-0001',
    });
    expect(elsewhere.statusCode).toBe(200);
    expect(elsewhere.headers['idempotent-replayed']).toBeUndefined();
    expect(elsewhere.json().access_token).not.toBe(first.json().access_token);
    // A call made with a session's credentials: the same key under another session is another call.
    const token = first.json().access_token as string;
    const stranger = (await signIn()).json().access_token as string;
    const logoutKey = newKey();
    const out = await server.app.inject({
      method: 'DELETE',
      url: '/api/token',
      headers: { ...DEVICE, [IDEMPOTENCY_HEADER]: logoutKey, authorization: `Bearer ${token}` },
    });
    expect(out.statusCode).toBeLessThan(300);
    const theirs = await server.app.inject({
      method: 'DELETE',
      url: '/api/token',
      headers: { ...DEVICE, [IDEMPOTENCY_HEADER]: logoutKey, authorization: `Bearer ${stranger}` },
    });
    expect(theirs.statusCode).toBe(422);
    expect(theirs.json().code).toBe('idempotency_key_reused');
  });

  it('keeps no refusal: a wrong password repeated is checked again', async () => {
    const key = newKey();
    const wrong = await signIn(key, 'not-the-password-1');
    expect(wrong.statusCode).toBe(400);
    const again = await signIn(key, 'not-the-password-1');
    expect(again.statusCode).toBe(400);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    // The same key then serves the right password: nothing was kept for it.
    expect((await post('token', { username: emma.email, password: DEMO_PASSWORD }, newKey())).statusCode).toBe(200);
  });

  it('refuses a malformed key with 400 and a stable code', async () => {
    for (const key of ['short', 'has a space in it', 'x'.repeat(256)]) {
      const answer = await signIn(key);
      expect(answer.statusCode, key).toBe(400);
      expect(answer.json().code).toBe('invalid_request');
    }
  });

  it('keeps the answer sealed, and forgets it after its minutes', async () => {
    const key = newKey();
    const first = await signIn(key);
    const token = first.json().access_token as string;
    const rows = await server.ctx.db.selectFrom('kept_answers').select('sealed').execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.sealed).not.toContain(token);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + (KEPT_SECONDS + 1) * 1000 });
    const later = await signIn(key);
    expect(later.statusCode).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().access_token).not.toBe(token);
  });
});
