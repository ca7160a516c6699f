import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MFA_USERS, DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { codeIn, startSmsProvider } from '../testing/peers.ts';

const kinds = await databaseKinds();
const fiona = DEMO_MFA_USERS.find((u) => u.key === 'forced')!;
const carl = DEMO_MFA_USERS.find((u) => u.key === 'offered')!;
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;

describe.each(kinds)('forced enrolment on %s', (kind) => {
  let server: TestServer;
  let sms: Awaited<ReturnType<typeof startSmsProvider>>;
  beforeAll(async () => {
    sms = await startSmsProvider();
    server = await startTestServer(kind, { SMS_PROVIDER_URL: sms.url });
  });
  afterAll(async () => {
    await server?.stop();
    await sms?.stop();
  });

  const signIn = (username: string, device: string, clientId?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { 'x-device-id': device },
      payload: { username, password: DEMO_PASSWORD, ...(clientId ? { client_id: clientId } : {}) },
    });
  const status = async (token: string, device: string) =>
    (
      await server.app.inject({
        method: 'GET',
        url: '/api/mfa/status',
        headers: { 'x-device-id': device, authorization: `Bearer ${token}` },
      })
    ).json();

  it('tells whether a second factor must, may or need not be set up: at sign-in and in the status', async () => {
    const forced = await signIn(fiona.email, 'enrol-device-002');
    expect(forced.json().mfa_enrolment).toBe('required');
    expect((await status(forced.json().access_token, 'enrol-device-002')).enrolment).toBe('required');
    const customer = await signIn(carl.email, 'enrol-device-003');
    expect(customer.json().mfa_enrolment).toBe('offered');
    expect(await status(customer.json().access_token, 'enrol-device-003')).toEqual({
      sudo: false,
      single: false,
      need_card: false,
      enrolment: 'offered',
      // No passkey, and no "not now" to one.
      passkey_offer: true,
    });
    // A customer who may skip has a full session.
    const full = await server.app.inject({
      method: 'GET',
      url: '/api/devices',
      headers: { 'x-device-id': 'enrol-device-003', authorization: `Bearer ${customer.json().access_token}` },
    });
    expect(full.statusCode).toBe(200);
    const plain = await signIn(emma.email, 'enrol-device-004');
    expect(plain.json()).not.toHaveProperty('mfa_enrolment');
    expect((await status(plain.json().access_token, 'enrol-device-004')).enrolment).toBe('none');
  });

  it('remembers a customer\'s "not now" for 30 days; a forced account or any other cannot put it off', async () => {
    const later = (token: string, device: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/mfa/enrolment/later',
        headers: { 'x-device-id': device, authorization: `Bearer ${token}` },
      });
    const profile = async (token: string, device: string) =>
      (
        await server.app.inject({
          method: 'GET',
          url: '/api/user',
          headers: { 'x-device-id': device, authorization: `Bearer ${token}` },
        })
      ).json().data;
    const forced = (await signIn(fiona.email, 'enrol-device-011')).json().access_token;
    expect((await later(forced, 'enrol-device-011')).statusCode).toBe(403);
    expect((await status(forced, 'enrol-device-011')).enrolment).toBe('required');
    const plain = (await signIn(emma.email, 'enrol-device-012')).json().access_token;
    expect((await later(plain, 'enrol-device-012')).statusCode).toBe(403);

    const customer = (await signIn(carl.email, 'enrol-device-013')).json().access_token;
    expect((await profile(customer, 'enrol-device-013')).mfa_offer_later).toBe(false);
    expect((await later(customer, 'enrol-device-013')).statusCode).toBe(204);
    expect((await profile(customer, 'enrol-device-013')).mfa_offer_later).toBe(true);
    const next = await signIn(carl.email, 'enrol-device-014');
    expect(next.json()).not.toHaveProperty('mfa_enrolment');
    // Thirty days on, the offer is back.
    await server.ctx.db
      .updateTable('users')
      .set({ mfa_offer_later_until: new Date(Date.now() - 1000).toISOString() })
      .where('mfa_customer', '=', 1)
      .execute();
    expect((await signIn(carl.email, 'enrol-device-015')).json().mfa_enrolment).toBe('offered');
  });

  it("does not divert a registered partner's sign-in, but a first-party or unknown client id does not dodge the rule", async () => {
    for (const clientId of ['2', '17', '51', '66', 'no-such-client']) {
      const res = await signIn(fiona.email, 'enrol-device-005', clientId);
      expect(res.json().mfa_enrolment).toBe('required');
      const refused = await server.app.inject({
        method: 'GET',
        url: '/api/devices',
        headers: { 'x-device-id': 'enrol-device-005', authorization: `Bearer ${res.json().access_token}` },
      });
      expect(refused.json().code).toBe('mfa_enrolment_required');
    }
    const partner = await signIn(fiona.email, 'enrol-device-006', 'deals-partner');
    expect(partner.json()).not.toHaveProperty('mfa_enrolment');
    expect((await status(partner.json().access_token, 'enrol-device-006')).enrolment).toBe('none');
  });

  it('reads a first-party client by the one rule the consent and the app read: a spec id unflagged in its row still is one', async () => {
    await server.ctx.db.updateTable('oauth_clients').set({ first_party: 0 }).where('client_id', '=', '17').execute();
    try {
      expect((await signIn(fiona.email, 'enrol-device-016', '17')).json().mfa_enrolment).toBe('required');
    } finally {
      await server.ctx.db.updateTable('oauth_clients').set({ first_party: 1 }).where('client_id', '=', '17').execute();
    }
  });

  it('gives a forced user without a second factor a session that can only set one up', async () => {
    const headers = { 'x-device-id': 'enrol-device-001' };
    const login = await signIn(fiona.email, 'enrol-device-001');
    expect(login.statusCode).toBe(200);
    const auth = { ...headers, authorization: `Bearer ${login.json().access_token}` };
    const user = await server.app.inject({ method: 'GET', url: '/api/user', headers: auth });
    expect(user.json().data).toMatchObject({ mfa_forced: true, mfa_enrolled: false });
    expect((await server.app.inject({ method: 'GET', url: '/api/mfa', headers: auth })).statusCode).toBe(200);
    const refused = await server.app.inject({ method: 'POST', url: '/api/mfa/regenerate-recovery', headers: auth });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('mfa_enrolment_required');

    const started = await server.app.inject({
      method: 'GET',
      url: `/api/mfa/-2/activate?target=${encodeURIComponent(fiona.phone)}`,
      headers: auth,
    });
    expect(started.statusCode).toBe(200);
    const done = await server.app.inject({
      method: 'POST',
      url: '/api/mfa/activate',
      headers: auth,
      payload: { payload: started.json().payload, code: codeIn(sms.messages.at(-1)!.text) },
    });
    expect(done.statusCode).toBe(200);
    // A full session now: the call is no longer refused for enrolment (there is simply no authenticator).
    const after = await server.app.inject({ method: 'POST', url: '/api/mfa/regenerate-recovery', headers: auth });
    expect(after.json().code).toBe('not_found');
    expect((await server.app.inject({ method: 'GET', url: '/api/user', headers: auth })).json().data.mfa_enrolled).toBe(
      true,
    );
    expect((await status(login.json().access_token, 'enrol-device-001')).enrolment).toBe('none');
  });
});
