// The rules of codes and challenges beyond the happy path: binding, purposes, devices, the
// authenticator's window and replay, throttling of wrong answers and of sending, delivery failure.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { codeIn, startSmsProvider } from '../testing/peers.ts';
import { addMethod } from '../identity/second-factors.ts';
import { issueRecoveryKeys } from '../methods/recovery-key.ts';
import { client, freshMfa, makeUser, sessionFor, skipResendWaits } from '../testing/mfaKit.ts';

const kinds = await databaseKinds();

describe.each(kinds)('code and challenge rules on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;
  let api: ReturnType<typeof client>;
  const mailTo = (to: string) => codeIn(smtp.mails.filter((m) => m.to === to).at(-1)!.raw);
  const textTo = (to: string) => codeIn(sms.messages.filter((m) => m.to === to).at(-1)!.text);
  const other = (code: string) => (code === '00000000' ? '11111111' : '00000000');

  useServerWithPeers(
    kind,
    { MFA_MAX_FAILS_PER_ACCOUNT: '6', MFA_CODE_TTL_SECONDS: '120', MFA_STEP_UP_SECONDS: '60' },
    async (peers) => {
      ({ server, smtp, sms } = peers);
      api = client(server);
    },
  );

  it('makes a code work only for the challenge that sent it', async () => {
    const user = await makeUser(server, { methods: ['email', 'sms'] });
    const payload = await api.loginPayload(user.email, 'bind-device-0001');
    const byMail = (await api.challenge(payload, user.ids.email!, 'bind-device-0001')).json();
    const byText = (await api.challenge(payload, user.ids.sms!, 'bind-device-0001')).json();
    const mailed = mailTo(user.email);
    const texted = textTo(user.phone);
    if (mailed !== texted)
      expect((await api.verify(byText.payload, mailed, 'bind-device-0001')).json().code).toBe('invalid_code');
    expect((await api.verify(byMail.payload, mailed, 'bind-device-0001')).statusCode).toBe(200);
  });

  it('follows the configured life of a code in the answer and the message', async () => {
    const user = await makeUser(server, { methods: ['email'], language: 'fr_LU' });
    const started = (
      await api.challenge(await api.loginPayload(user.email, 'ttl-device-00001'), user.ids.email!, 'ttl-device-00001')
    ).json();
    expect(started.expires_in).toBe(120);
    expect(started.resend_in).toBe(30);
    const life = Date.parse(started.expires_at) - Date.now();
    expect(life).toBeGreaterThan(115_000);
    expect(life).toBeLessThanOrEqual(120_000);
    expect(smtp.mails.at(-1)!.raw.replace(/=\r?\n/g, '')).toMatch(/valable 2 minutes/);
  });

  it("refuses a sign-in's code from another device, without costing an attempt", async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const started = (
      await api.challenge(await api.loginPayload(user.email, 'first-device-001'), user.ids.email!, 'first-device-001')
    ).json();
    const code = mailTo(user.email);
    const stolen = await api.verify(started.payload, code, 'thief-device-001');
    expect(stolen.statusCode).toBe(410);
    expect(stolen.json().code).toBe('challenge_closed');
    expect((await api.verify(started.payload, other(code), 'first-device-001')).json().attempts_left).toBe(4);
    expect((await api.verify(started.payload, code, 'first-device-001')).statusCode).toBe(200);
  });

  it('does not spend a challenge on a call meant for another purpose', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const started = (
      await api.challenge(await api.loginPayload(user.email, 'purpose-dev-001'), user.ids.email!, 'purpose-dev-001')
    ).json();
    const code = mailTo(user.email);
    const stranger = await makeUser(server, { methods: [] });
    const token = await sessionFor(server, stranger.userId, 'purpose-dev-002');
    const misused = await api.call('POST', '/api/mfa/activate', token, 'purpose-dev-002', {
      payload: started.payload,
      code,
    });
    expect(misused.json().code).toBe('challenge_closed');
    expect((await api.verify(started.payload, code, 'purpose-dev-001')).statusCode).toBe(200);
  });

  it('accepts an authenticator code one step either side, never two, and never an older step', async () => {
    const secret = new Secret({ size: 20 });
    const user = await makeUser(server, { methods: ['totp', 'email'], totpSecret: secret.base32 });
    const totp = new TOTP({ secret, digits: 6, period: 30 });
    const at = (offset: number) => totp.generate({ timestamp: Date.now() + offset * 1000 });
    const attempt = async (code: string) => {
      const payload = await api.loginPayload(user.email, 'window-device-01');
      const started = (await api.challenge(payload, user.ids.totp!, 'window-device-01')).json();
      return api.verify(started.payload, code, 'window-device-01');
    };
    // Codes are computed here and checked a moment later: start early in a step, so no step ends between.
    const intoStep = Date.now() % 30_000;
    if (intoStep > 20_000) await new Promise((resolve) => setTimeout(resolve, 30_000 - intoStep + 50));
    const twoBack = at(-60);
    if (![at(-30), at(0), at(30)].includes(twoBack)) expect((await attempt(twoBack)).statusCode).toBe(422);
    expect((await attempt(at(-30))).statusCode).toBe(200);
    expect((await attempt(at(30))).statusCode).toBe(200);
    // The current step is older than the one just used: refused as a replay would be.
    if (at(0) !== at(30)) expect((await attempt(at(0))).statusCode).toBe(422);
  });

  it('never accepts the code that set up an authenticator a second time', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const token = await sessionFor(server, user.userId, 'setup-device-001');
    await freshMfa(server, user.userId);
    const started = (await api.call('GET', '/api/mfa/-3/activate', token, 'setup-device-001')).json();
    const code = new TOTP({ secret: started.data.secret, digits: 6, period: 30 }).generate();
    const done = await api.call('POST', '/api/mfa/activate', token, 'setup-device-001', {
      payload: started.payload,
      code,
    });
    expect(done.statusCode).toBe(200);
    const payload = await api.loginPayload(user.email, 'other-device-009');
    const challenge = (await api.challenge(payload, done.json().id, 'other-device-009')).json();
    expect((await api.verify(challenge.payload, code, 'other-device-009')).json().code).toBe('invalid_code');
  });

  it("blocks an account's second-factor checks after too many wrong answers, across challenges", async () => {
    const secret = new Secret({ size: 20 });
    const user = await makeUser(server, { methods: ['totp', 'email'], totpSecret: secret.base32 });
    const right = new TOTP({ secret, digits: 6, period: 30 }).generate();
    const wrong = right === '000000' ? '111111' : '000000';
    const answers: number[] = [];
    // Three wrong answers per sign-in, then a new sign-in: the per-challenge limit alone would never stop this.
    for (let round = 0; round < 3; round++) {
      const started = (
        await api.challenge(await api.loginPayload(user.email, 'guess-device-001'), user.ids.totp!, 'guess-device-001')
      ).json();
      for (let i = 0; i < 3; i++)
        answers.push((await api.verify(started.payload, wrong, 'guess-device-001')).statusCode);
    }
    expect(answers.slice(0, 6)).toEqual([422, 422, 422, 422, 422, 422]);
    expect(answers.slice(6)).toEqual([429, 429, 429]);
    const started = (
      await api.challenge(await api.loginPayload(user.email, 'guess-device-001'), user.ids.totp!, 'guess-device-001')
    ).json();
    const blocked = await api.verify(started.payload, right, 'guess-device-001');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('too_many_attempts');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(3000);
    const events = await server.ctx.db
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', user.userId)
      .where('type', '=', 'mfa_failed')
      .execute();
    expect(events.length).toBeGreaterThanOrEqual(6);
  });

  it("counts wrong forgotten-password codes apart, so strangers cannot block the owner's sign-in", async () => {
    const user = await makeUser(server, { methods: ['email'] });
    for (let round = 0; round < 2; round++) {
      await skipResendWaits(server);
      const reset = await server.app.inject({
        method: 'POST',
        url: '/api/user/forgot-password',
        headers: { 'x-device-id': 'stranger-dev-001' },
        payload: { username: user.email },
      });
      for (let i = 0; i < 4; i++) {
        await server.app.inject({
          method: 'POST',
          url: '/api/user/forgot-password/verify',
          headers: { 'x-device-id': 'stranger-dev-001' },
          payload: { payload: reset.json().payload, code: other(mailTo(user.email)) },
        });
      }
    }
    await skipResendWaits(server);
    const started = (
      await api.challenge(await api.loginPayload(user.email, 'owner-device-001'), user.ids.email!, 'owner-device-001')
    ).json();
    expect((await api.verify(started.payload, mailTo(user.email), 'owner-device-001')).statusCode).toBe(200);
  });

  it('lets exactly one of two simultaneous uses of one recovery key through', async () => {
    const user = await makeUser(server, { methods: ['totp', 'email'], totpSecret: new Secret({ size: 20 }).base32 });
    const recoveryId = await addMethod(server.ctx.db, { userId: user.userId, method: 'totpRecovery' });
    const [key] = await issueRecoveryKeys(server.ctx, server.ctx.db, user.userId);
    // One sign-in on a new device, one step-up on a trusted one: two open challenges, one key.
    const a = (
      await api.challenge(await api.loginPayload(user.email, 'race-key-dev-01'), recoveryId, 'race-key-dev-01')
    ).json().payload as string;
    const token = await sessionFor(server, user.userId, 'race-key-dev-02');
    const b = (await api.call('GET', `/api/mfa/sudo?mfaId=${recoveryId}`, token, 'race-key-dev-02')).json()
      .payload as string;
    const results = await Promise.all([
      api.verify(a, key!.replace('-', ''), 'race-key-dev-01'),
      api.call('POST', '/api/mfa/sudo', token, 'race-key-dev-02', { payload: b, code: key!.replace('-', '') }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 422]);
    expect(results.find((r) => r.statusCode === 200)!.json().recovery_keys_left).toBe(9);
    const used = await server.ctx.db
      .selectFrom('recovery_keys')
      .select('used_at')
      .where('user_id', '=', user.userId)
      .where('used_at', 'is not', null)
      .execute();
    expect(used).toHaveLength(1);
  });

  it('opens the session for the client the sign-in was for', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const payload = await api.loginPayload(user.email, 'client-device-01', { client_id: '17' });
    const started = (await api.challenge(payload, user.ids.email!, 'client-device-01')).json();
    expect((await api.verify(started.payload, mailTo(user.email), 'client-device-01')).statusCode).toBe(200);
    const session = await server.ctx.db
      .selectFrom('sessions')
      .select('client_id')
      .where('user_id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(session.client_id).toBe('17');
  });

  it('asks again on a device whose trust has expired', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const started = (
      await api.challenge(await api.loginPayload(user.email, 'expire-device-01'), user.ids.email!, 'expire-device-01')
    ).json();
    expect(
      (await api.verify(started.payload, mailTo(user.email), 'expire-device-01', { isTrustedDevice: true })).statusCode,
    ).toBe(200);
    expect((await api.password(user.email, 'expire-device-01')).statusCode).toBe(200);
    const trusted = await server.ctx.db
      .selectFrom('devices')
      .select('trusted_until')
      .where('user_id', '=', user.userId)
      .executeTakeFirstOrThrow();
    // Trust lasts TRUSTED_DEVICE_DAYS (30 by default).
    expect(Date.parse(trusted.trusted_until!) - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
    await server.ctx.db
      .updateTable('devices')
      .set({ trusted_until: '2000-01-01T00:00:00.000Z' })
      .where('user_id', '=', user.userId)
      .execute();
    expect((await api.password(user.email, 'expire-device-01')).statusCode).toBe(401);
    const types = (
      await server.ctx.db.selectFrom('security_events').select('type').where('user_id', '=', user.userId).execute()
    ).map((e) => e.type);
    expect(types).toContain('device_trusted');
  });

  it('answers before the provider is reached: a failing provider delays the code, never the answer, and it arrives once the provider is back', async () => {
    const user = await makeUser(server, { methods: ['sms'] });
    const payload = await api.loginPayload(user.email, 'down-device-0001');
    const received = sms.messages.length;
    sms.failing = true;
    let started;
    try {
      started = await api.challenge(payload, user.ids.sms!, 'down-device-0001');
      expect(started.statusCode).toBe(200);
      expect(sms.messages.length).toBe(received);
      // The message waits in the outbox with the provider's refusal, for a retry.
      const waiting = await server.ctx.db
        .selectFrom('message_outbox')
        .selectAll()
        .where('recipient', '=', user.phone)
        .executeTakeFirstOrThrow();
      expect(waiting).toMatchObject({ attempts: 1, failed_at: null });
      expect(waiting.last_error).toMatch(/500/);
    } finally {
      sms.failing = false;
    }
    // The retry comes due; the code is delivered and works.
    await server.ctx.db
      .updateTable('message_outbox')
      .set({ next_attempt_at: '2000-01-01T00:00:00.000Z' })
      .where('recipient', '=', user.phone)
      .execute();
    await server.ctx.outbox.drain();
    expect(sms.messages.length).toBe(received + 1);
    expect((await api.verify(started.json().payload, textTo(user.phone), 'down-device-0001')).statusCode).toBe(200);
    expect(
      await server.ctx.db.selectFrom('message_outbox').select('id').where('recipient', '=', user.phone).execute(),
    ).toEqual([]);
  });

  it("reads a voice call's code digit by digit, in the user's language", async () => {
    const user = await makeUser(server, { methods: ['sms'], language: 'nl' });
    const payload = await api.loginPayload(user.email, 'voice-device-001');
    const started = await api.challenge(payload, user.ids.sms!, 'voice-device-001', 'call');
    const call = sms.messages.at(-1)!;
    expect(call).toMatchObject({ channel: 'call', to: user.phone });
    expect(call.text).toMatch(
      /^Goedendag, hier is Tessera\. Uw beveiligingscode is: (\d, ){7}\d\. Ik herhaal: (\d, ){7}\d\./,
    );
    expect((await api.verify(started.json().payload, codeIn(call.text), 'voice-device-001')).statusCode).toBe(200);
  });

  it('accepts a second-factor check for sensitive changes only within the configured window', async () => {
    const user = await makeUser(server, { methods: ['email', 'sms'] });
    const token = await sessionFor(server, user.userId, 'window-device-02');
    const ago = (seconds: number) =>
      server.ctx.db
        .updateTable('sessions')
        .set({ mfa_at: new Date(Date.now() - seconds * 1000).toISOString() })
        .where('user_id', '=', user.userId)
        .execute();
    await ago(90);
    expect((await api.call('GET', '/api/mfa/status', token, 'window-device-02')).json().sudo).toBe(false);
    const refused = await api.call('POST', `/api/mfa/switch-primary/${user.ids.sms}`, token, 'window-device-02');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      code: 'step_up_required',
      message: 'Please confirm it is you with a second factor first.',
    });
    await ago(30);
    expect((await api.call('GET', '/api/mfa/status', token, 'window-device-02')).json().sudo).toBe(true);
    expect(
      (await api.call('POST', `/api/mfa/switch-primary/${user.ids.sms}`, token, 'window-device-02')).statusCode,
    ).toBe(204);
    // Another account's device is not found, even with a fresh check.
    const stranger = await makeUser(server, { methods: [] });
    await sessionFor(server, stranger.userId, 'window-device-03');
    const theirs = await server.ctx.db
      .selectFrom('devices')
      .select('id')
      .where('user_id', '=', stranger.userId)
      .executeTakeFirstOrThrow();
    expect((await api.call('DELETE', `/api/devices/${theirs.id}/trust`, token, 'window-device-02')).statusCode).toBe(
      404,
    );
  });

  it('keeps wrong input out: bad codes and payloads are 4xx and change nothing', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const started = (
      await api.challenge(await api.loginPayload(user.email, 'input-device-001'), user.ids.email!, 'input-device-001')
    ).json();
    for (const payload of [
      { payload: started.payload, code: '1234-5678' },
      { payload: started.payload, code: 12345678 },
      { payload: started.payload },
      { payload: '', code: '12345678' },
      { payload: started.payload, code: '12345678', isTrustedDevice: 'yes' },
      { payload: started.payload, code: '12345678', extra: 1 },
    ]) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/mfa/sudo',
        headers: { 'x-device-id': 'input-device-001' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
    expect((await api.verify(started.payload, mailTo(user.email), 'input-device-001')).statusCode).toBe(200);
  });
});

describe.each(kinds)('code sending caps on %s', (kind) => {
  let server: TestServer;
  let sms: Awaited<ReturnType<typeof startSmsProvider>>;
  beforeAll(async () => {
    sms = await startSmsProvider();
    server = await startTestServer(kind, {
      SMS_PROVIDER_URL: sms.url,
      MFA_SENDS_PER_ACCOUNT: '4',
      MFA_SENDS_PER_DESTINATION: '3',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await sms?.stop();
  });

  it('caps the codes sent for one account, whatever the destinations', async () => {
    const api = client(server);
    const user = await makeUser(server, { methods: ['email', 'sms'] });
    const statuses: number[] = [];
    for (const mfaId of [user.ids.email!, user.ids.sms!, user.ids.email!, user.ids.sms!, user.ids.email!]) {
      await skipResendWaits(server);
      statuses.push(
        (await api.challenge(await api.loginPayload(user.email, 'caps-device-0001'), mfaId, 'caps-device-0001'))
          .statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('caps the codes sent to one destination, whichever account asks', async () => {
    const api = client(server);
    const user = await makeUser(server, { methods: ['sms'] });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      await skipResendWaits(server);
      const res = await api.challenge(
        await api.loginPayload(user.email, 'caps-device-0002'),
        user.ids.sms!,
        'caps-device-0002',
      );
      statuses.push(res.statusCode);
      if (res.statusCode === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(sms.messages.filter((m) => m.to === user.phone)).toHaveLength(3);
  });
});
