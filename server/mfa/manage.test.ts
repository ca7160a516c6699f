import { TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, passwordSignIn, userIdByEmail, type TestServer } from '../testing/harness.ts';
import { createTestUser } from '../testing/mfaKit.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { codeIn } from '../testing/peers.ts';

const kinds = await databaseKinds();

describe.each(kinds)('managing second factors on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;
  const nina = { email: 'nina.new@example.be', phone: '+32470777777' };
  const headers = { 'x-device-id': 'manage-device-01' };
  let auth: Record<string, string>;

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) });
  const lastMail = () => codeIn(smtp.mails.at(-1)!.raw);
  const stepUp = async () => {
    await server.ctx.db.updateTable('mfa_challenges').set({ resend_at: '2000-01-01T00:00:00.000Z' }).execute();
    const methods = (await call('GET', '/api/mfa')).json().data as Array<{ id: number; method: string }>;
    const email = methods.find((m) => m.method === 'email')!;
    const started = (await call('GET', `/api/mfa/sudo?mfaId=${email.id}`)).json();
    expect((await call('POST', '/api/mfa/sudo', { payload: started.payload, code: lastMail() })).statusCode).toBe(200);
  };

  useServerWithPeers(kind, {}, async (peers) => {
    ({ server, smtp, sms } = peers);
    await createTestUser(server, {
      firstname: 'Nina',
      lastname: 'Nys',
      language: 'nl',
      email: nina.email,
      phone: nina.phone,
      user_id: 'U-5001',
    });
    const token = (await passwordSignIn(server, nina.email, DEMO_PASSWORD, headers)).json().access_token;
    auth = { ...headers, authorization: `Bearer ${token}` };
  });

  it('adds a first factor without step-up (forced enrolment), then requires step-up for more', async () => {
    const started = await call('GET', `/api/mfa/-1/activate?target=${encodeURIComponent(nina.email)}`);
    expect(started.statusCode).toBe(200);
    expect(started.json()).toMatchObject({ fuzzion: false, data: { method: 'email', target: 'n***@example.be' } });
    const wrong = await call('POST', '/api/mfa/activate', {
      payload: started.json().payload,
      code: '00000000' === lastMail() ? '11111111' : '00000000',
    });
    expect(wrong.json().code).toBe('invalid_code');
    const done = await call('POST', '/api/mfa/activate', { payload: started.json().payload, code: lastMail() });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ method: 'email' });
    // The session that just proved the code counts as recently checked; an old one would not.
    await server.ctx.db.updateTable('sessions').set({ mfa_at: '2000-01-01T00:00:00.000Z' }).execute();
    const more = await call('GET', `/api/mfa/-2/activate?target=${encodeURIComponent('0470 77 77 77')}`);
    expect(more.statusCode).toBe(403);
    expect(more.json().code).toBe('step_up_required');
  });

  it('answers 204 for a method the user already has, and refuses bad targets', async () => {
    await stepUp();
    expect(
      (await call('GET', `/api/mfa/-1/activate?target=${encodeURIComponent(nina.email.toUpperCase())}`)).statusCode,
    ).toBe(204);
    expect((await call('GET', '/api/mfa/-1/activate?target=not-an-email')).json()).toMatchObject({
      code: 'invalid_email',
      message: 'The email provided is invalid',
    });
    expect((await call('GET', '/api/mfa/-2/activate?target=12')).json()).toMatchObject({
      code: 'invalid_phone',
      message: 'The phone number provided is invalid',
    });
  });

  it('answers a target of another account as a free one: the flag stays false until the code comes back', async () => {
    await stepUp();
    const emma = DEMO_USERS[0]!;
    const email = await call('GET', `/api/mfa/-1/activate?target=${encodeURIComponent(emma.email)}`);
    expect(email.statusCode).toBe(200);
    expect(email.json()).toMatchObject({
      fuzzion: false,
      data: { method: 'email', target: expect.stringMatching(/\*/) },
    });
    expect(JSON.stringify(email.json())).not.toMatch(/in_use/);
    expect(email.json().payload).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const phone = await call('GET', `/api/mfa/-2/activate?target=${encodeURIComponent(emma.phone)}&dry-run=true`);
    expect(phone.json()).toMatchObject({ fuzzion: false, data: { method: 'sms', target: emma.phone } });
  });

  it('adds a phone method by SMS, then refuses to delete the last code method', async () => {
    await stepUp();
    const started = await call('GET', `/api/mfa/-2/activate?target=${encodeURIComponent('0470 77 77 77')}`);
    expect(started.statusCode).toBe(200);
    const text = sms.messages.at(-1)!;
    expect(text.to).toBe(nina.phone);
    expect(text.text).toContain('Tessera-beveiligingscode');
    expect(
      (await call('POST', '/api/mfa/activate', { payload: started.json().payload, code: codeIn(text.text) }))
        .statusCode,
    ).toBe(200);
    const methods = (await call('GET', '/api/mfa')).json().data as Array<{
      id: number;
      method: string;
      primary: boolean;
    }>;
    const email = methods.find((m) => m.method === 'email')!;
    const phone = methods.find((m) => m.method === 'sms')!;
    expect(email.primary).toBe(true);
    expect((await call('POST', `/api/mfa/switch-primary/${phone.id}`)).statusCode).toBe(204);
    expect((await call('GET', '/api/mfa')).json().data[0]).toMatchObject({ id: phone.id, primary: true });
    expect((await call('DELETE', `/api/mfa/${phone.id}`)).statusCode).toBe(204);
    // The backup became primary; the last one stays.
    expect((await call('GET', '/api/mfa')).json().data).toEqual([
      expect.objectContaining({ id: email.id, primary: true }),
    ]);
    const last = await call('DELETE', `/api/mfa/${email.id}`);
    expect(last.statusCode).toBe(409);
    expect(last.json().code).toBe('last_method');
  });

  it('adds an authenticator with recovery keys; a key signs in once and tells how many are left', async () => {
    await stepUp();
    const started = await call('GET', '/api/mfa/-3/activate');
    expect(started.statusCode).toBe(200);
    const { secret, otpauth_url } = started.json().data;
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/Tessera/);
    expect(started.json().data.qr_svg).toMatch(/^<svg /);
    const code = new TOTP({ secret, digits: 6, period: 30 }).generate();
    const done = await call('POST', '/api/mfa/activate', { payload: started.json().payload, code });
    expect(done.statusCode).toBe(200);
    const keys = done.json().recovery_keys as string[];
    expect(keys).toHaveLength(10);
    expect(new Set(keys).size).toBe(10);
    const stored = await server.ctx.db.selectFrom('recovery_keys').select('key_hash').execute();
    expect(stored.map((r) => r.key_hash).join()).not.toContain(keys[0]!.replace('-', ''));

    const login = await passwordSignIn(server, nina.email, DEMO_PASSWORD, { 'x-device-id': 'other-device-0001' });
    const recovery = (login.json().mfa.methods as Array<{ id: number; method: string }>).find(
      (m) => m.method === 'totpRecovery',
    )!;
    const challenge = (
      await server.app.inject({
        method: 'GET',
        url: `/api/mfa/sudo?mfaId=${recovery.id}&payload=${login.json().mfa.payload}`,
        headers: { 'x-device-id': 'other-device-0001' },
      })
    ).json();
    const signedIn = await server.app.inject({
      method: 'POST',
      url: '/api/mfa/sudo',
      headers: { 'x-device-id': 'other-device-0001' },
      payload: { payload: challenge.payload, code: keys[0]!.replace('-', '') },
    });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().recovery_keys_left).toBe(9);
    // The profile counts the unused keys too (spec §3 "totpRecovery").
    expect((await call('GET', '/api/user')).json().data.totpRecovery).toBe(9);

    // Regenerating: the old keys stop working.
    await stepUp();
    const fresh = await call('POST', '/api/mfa/regenerate-recovery');
    expect(fresh.json().recovery_keys).toHaveLength(10);
    expect((await call('GET', '/api/user')).json().data.totpRecovery).toBe(10);
    const again = await passwordSignIn(server, nina.email, DEMO_PASSWORD, { 'x-device-id': 'other-device-0002' });
    const c2 = (
      await server.app.inject({
        method: 'GET',
        url: `/api/mfa/sudo?mfaId=${recovery.id}&payload=${again.json().mfa.payload}`,
        headers: { 'x-device-id': 'other-device-0002' },
      })
    ).json();
    const old = await server.app.inject({
      method: 'POST',
      url: '/api/mfa/sudo',
      headers: { 'x-device-id': 'other-device-0002' },
      payload: { payload: c2.payload, code: keys[1]!.replace('-', '') },
    });
    expect(old.json().code).toBe('invalid_code');
  });

  it('removes the authenticator with its keys, the backup staying primary', async () => {
    await stepUp();
    const methods = (await call('GET', '/api/mfa')).json().data as Array<{ id: number; method: string }>;
    const totp = methods.find((m) => m.method === 'totp')!;
    expect((await call('DELETE', `/api/mfa/${totp.id}`)).statusCode).toBe(204);
    const after = (await call('GET', '/api/mfa')).json().data as Array<{ method: string; primary: boolean }>;
    expect(after.map((m) => m.method)).toEqual(['email']);
    expect(after[0]!.primary).toBe(true);
    expect((await call('GET', '/api/user')).json().data.totpRecovery).toBe(0);
    const ninaId = await userIdByEmail(server, nina.email);
    expect(
      await server.ctx.db.selectFrom('recovery_keys').select('id').where('user_id', '=', ninaId).execute(),
    ).toEqual([]);
  });

  it('refuses sensitive changes without a recent MFA check', async () => {
    await server.ctx.db.updateTable('sessions').set({ mfa_at: null }).execute();
    for (const [method, url] of [
      ['POST', '/api/mfa/regenerate-recovery'],
      ['POST', '/api/mfa/switch-primary/1'],
      ['DELETE', '/api/mfa/1'],
    ] as const) {
      const res = await call(method, url);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('step_up_required');
    }
  });
});
