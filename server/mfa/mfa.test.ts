import { TOTP, Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { DEVICE, databaseKinds, passwordSignIn, type TestServer } from '../testing/harness.ts';
import { createTestUser } from '../testing/mfaKit.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { codeIn } from '../testing/peers.ts';
import { addMethod } from '../identity/second-factors.ts';
import { encryptSecret } from '../config/secrets.ts';
import { boundHost } from '../methods/one-time-code.ts';

const kinds = await databaseKinds();

describe.each(kinds)('multi-factor sign-in on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;
  const totpSecret = new Secret({ size: 20 });
  const ids = { email: 0, sms: 0, totp: 0 };
  const mila = { email: 'mila.test@example.be', phone: '+32470222299' };

  useServerWithPeers(kind, { SMS_PROVIDER_KEY: 'provider-key' }, async (peers) => {
    ({ server, smtp, sms } = peers);
    const userId = await createTestUser(server, {
      firstname: 'Mila',
      lastname: 'Maes',
      language: 'fr',
      email: mila.email,
      phone: mila.phone,
      user_id: 'U-4001',
    });
    ids.email = await addMethod(server.ctx.db, { userId, method: 'email', target: mila.email, primary: true });
    ids.sms = await addMethod(server.ctx.db, { userId, method: 'sms', target: mila.phone });
    ids.totp = await addMethod(server.ctx.db, {
      userId,
      method: 'totp',
      secret: encryptSecret(server.ctx.config.secretKey, totpSecret.base32),
    });
  });

  const device = (key = DEVICE['x-device-id']) => ({ 'x-device-id': key });
  const password = (deviceKey?: string) => passwordSignIn(server, mila.email, DEMO_PASSWORD, device(deviceKey));
  const challenge = (payload: string, mfaId: number, deviceKey?: string, channel?: string) =>
    server.app.inject({
      method: 'GET',
      url: `/api/mfa/sudo?mfaId=${mfaId}&payload=${encodeURIComponent(payload)}${channel ? `&channel=${channel}` : ''}`,
      headers: device(deviceKey),
    });
  const verify = (payload: string, code: string, extra: Record<string, unknown> = {}, deviceKey?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/mfa/sudo',
      headers: device(deviceKey),
      payload: { payload, code, ...extra },
    });
  const loginPayload = async (deviceKey?: string) => {
    const res = await password(deviceKey);
    expect(res.statusCode).toBe(401);
    return res.json().mfa.payload as string;
  };
  const mailedCode = () => codeIn(smtp.mails.at(-1)!.raw);

  it('asks for a second factor, listing masked methods, without opening a session', async () => {
    const res = await password();
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.code).toBe('mfa_required');
    expect(body.mfa.payload).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.mfa.methods).toEqual(
      expect.arrayContaining([
        { id: ids.email, method: 'email', target: 'm***@example.be', primary: true },
        expect.objectContaining({ id: ids.sms, method: 'sms' }),
        expect.objectContaining({ id: ids.totp, method: 'totp' }),
      ]),
    );
    expect(JSON.stringify(body)).not.toContain(mila.phone);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it("sends an 8-digit code by email over SMTP, in the user's language, and signs in with it", async () => {
    const payload = await loginPayload();
    const started = await challenge(payload, ids.email);
    expect(started.statusCode).toBe(200);
    const answer = started.json();
    expect(Date.parse(answer.expires_at) - Date.now()).toBeGreaterThan(890_000);
    expect(Date.parse(answer.resend_at) - Date.now()).toBeGreaterThan(25_000);
    const mail = smtp.mails.at(-1)!;
    expect(mail.to).toBe(mila.email);
    expect(mail.raw).toMatch(/Votre code de s=C3=A9curit=C3=A9|Votre code de sécurité/);
    const code = mailedCode();
    // Stored only as a keyed hash.
    const stored = await server.ctx.db.selectFrom('mfa_challenges').select('code_hash').execute();
    expect(stored.map((r) => r.code_hash).join()).not.toContain(code);

    const wrong = await verify(answer.payload, code === '00000000' ? '11111111' : '00000000');
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json()).toMatchObject({
      code: 'invalid_code',
      message: 'Your code is invalid, try again.',
      attempts_left: 4,
    });

    const right = await verify(answer.payload, code);
    expect(right.statusCode).toBe(200);
    const token = right.json().access_token;
    expect(String(right.headers['set-cookie'])).toContain(`tessera_token=${token}`);
    const status = await server.app.inject({
      method: 'GET',
      url: '/api/mfa/status',
      headers: { ...device(), authorization: `Bearer ${token}` },
    });
    expect(status.json()).toEqual({
      sudo: true,
      single: false,
      need_card: false,
      enrolment: 'none',
      passkey_offer: true,
    });

    // Single use: neither the code nor the sign-in's payload works again.
    expect((await verify(answer.payload, code)).json().code).toBe('challenge_closed');
    expect((await challenge(payload, ids.email)).statusCode).toBe(401);
  });

  it('sends SMS and WhatsApp codes through the HTTP provider', async () => {
    const payload = await loginPayload();
    const started = await challenge(payload, ids.sms, undefined, 'whatsapp');
    expect(started.statusCode).toBe(200);
    const message = sms.messages.at(-1)!;
    expect(message).toMatchObject({ channel: 'whatsapp', to: mila.phone, authorization: 'Bearer provider-key' });
    // The origin-bound line is an SMS's only.
    expect(message.text).not.toMatch(/^@/m);
    const right = await verify(started.json().payload, codeIn(message.text));
    expect(right.statusCode).toBe(200);
  });

  it('ends an SMS code with the configured host and the code, for WebOTP, whatever Host the request named', async () => {
    const payload = await loginPayload();
    const started = await server.app.inject({
      method: 'GET',
      url: `/api/mfa/sudo?mfaId=${ids.sms}&payload=${encodeURIComponent(payload)}&channel=sms`,
      headers: { ...device(), host: 'evil.example' },
    });
    expect(started.statusCode, started.body).toBe(200);
    const message = sms.messages.at(-1)!;
    expect(message).toMatchObject({ channel: 'sms', to: mila.phone });
    const code = codeIn(message.text);
    // Mila reads French, a Belgian language: the Belgian origin (server/config's default in tests).
    expect(message.text.split('\n').at(-1)).toBe(`@${new URL(server.ctx.config.publicOrigins.be).hostname} #${code}`);
    expect(message.text).not.toContain('evil.example');
    // A Luxembourg language binds it to the Luxembourg origin.
    const origins = { be: 'https://account.tessera.be', lu: 'https://account.tessera.lu:8443' };
    expect(['fr', 'nl', 'en', 'fr_LU', 'en_LU', 'de_LU'].map((language) => boundHost(origins, language))).toEqual([
      'account.tessera.be',
      'account.tessera.be',
      'account.tessera.be',
      'account.tessera.lu',
      'account.tessera.lu',
      'account.tessera.lu',
    ]);
  });

  it('closes a challenge after five wrong codes, even for the right one', async () => {
    const payload = await loginPayload();
    const started = (await challenge(payload, ids.email)).json();
    const code = mailedCode();
    const wrong = code === '12345678' ? '87654321' : '12345678';
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await verify(started.payload, wrong)).json());
    expect(answers.map((a) => a.attempts_left)).toEqual([4, 3, 2, 1, 0]);
    expect(answers[4].code).toBe('challenge_closed');
    expect((await verify(started.payload, code)).json().code).toBe('challenge_closed');
  });

  it('refuses an expired code', async () => {
    await server.ctx.db.updateTable('mfa_challenges').set({ resend_at: '2000-01-01T00:00:00.000Z' }).execute();
    const payload = await loginPayload();
    const started = (await challenge(payload, ids.email)).json();
    await server.ctx.db
      .updateTable('mfa_challenges')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where('completed_at', 'is', null)
      .execute();
    const res = await verify(started.payload, mailedCode());
    expect(res.statusCode).toBe(410);
    expect(res.json().code).toBe('code_expired');
  });

  it('makes a resend wait 30 s, then 15 s, and the new code replaces the old', async () => {
    const payload = await loginPayload('resend-device-01');
    const first = (await challenge(payload, ids.email, 'resend-device-01')).json();
    const firstCode = mailedCode();
    const tooSoon = await challenge(payload, ids.email, 'resend-device-01');
    expect(tooSoon.statusCode).toBe(429);
    expect(tooSoon.json().code).toBe('resend_too_soon');
    expect(Number(tooSoon.headers['retry-after'])).toBeGreaterThan(25);
    expect(Number(tooSoon.headers['retry-after'])).toBeLessThanOrEqual(30);
    await server.ctx.db
      .updateTable('mfa_challenges')
      .set({ resend_at: '2000-01-01T00:00:00.000Z' })
      .where('completed_at', 'is', null)
      .execute();
    const second = await challenge(payload, ids.email, 'resend-device-01');
    expect(second.statusCode).toBe(200);
    const wait = Date.parse(second.json().resend_at) - Date.now();
    expect(wait).toBeGreaterThan(10_000);
    expect(wait).toBeLessThanOrEqual(15_000);
    expect((await verify(first.payload, firstCode)).json().code).toBe('challenge_closed');
    // The older code typed on the new challenge: recognised as replaced, and counted as a wrong code.
    const stale = await verify(second.json().payload, firstCode, {}, 'resend-device-01');
    expect(stale.statusCode).toBe(422);
    expect(stale.json()).toMatchObject({ code: 'code_replaced', attempts_left: server.ctx.config.mfa.maxAttempts - 1 });
    const wrong = await verify(
      second.json().payload,
      firstCode === '00000000' ? '11111111' : '00000000',
      {},
      'resend-device-01',
    );
    expect(wrong.json()).toMatchObject({ code: 'invalid_code', attempts_left: server.ctx.config.mfa.maxAttempts - 2 });
    expect((await verify(second.json().payload, mailedCode(), {}, 'resend-device-01')).statusCode).toBe(200);
  });

  it('accepts an authenticator code once, never twice', async () => {
    const totp = new TOTP({ secret: totpSecret, digits: 6, period: 30 });
    const code = totp.generate();
    const started = (await challenge(await loginPayload(), ids.totp)).json();
    expect(started.resend_at).toBeUndefined();
    expect((await verify(started.payload, code)).statusCode).toBe(200);
    const again = (await challenge(await loginPayload(), ids.totp)).json();
    const replay = await verify(again.payload, code);
    expect(replay.statusCode).toBe(422);
  });

  it('lets exactly one of two simultaneous verifications of one code through', async () => {
    const started = (await challenge(await loginPayload('race-device-0001'), ids.email, 'race-device-0001')).json();
    const code = mailedCode();
    const results = await Promise.all([
      verify(started.payload, code, {}, 'race-device-0001'),
      verify(started.payload, code, {}, 'race-device-0001'),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 410]);
  });

  it('skips the second factor on a trusted device only', async () => {
    const started = (await challenge(await loginPayload('trusted-device-01'), ids.email, 'trusted-device-01')).json();
    expect(
      (await verify(started.payload, mailedCode(), { isTrustedDevice: true }, 'trusted-device-01')).statusCode,
    ).toBe(200);
    const trusted = await password('trusted-device-01');
    expect(trusted.statusCode).toBe(200);
    expect((await password('another-device-01')).statusCode).toBe(401);

    // Trust is listed, and withdrawing it (after a fresh second factor) brings the code back.
    const auth = { ...device('trusted-device-01'), authorization: `Bearer ${trusted.json().access_token}` };
    const devices = (await server.app.inject({ method: 'GET', url: '/api/devices', headers: auth })).json()
      .data as Array<{ id: string; trusted_until: string | null; current: boolean }>;
    const current = devices.find((d) => d.current)!;
    expect(current.trusted_until).not.toBeNull();
    const withoutStepUp = await server.app.inject({
      method: 'DELETE',
      url: `/api/devices/${current.id}/trust`,
      headers: auth,
    });
    expect(withoutStepUp.json().code).toBe('step_up_required');
    await server.ctx.db.updateTable('sessions').set({ mfa_at: new Date().toISOString() }).execute();
    expect(
      (await server.app.inject({ method: 'DELETE', url: `/api/devices/${current.id}/trust`, headers: auth }))
        .statusCode,
    ).toBe(204);
    expect((await password('trusted-device-01')).statusCode).toBe(401);
    // Trusted again for the next test, which signs in there by password alone.
    await server.ctx.db
      .updateTable('devices')
      .set({ trusted_until: '2999-01-01T00:00:00.000Z' })
      .where('id', '=', current.id)
      .execute();
  });

  it("refreshes a password-only session's MFA check by step-up", async () => {
    const plain = await passwordSignIn(server, mila.email, DEMO_PASSWORD, device('trusted-device-01'));
    const token = plain.json().access_token;
    const auth = { ...device('trusted-device-01'), authorization: `Bearer ${token}` };
    expect((await server.app.inject({ method: 'GET', url: '/api/mfa/status', headers: auth })).json().sudo).toBe(false);
    const list = await server.app.inject({ method: 'GET', url: '/api/mfa?includeAll=true', headers: auth });
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toHaveLength(3);
    await server.ctx.db
      .updateTable('mfa_challenges')
      .set({ resend_at: '2000-01-01T00:00:00.000Z' })
      .where('completed_at', 'is', null)
      .execute();
    const started = await server.app.inject({ method: 'GET', url: `/api/mfa/sudo?mfaId=${ids.email}`, headers: auth });
    expect(started.statusCode).toBe(200);
    const done = await server.app.inject({
      method: 'POST',
      url: '/api/mfa/sudo',
      headers: auth,
      payload: { payload: started.json().payload, code: mailedCode() },
    });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({});
    expect((await server.app.inject({ method: 'GET', url: '/api/mfa/status', headers: auth })).json().sudo).toBe(true);
  });

  it('throttles code sending per destination so nobody can flood a phone', async () => {
    let answer = 0;
    for (let i = 0; i < 12 && answer !== 429; i++) {
      await server.ctx.db.updateTable('mfa_challenges').set({ resend_at: '2000-01-01T00:00:00.000Z' }).execute();
      const res = await challenge(await loginPayload('flood-device-001'), ids.sms, 'flood-device-001');
      answer = res.statusCode;
      if (answer === 429) expect(res.json().code).toBe('too_many_attempts');
    }
    expect(answer).toBe(429);
  });

  it('refuses a challenge without a sign-in payload or session, and unknown methods', async () => {
    expect(
      (await server.app.inject({ method: 'GET', url: `/api/mfa/sudo?mfaId=${ids.email}`, headers: device() }))
        .statusCode,
    ).toBe(401);
    expect((await challenge(await loginPayload(), 12345)).statusCode).toBe(404);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/mfa/sudo?mfaId=abc', headers: device() })).json().code,
    ).toBe('validation_failed');
    expect((await verify('x'.repeat(43), '12345678')).json().code).toBe('challenge_closed');
  });

  it('speaks the language of the sign-in screen the person is looking at, when this host offers it', async () => {
    const inDutch = await server.app.inject({
      method: 'GET',
      url: `/api/mfa/sudo?mfaId=${ids.email}&payload=${encodeURIComponent(await loginPayload('lang-device-01'))}`,
      headers: { ...device('lang-device-01'), 'accept-language': 'nl-BE' },
    });
    expect(inDutch.statusCode).toBe(200);
    expect(smtp.mails.at(-1)!.raw).toMatch(/Uw Tessera-beveiligingscode/);
    // German is not a language of the Belgian host: the account's language (French) speaks.
    await server.ctx.db.updateTable('mfa_challenges').set({ resend_at: '2000-01-01T00:00:00.000Z' }).execute();
    const inGerman = await server.app.inject({
      method: 'GET',
      url: `/api/mfa/sudo?mfaId=${ids.email}&payload=${encodeURIComponent(await loginPayload('lang-device-02'))}`,
      headers: { ...device('lang-device-02'), 'accept-language': 'de-LU' },
    });
    expect(inGerman.statusCode).toBe(200);
    expect(smtp.mails.at(-1)!.raw).toMatch(/Votre code de s=C3=A9curit=C3=A9|Votre code de sécurité/);
  });
});
