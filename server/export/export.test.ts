// The account's data export (GET /api/user/export) on both databases: everything about the
// account and nothing secret, only after a recent second factor, and recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { freshMfa, makeUser, sessionFor } from '../testing/mfaKit.ts';

const kinds = await databaseKinds();

describe.each(kinds)('data export on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  it('downloads everything about the account, without a secret, after a recent second factor', async () => {
    const user = await makeUser(server, { methods: ['email', 'totp'], totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' });
    const device = `export-${user.userId.slice(0, 8)}`;
    const token = await sessionFor(server, user.userId, device);
    await server.ctx.db
      .updateTable('users')
      .set({ iban: 'BE68539007547034', iban_country: 'BE' })
      .where('id', '=', user.userId)
      .execute();
    const headers = { 'x-device-id': device, authorization: `Bearer ${token}` };

    await server.ctx.db.updateTable('sessions').set({ mfa_at: null }).where('user_id', '=', user.userId).execute();
    const stale = await server.app.inject({ method: 'GET', url: '/api/user/export', headers });
    expect(stale.statusCode).toBe(403);
    expect(stale.json().code).toBe('step_up_required');

    await freshMfa(server, user.userId);
    const res = await server.app.inject({ method: 'GET', url: '/api/user/export', headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="tessera-account-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    const data = res.json();
    expect(data.account).toMatchObject({
      id: user.userId,
      firstname: 'Test',
      bank_account: { iban: 'BE68539007547034', country: 'BE' },
    });
    expect(data.emails).toEqual([expect.objectContaining({ value: user.email, primary: true, verified: true })]);
    expect(data.phones).toEqual([expect.objectContaining({ value: user.phone })]);
    expect(data.second_factors.map((m: { method: string }) => m.method)).toEqual(
      expect.arrayContaining(['email', 'totp']),
    );
    expect(data.devices).toEqual([expect.objectContaining({ trusted_until: expect.any(String) })]);
    expect(data.sessions.length).toBeGreaterThan(0);
    expect(data.history.map((e: { type: string }) => e.type)).toContain('login_succeeded');
    for (const part of ['consents', 'partner_consents', 'access_grants', 'partner_access_requests', 'cards'])
      expect(Array.isArray(data[part]), part).toBe(true);

    // Nothing secret: no password hash, no authenticator secret, no session token, no device key.
    const text = res.body;
    expect(text).not.toMatch(/\$argon2/);
    expect(text).not.toContain('JBSWY3DPEHPK3PXP');
    expect(text).not.toContain(token);
    expect(text).not.toContain(device);
    for (const key of ['hash', 'secret', 'token_hash', 'key_hash', 'password_hash', 'device_key'])
      expect(text).not.toContain(`"${key}"`);

    const events = await server.ctx.db
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', user.userId)
      .where('type', '=', 'data_exported')
      .execute();
    expect(events).toHaveLength(1);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/user/export', headers: { 'x-device-id': device } }))
        .statusCode,
    ).toBe(401);
  });
});
