// Microsoft sign-in against a stand-in for Entra ID (oidc-provider on a loopback port, one issuer
// per tenant), on both databases: sign-in of a linked identity (with its second factor when the
// account has one), the link after a password sign-in, the unlink, sso_only, and the refusals.
import { Secret, TOTP } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { statusCounts } from '../testing/concurrency.ts';
import type { EntraStandIn } from '../testing/entraStandIn.ts';
import { databaseKinds, passwordSignIn, startTestServer, userColumn, type TestServer } from '../testing/harness.ts';
import { client, makeUser } from '../testing/mfaKit.ts';
import { cookieOf, entraUsers, linkTicketOf, microsoftSignIn } from '../testing/ssoKit.ts';
import { issueLinkTicket } from './requests.ts';

const TENANT = '11111111-1111-4111-8111-111111111111';
const OTHER_TENANT = '22222222-2222-4222-8222-222222222222';
const UNKNOWN_TENANT = '33333333-3333-4333-8333-333333333333';
const DEVICE_ID = 'sso-device-0001';

const newUser = entraUsers('8000', 'Entra');

describe.each(await databaseKinds())('Microsoft sign-in on %s', (kind) => {
  const sso = microsoftSignIn(kind, {
    tenants: [TENANT, OTHER_TENANT, UNKNOWN_TENANT],
    allowed: `${TENANT}=Acme Corp, ${OTHER_TENANT}`,
    clientId: 'tessera-test-client',
    deviceId: DEVICE_ID,
    dirPrefix: 'tessera-sso-',
  });
  const { start, callback, authorized, signIn, api, passwordSession, linkDirectly, cli } = sso;
  let server: TestServer;
  let idp: EntraStandIn;
  beforeAll(() => {
    ({ server, idp } = sso);
  });

  const events = async (userId: string, type: string) =>
    server.ctx.db
      .selectFrom('security_events')
      .select(['type', 'detail'])
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .execute();

  it('says in /api/config whether the button shows, with the companies', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/config', headers: { 'x-device-id': DEVICE_ID } });
    expect(res.json().microsoft).toEqual({
      tenants: [
        { id: TENANT, name: 'Acme Corp' },
        { id: OTHER_TENANT, name: null },
      ],
    });
  });

  it("starts at the tenant's own authorize endpoint with PKCE S256, state and nonce, bound to the browser", async () => {
    const { res, browser, location } = await start();
    expect(res.statusCode).toBe(303);
    const url = new URL(location!);
    expect(url.href.startsWith(`${idp.authority}/${TENANT}/v2.0/`)).toBe(true);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost/sso/microsoft/login/callback');
    expect(browser).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(String(res.headers['set-cookie'])).toMatch(/HttpOnly/i);
  });

  it("sends Microsoft's answer back to the configured origin, whatever Host or X-Forwarded-Host the start named", async () => {
    for (const headers of [
      { host: 'evil.example' },
      { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example' },
    ]) {
      const res = await server.app.inject({
        method: 'GET',
        url: `/sso/microsoft/login?${new URLSearchParams({ tenant: TENANT, device: DEVICE_ID })}`,
        headers,
      });
      expect(res.statusCode).toBe(303);
      const redirectUri = new URL(res.headers.location as string).searchParams.get('redirect_uri');
      expect(redirectUri).toBe('http://localhost/sso/microsoft/login/callback');
    }
  });

  it('signs a linked identity in: a session cookie, and the way to the target', async () => {
    const account = await makeUser(server, { methods: [] });
    const entra = newUser({ email: 'someone.else@contoso.example' });
    await linkDirectly(account.userId, entra);
    const { res, location } = await signIn(entra, { redirect: '/profile' });
    expect(res.statusCode).toBe(303);
    expect(location).toBe('/profile');
    const session = cookieOf(res.headers['set-cookie'], server.ctx.cookieName);
    expect(session).toBeTruthy();
    const me = await api('GET', '/api/user', { token: session! });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.email[0].value).toBe(account.email);
    // One event for the sign-in, named by its first factor.
    await server.ctx.signInRecords.drain();
    expect((await events(account.userId, 'sso_sign_in')).map((e) => JSON.parse(e.detail!))).toEqual([
      expect.objectContaining({ provider: 'microsoft', tenant: TENANT, mfa: false }),
    ]);
    expect(await events(account.userId, 'login_succeeded')).toHaveLength(0);
  });

  it("asks a linked identity for the account's second factor, as the password sign-in does", async () => {
    const secret = new Secret({ size: 20 });
    const account = await makeUser(server, { methods: ['totp'], totpSecret: secret.base32 });
    const entra = newUser();
    await linkDirectly(account.userId, entra);
    const { res, location } = await signIn(entra);
    expect(res.statusCode).toBe(303);
    expect(cookieOf(res.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    expect(location.startsWith('/login/microsoft#')).toBe(true);
    const payload = new URLSearchParams(location.split('#')[1]).get('mfa')!;
    const madeUp = await api('POST', '/api/sso/microsoft/mfa', { payload: { payload: `${payload}x` } });
    expect(madeUp.statusCode).toBe(410);
    expect(madeUp.json().code).toBe('sso_ticket_invalid');
    const pending = await api('POST', '/api/sso/microsoft/mfa', { payload: { payload } });
    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toMatchObject({
      code: 'mfa_required',
      mfa: { payload, methods: [expect.objectContaining({ id: account.ids.totp, method: 'totp' })] },
    });
    const sudo = client(server);
    const challenge = await sudo.challenge(payload, account.ids.totp!, DEVICE_ID);
    expect(challenge.statusCode).toBe(200);
    const code = new TOTP({ secret, digits: 6, period: 30 }).generate();
    const verified = await sudo.verify(challenge.json().payload, code, DEVICE_ID);
    expect(verified.statusCode).toBe(200);
    expect(verified.json().access_token).toBeTruthy();
    // The sign-in is in the history once its second factor is passed, as a Microsoft sign-in.
    await server.ctx.signInRecords.drain();
    expect((await events(account.userId, 'sso_sign_in')).map((e) => JSON.parse(e.detail!))).toEqual([
      expect.objectContaining({ provider: 'microsoft', tenant: TENANT, mfa: true }),
    ]);
    expect(await events(account.userId, 'login_succeeded')).toHaveLength(0);
  });

  it('never signs an unlinked identity in to the account with its email: it offers a link ticket', async () => {
    const account = await makeUser(server, { methods: [] });
    const entra = newUser({ email: account.email, name: 'Same Email' });
    const { res, location, browser } = await signIn(entra);
    expect(res.statusCode).toBe(303);
    expect(location.startsWith('/partner/link-existing?ticket=')).toBe(true);
    expect(cookieOf(res.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    const described = await api('POST', '/api/sso/microsoft/ticket', {
      browser,
      payload: { ticket: linkTicketOf(location) },
    });
    expect(described.statusCode).toBe(200);
    expect(described.json()).toMatchObject({
      provider: 'microsoft',
      tenant: { id: TENANT, name: 'Acme Corp' },
      email: account.email,
      name: 'Same Email',
    });
    // Another browser cannot read it.
    expect(
      (
        await api('POST', '/api/sso/microsoft/ticket', {
          browser: 'x'.repeat(43),
          payload: { ticket: linkTicketOf(location) },
        })
      ).statusCode,
    ).toBe(410);
    expect(
      await server.ctx.db.selectFrom('sso_identities').select('id').where('object_id', '=', entra.oid).execute(),
    ).toHaveLength(0);
    expect(await events(account.userId, 'sso_sign_in')).toHaveLength(0);
  });

  it('links an identity after a password sign-in, then signs it in; has_sso is set', async () => {
    const account = await makeUser(server, { methods: [] });
    const entra = newUser({ email: 'linked@contoso.example' });
    const first = await signIn(entra);
    const ticket = linkTicketOf(first.location);
    const token = await passwordSession(account.email);
    // Without the browser that signed in at Microsoft, the ticket links nothing.
    expect((await api('POST', '/api/user/link-account', { token, payload: { ticket } })).statusCode).toBe(410);
    const linked = await api('POST', '/api/user/link-account', { token, browser: first.browser, payload: { ticket } });
    expect(linked.statusCode).toBe(200);
    expect(linked.json().data).toMatchObject({
      provider: 'microsoft',
      tenant: { id: TENANT, name: 'Acme Corp' },
      email: 'linked@contoso.example',
    });
    expect(await userColumn(server, account.userId, 'has_sso')).toBe(1);
    expect(await events(account.userId, 'sso_linked')).toHaveLength(1);
    // The Microsoft sign-in that brought the ticket is its last use (not "not yet").
    const justLinked = await api('GET', '/api/user/sso', { token });
    expect(Date.now() - Date.parse(justLinked.json().data[0].last_used_at)).toBeLessThan(60_000);
    // Spent.
    expect(
      (await api('POST', '/api/user/link-account', { token, browser: first.browser, payload: { ticket } })).statusCode,
    ).toBe(410);
    const again = await signIn(entra);
    expect(again.location).toBe('/');
    expect(cookieOf(again.res.headers['set-cookie'], server.ctx.cookieName)).toBeTruthy();
    const list = await api('GET', '/api/user/sso', { token });
    expect(list.json()).toMatchObject({
      sso_only: false,
      data: [{ id: linked.json().data.id, tenant: { id: TENANT } }],
    });
  });

  it('links for an account with a second factor only after it, at the sign-in or a step-up', async () => {
    const secret = new Secret({ size: 20 });
    const account = await makeUser(server, { methods: ['totp'], totpSecret: secret.base32 });
    const entra = newUser();
    const first = await signIn(entra);
    const ticket = linkTicketOf(first.location);
    const sudo = client(server);
    const payload = await sudo.loginPayload(account.email, DEVICE_ID);
    const challenge = await sudo.challenge(payload, account.ids.totp!, DEVICE_ID);
    const verified = await sudo.verify(
      challenge.json().payload,
      new TOTP({ secret, digits: 6, period: 30 }).generate(),
      DEVICE_ID,
    );
    const token = verified.json().access_token as string;
    // The second factor's check grows old: the link asks for a new one, and the ticket is not spent.
    await server.ctx.db
      .updateTable('sessions')
      .set({ mfa_at: '2000-01-01T00:00:00.000Z' })
      .where('user_id', '=', account.userId)
      .execute();
    const stale = await api('POST', '/api/user/link-account', { token, browser: first.browser, payload: { ticket } });
    expect(stale.statusCode).toBe(403);
    expect(stale.json().code).toBe('step_up_required');
    await server.ctx.db
      .updateTable('sessions')
      .set({ mfa_at: new Date().toISOString() })
      .where('user_id', '=', account.userId)
      .execute();
    expect(
      (await api('POST', '/api/user/link-account', { token, browser: first.browser, payload: { ticket } })).statusCode,
    ).toBe(200);
  });

  it('unlinks with a recent second factor; an sso_only account keeps its last identity', async () => {
    const account = await makeUser(server, { methods: [] });
    const one = newUser();
    const two = newUser();
    const first = await linkDirectly(account.userId, one);
    const second = await linkDirectly(account.userId, two);
    const token = await passwordSession(account.email);
    // A password sign-in is no recent step-up.
    expect((await api('DELETE', `/api/user/sso/${first}`, { token })).json().code).toBe('step_up_required');
    await server.ctx.db
      .updateTable('sessions')
      .set({ mfa_at: new Date().toISOString() })
      .where('user_id', '=', account.userId)
      .execute();

    const on = await cli('users', 'sso-only', account.email, 'on');
    expect(on.code).toBe(0);
    expect(on.out).toContain('signs in with Microsoft only');

    expect((await api('DELETE', `/api/user/sso/${first}`, { token })).statusCode).toBe(204);
    const last = await api('DELETE', `/api/user/sso/${second}`, { token });
    expect(last.statusCode).toBe(409);
    expect(last.json().code).toBe('sso_last_identity');
    expect((await api('GET', '/api/user/sso', { token })).json()).toMatchObject({
      sso_only: true,
      data: [{ id: second }],
    });
    expect(await events(account.userId, 'sso_unlinked')).toHaveLength(1);

    expect((await cli('users', 'sso-only', account.email, 'off')).code).toBe(0);
    // Setting it again changes nothing and writes nothing; each change is in the account's history.
    expect((await cli('users', 'sso-only', account.email, 'off')).code).toBe(0);
    expect(await events(account.userId, 'sso_only_on')).toEqual([
      { type: 'sso_only_on', detail: JSON.stringify({ by: 'operator' }) },
    ]);
    expect(await events(account.userId, 'sso_only_off')).toHaveLength(1);
    expect((await api('DELETE', `/api/user/sso/${second}`, { token })).statusCode).toBe(204);
    expect(await userColumn(server, account.userId, 'has_sso')).toBe(0);
    // sso-only needs an identity to sign in with.
    expect((await cli('users', 'sso-only', account.email, 'on')).code).toBe(1);
  });

  it('refuses a password sign-in of an sso_only account: sso_required only after the right password', async () => {
    const account = await makeUser(server, { methods: [] });
    await linkDirectly(account.userId, newUser());
    await server.ctx.db.updateTable('users').set({ sso_only: 1 }).where('id', '=', account.userId).execute();
    const wrong = await passwordSignIn(server, account.email, 'Not-the-password-1!', { 'x-device-id': DEVICE_ID });
    const unknown = await passwordSignIn(server, 'nobody.here@example.be', 'Not-the-password-1!', {
      'x-device-id': DEVICE_ID,
    });
    expect(wrong.statusCode).toBe(unknown.statusCode);
    expect(wrong.json().code).toBe('invalid_credentials');
    expect(unknown.json().code).toBe('invalid_credentials');
    const right = await passwordSignIn(server, account.email, DEMO_PASSWORD, { 'x-device-id': DEVICE_ID });
    expect(right.statusCode).toBe(403);
    expect(right.json().code).toBe('sso_required');
    expect(cookieOf(right.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
  });

  it('refuses an unknown tenant, at the start and in the ID token', async () => {
    const started = await start({ tenant: UNKNOWN_TENANT });
    expect(started.res.statusCode).toBe(303);
    expect(started.location).toBe('/login/email?sso_error=sso_tenant_not_allowed');
    // The tenant's issuer signs a token naming another tenant: refused, even for a linked identity.
    const account = await makeUser(server, { methods: [] });
    const entra = newUser({ tid: UNKNOWN_TENANT });
    await linkDirectly(account.userId, entra, UNKNOWN_TENANT);
    const { res, location } = await signIn(entra);
    expect(res.statusCode).toBe(303);
    expect(location).toBe('/login/email?sso_error=sso_tenant_not_allowed');
    expect(cookieOf(res.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    // An allowed tenant's token naming the other allowed tenant is not that tenant's either.
    const crossed = await signIn(newUser({ tid: OTHER_TENANT }));
    expect(crossed.location).toBe('/login/email?sso_error=sso_tenant_not_allowed');
  });

  it('refuses a state that does not match, from another browser, or used twice', async () => {
    const account = await makeUser(server, { methods: [] });
    const entra = newUser();
    await linkDirectly(account.userId, entra);
    const { browser, back } = await authorized(entra);
    const forged = new URL(back);
    forged.searchParams.set('state', 'A'.repeat(43));
    const refused = await callback(forged, browser);
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toBe('/login/email?sso_error=sso_failed');
    expect((await callback(back, 'B'.repeat(43))).headers.location).toBe('/login/email?sso_error=sso_failed');
    expect((await callback(back, null)).headers.location).toBe('/login/email?sso_error=sso_failed');
    const good = await callback(back, browser);
    expect(good.headers.location).toBe('/');
    const replay = await callback(back, browser);
    expect(replay.headers.location).toBe('/login/email?sso_error=sso_failed');
    expect(cookieOf(replay.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
  });

  it("refuses an ID token whose nonce is not the sign-in's", async () => {
    const account = await makeUser(server, { methods: [] });
    const entra = newUser();
    await linkDirectly(account.userId, entra);
    const { browser, back } = await authorized(entra);
    // The stand-in echoed the nonce it was sent; the server now expects another.
    await server.ctx.db
      .updateTable('sso_requests')
      .set({ nonce: 'another-nonce' })
      .where('used_at', 'is', null)
      .execute();
    const res = await callback(back, browser);
    expect(res.headers.location).toBe('/login/email?sso_error=sso_failed');
    expect(cookieOf(res.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
  });

  it('lets one of thirty accounts link one identity at once', async () => {
    const entra = newUser();
    const browser = 'C'.repeat(43);
    const accounts = await Promise.all(Array.from({ length: 30 }, () => makeUser(server, { methods: [] })));
    const tokens = await Promise.all(accounts.map((account) => passwordSession(account.email)));
    const tickets = await Promise.all(
      accounts.map(() =>
        issueLinkTicket(server.ctx.db, browser, { tenantId: TENANT, objectId: entra.oid, email: null, name: null }),
      ),
    );
    const answers = await Promise.all(
      tokens.map((token, i) =>
        api('POST', '/api/user/link-account', { token, browser, payload: { ticket: tickets[i]! } }),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 200: 1, 409: 29 });
    expect(
      await server.ctx.db.selectFrom('sso_identities').select('user_id').where('object_id', '=', entra.oid).execute(),
    ).toHaveLength(1);
  });

  it('answers 404 everywhere when not configured', async () => {
    const off = await startTestServer(kind, {}, { seed: false });
    try {
      expect((await off.app.inject({ method: 'GET', url: '/sso/microsoft/login' })).statusCode).toBe(404);
      expect(
        (await off.app.inject({ method: 'GET', url: '/sso/microsoft/login/callback?state=x&code=y' })).statusCode,
      ).toBe(404);
      const ticket = await off.app.inject({
        method: 'POST',
        url: '/api/sso/microsoft/ticket',
        headers: { 'x-device-id': DEVICE_ID },
        payload: { ticket: 'x' },
      });
      expect(ticket.statusCode).toBe(404);
      expect(ticket.json().code).toBe('sso_unavailable');
      expect(
        (await off.app.inject({ method: 'GET', url: '/api/config', headers: { 'x-device-id': DEVICE_ID } })).json()
          .microsoft,
      ).toBeNull();
    } finally {
      await off.stop();
    }
  });
});
