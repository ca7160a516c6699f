// Microsoft sign-in from the attacker's side, on both databases, against the Entra ID stand-in:
// replayed and carried-off callbacks, every way to link an identity without the account's password
// (and second factor), identities that share an account's email, and what an sso_only account
// refuses (its password, its last identity, a password reset that would open it).
import { Secret, TOTP } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { hashToken } from '../sessions/tokens.ts';
import { statusCounts } from '../testing/concurrency.ts';
import type { EntraUser } from '../testing/entraStandIn.ts';
import { databaseKinds, passwordSignIn, userColumn, type TestServer } from '../testing/harness.ts';
import { client, createTestUser, makeUser, sessionFor } from '../testing/mfaKit.ts';
import { codeIn } from '../testing/peers.ts';
import { cookieOf, entraUsers, linkTicketOf, microsoftSignIn } from '../testing/ssoKit.ts';

const TENANT = '44444444-4444-4444-8444-444444444444';
const OTHER_TENANT = '55555555-5555-4555-8555-555555555555';
const DEVICE_ID = 'sso-attack-device-01';
const FAILED = '/login/email?sso_error=sso_failed';
const LONG_AGO = '2000-01-01T00:00:00.000Z';
const OTHER_PASSWORD = 'Other-accounts-pass-7';

const newEntraUser = entraUsers('9000', 'Attack');
let otherAccounts = 0;

describe.each(await databaseKinds())('Microsoft sign-in under attack on %s', (kind) => {
  const sso = microsoftSignIn(kind, {
    tenants: [TENANT, OTHER_TENANT],
    allowed: `${TENANT}=Acme Corp, ${OTHER_TENANT}=Other Corp`,
    clientId: 'tessera-attack-client',
    deviceId: DEVICE_ID,
    dirPrefix: 'tessera-sso-attack-',
  });
  const { callback, authorized, api, passwordSession, linkDirectly, cli } = sso;
  let server: TestServer;
  beforeAll(() => {
    ({ server } = sso);
  });

  // ---- The browser's side ----------------------------------------------------------------------

  /** A sign-in started by a fresh browser: that browser. */
  const start = async () => {
    const { res, browser } = await sso.start();
    expect(res.statusCode).toBe(303);
    return { browser: browser! };
  };
  const signIn = (user: EntraUser, tenant = TENANT) => sso.signIn(user, { tenant });
  const ticketOf = (location: string) => {
    expect(location).toMatch(/^\/partner\/link-existing\?ticket=/);
    return linkTicketOf(location);
  };
  const link = (ticket: string, options: { token?: string; browser?: string } = {}) =>
    api('POST', '/api/user/link-account', { ...options, payload: { ticket } });
  /** Whether the ticket is still live for this browser (it names its identity without spending it). */
  const ticketLive = async (ticket: string, browser: string) =>
    (await api('POST', '/api/sso/microsoft/ticket', { browser, payload: { ticket } })).statusCode === 200;

  // ---- What the database holds -------------------------------------------------------------------

  const ownerOf = async (user: EntraUser, tenant = TENANT) =>
    (
      await server.ctx.db
        .selectFrom('sso_identities')
        .select('user_id')
        .where('tenant_id', '=', tenant)
        .where('object_id', '=', user.oid)
        .executeTakeFirst()
    )?.user_id ?? null;
  const identitiesOf = (userId: string) =>
    server.ctx.db
      .selectFrom('sso_identities')
      .select(['id', 'object_id', 'tenant_id'])
      .where('user_id', '=', userId)
      .execute();
  const sessionsOf = async (userId: string) =>
    (await server.ctx.db.selectFrom('sessions').select('id').where('user_id', '=', userId).execute()).length;
  const ticketsFor = async (user: EntraUser) =>
    (
      await server.ctx.db
        .selectFrom('sso_link_tickets')
        .select('ticket_hash')
        .where('object_id', '=', user.oid)
        .execute()
    ).length;
  const userCount = async () => (await server.ctx.db.selectFrom('users').select('id').execute()).length;

  // ---- Callbacks -------------------------------------------------------------------------------

  it('answers a replayed callback of an unlinked identity with sso_failed: no session, no second ticket, no link', async () => {
    const entra = newEntraUser({ email: 'replayed@contoso.example' });
    const users = await userCount();
    const first = await signIn(entra);
    ticketOf(first.location);
    expect(await ticketsFor(entra)).toBe(1);
    const replay = await callback(first.back, first.browser);
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toBe(FAILED);
    expect(cookieOf(replay.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    expect(await ticketsFor(entra)).toBe(1);
    expect(await ownerOf(entra)).toBeNull();
    expect(await userCount()).toBe(users);
  });

  it('answers a replayed callback of a linked identity with sso_failed and opens one session only', async () => {
    const account = await makeUser(server, { methods: [] });
    const entra = newEntraUser();
    await linkDirectly(account.userId, entra);
    const first = await signIn(entra);
    expect(first.location).toBe('/');
    expect(cookieOf(first.res.headers['set-cookie'], server.ctx.cookieName)).toBeTruthy();
    // Replayed in the same browser, and in a browser with no binding cookie at all.
    for (const browser of [first.browser, null]) {
      const replay = await callback(first.back, browser);
      expect(replay.headers.location).toBe(FAILED);
      expect(cookieOf(replay.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    }
    expect(await sessionsOf(account.userId)).toBe(1);
  });

  it('refuses a callback carried to another browser (login CSRF), and leaves the sign-in to the browser that started it', async () => {
    // The attacker signs in at Microsoft with an identity linked to the attacker's own account and
    // has the victim's browser (which has a sign-in of its own under way) follow the way back.
    const attacker = await makeUser(server, { methods: [] });
    const entra = newEntraUser();
    await linkDirectly(attacker.userId, entra);
    const { browser: attackerBrowser, back } = await authorized(entra);
    const victim = await start();
    const victimRequest = () =>
      server.ctx.db
        .selectFrom('sso_requests')
        .select(['used_at'])
        .where('browser_hash', '=', hashToken(victim.browser))
        .executeTakeFirstOrThrow();

    const carried = await callback(back, victim.browser);
    expect(carried.statusCode).toBe(303);
    expect(carried.headers.location).toBe(FAILED);
    expect(cookieOf(carried.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    expect(await sessionsOf(attacker.userId)).toBe(0);
    // The victim's own sign-in is untouched by it.
    expect((await victimRequest()).used_at).toBeNull();
    // The refusal came before the code was exchanged: the browser that started it still finishes it, once.
    const own = await callback(back, attackerBrowser);
    expect(own.headers.location).toBe('/');
    expect(await sessionsOf(attacker.userId)).toBe(1);
  });

  // ---- Linking without the account's password --------------------------------------------------

  it('links nothing without a session: no token, a made-up token, a wrong password or a closed sign-in leave the ticket unspent', async () => {
    const account = await makeUser(server, { methods: [] });
    const entra = newEntraUser({ email: account.email });
    const { location, browser } = await signIn(entra);
    const ticket = ticketOf(location);

    const none = await link(ticket, { browser });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('unauthorized');
    expect((await link(ticket, { browser, token: 'A'.repeat(43) })).statusCode).toBe(401);
    // The password typed wrong gives no session to link with.
    const wrong = await passwordSignIn(server, account.email, 'Not-the-password-1!', { 'x-device-id': DEVICE_ID });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('invalid_credentials');
    expect(wrong.json().access_token).toBeUndefined();
    expect(cookieOf(wrong.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    // A session that was signed out links nothing either.
    const token = await passwordSession(account.email);
    expect((await api('DELETE', '/api/sessions', { token })).statusCode).toBeLessThan(300);
    expect((await link(ticket, { browser, token })).statusCode).toBe(401);

    expect(await ticketLive(ticket, browser)).toBe(true);
    expect(await ownerOf(entra)).toBeNull();
  });

  it("links an identity only to the account whose password signed in: another account's password never reaches this one", async () => {
    const victim = await makeUser(server, { methods: [] });
    const attacker = await makeUser(server, { methods: [] });
    // The identity carries the victim's email: it still goes where the password that signed in leads.
    const entra = newEntraUser({ email: victim.email });
    const { location, browser } = await signIn(entra);
    const attackerToken = await passwordSession(attacker.email);
    expect((await link(ticketOf(location), { browser, token: attackerToken })).statusCode).toBe(200);
    expect(await ownerOf(entra)).toBe(attacker.userId);
    expect(await identitiesOf(victim.userId)).toEqual([]);
    const again = await signIn(entra);
    expect(again.location).toBe('/');
    const session = cookieOf(again.res.headers['set-cookie'], server.ctx.cookieName)!;
    expect((await api('GET', '/api/user', { token: session })).json().data.id).toBe(attacker.userId);
  });

  it("asks an old password sign-in for the password again; a wrong one or another account's does not count", async () => {
    const account = await makeUser(server, { methods: [] });
    // Another account, with a password of its own (the demo accounts share one).
    otherAccounts += 1;
    await createTestUser(
      server,
      {
        firstname: 'Other',
        lastname: 'Account',
        email: `sso.other.${process.pid}.${otherAccounts}@example.be`,
        phone: `+3247099${String(otherAccounts).padStart(4, '0')}`,
      },
      OTHER_PASSWORD,
    );
    const entra = newEntraUser();
    const { location, browser } = await signIn(entra);
    const ticket = ticketOf(location);
    const token = await passwordSession(account.email);
    // Signed in long ago (a stolen session, say): not proof enough.
    await server.ctx.db
      .updateTable('sessions')
      .set({ created_at: LONG_AGO })
      .where('user_id', '=', account.userId)
      .execute();
    const stale = await link(ticket, { browser, token });
    expect(stale.statusCode).toBe(403);
    expect(stale.json().code).toBe('step_up_required');

    const stepUp = (password: string) => api('POST', '/api/mfa/sudo/password', { token, payload: { password } });
    const wrong = await stepUp('Not-the-password-1!');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('invalid_credentials');
    // Another account's password is a wrong password here.
    expect((await stepUp(OTHER_PASSWORD)).json().code).toBe('invalid_credentials');
    expect((await link(ticket, { browser, token })).json().code).toBe('step_up_required');
    expect(await ticketLive(ticket, browser)).toBe(true);

    expect((await stepUp(DEMO_PASSWORD)).statusCode).toBe(204);
    expect((await link(ticket, { browser, token })).statusCode).toBe(200);
    expect(await ownerOf(entra)).toBe(account.userId);
  });

  it('asks an account with a second factor for it: a password session on a trusted device and a password step-up are not enough', async () => {
    const secret = new Secret({ size: 20 });
    const account = await makeUser(server, { methods: ['totp'], totpSecret: secret.base32 });
    const entra = newEntraUser();
    const { location, browser } = await signIn(entra);
    const ticket = ticketOf(location);
    // The trusted device skips the second factor at the sign-in: the session has no second factor's check.
    const token = await sessionFor(server, account.userId, DEVICE_ID);
    const refused = await link(ticket, { browser, token });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('step_up_required');
    // The password cannot stand in for the second factor of an account that has one.
    const byPassword = await api('POST', '/api/mfa/sudo/password', { token, payload: { password: DEMO_PASSWORD } });
    expect(byPassword.statusCode).toBe(409);
    expect(byPassword.json().code).toBe('second_factor_required');
    expect((await link(ticket, { browser, token })).json().code).toBe('step_up_required');
    // A wrong authenticator code does not count either.
    const challenge = await api('GET', `/api/mfa/sudo?mfaId=${account.ids.totp}`, { token });
    expect(challenge.statusCode).toBe(200);
    const right = new TOTP({ secret, digits: 6, period: 30 }).generate();
    const wrongCode = right === '000000' ? '111111' : '000000';
    expect(
      (await api('POST', '/api/mfa/sudo', { token, payload: { payload: challenge.json().payload, code: wrongCode } }))
        .statusCode,
    ).toBe(422);
    expect((await link(ticket, { browser, token })).json().code).toBe('step_up_required');
    expect(await ticketLive(ticket, browser)).toBe(true);
    expect(await ownerOf(entra)).toBeNull();
    // With the second factor, it links.
    const again = await api('GET', `/api/mfa/sudo?mfaId=${account.ids.totp}`, { token });
    expect(
      (await api('POST', '/api/mfa/sudo', { token, payload: { payload: again.json().payload, code: right } }))
        .statusCode,
    ).toBe(200);
    expect((await link(ticket, { browser, token })).statusCode).toBe(200);
    expect(await ownerOf(entra)).toBe(account.userId);
  });

  it('lets an account that must set up a second factor link nothing before it has one', async () => {
    const account = await makeUser(server, { methods: [], forced: true });
    const entra = newEntraUser();
    const { location, browser } = await signIn(entra);
    const res = await client(server).password(account.email, DEVICE_ID);
    expect(res.json().mfa_enrolment).toBe('required');
    const refused = await link(ticketOf(location), { browser, token: res.json().access_token as string });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('mfa_enrolment_required');
    expect(await ownerOf(entra)).toBeNull();
  });

  it('refuses a spent, foreign-browser, expired, doctored or other kind of ticket', async () => {
    const account = await makeUser(server, { methods: [] });
    const token = await passwordSession(account.email);
    const entra = newEntraUser();
    const { location, browser } = await signIn(entra);
    const ticket = ticketOf(location);

    // Minted for another browser: the right account, the wrong browser.
    const elsewhere = await start();
    for (const other of [elsewhere.browser, undefined]) {
      const res = await link(ticket, { token, ...(other ? { browser: other } : {}) });
      expect(res.statusCode).toBe(410);
      expect(res.json().code).toBe('sso_ticket_invalid');
    }
    // A body that names an identity of its own is refused before anything is read.
    for (const extra of [{ object_id: newEntraUser().oid }, { tenant_id: OTHER_TENANT }, { user_id: account.userId }]) {
      const doctored = await api('POST', '/api/user/link-account', { token, browser, payload: { ticket, ...extra } });
      expect(doctored.statusCode).toBe(400);
    }
    // A second factor's payload of a Microsoft sign-in, and a password sign-in's, are no link tickets.
    const secret = new Secret({ size: 20 });
    const withTotp = await makeUser(server, { methods: ['totp'], totpSecret: secret.base32 });
    const linked = newEntraUser();
    await linkDirectly(withTotp.userId, linked);
    const mfa = await signIn(linked);
    const payload = new URLSearchParams(mfa.location.split('#')[1]).get('mfa')!;
    expect((await link(payload, { token, browser: mfa.browser })).statusCode).toBe(410);
    expect(
      (await link(await client(server).loginPayload(withTotp.email, DEVICE_ID), { token, browser })).statusCode,
    ).toBe(410);
    // Nor is a link ticket a second factor's payload.
    expect((await api('POST', '/api/sso/microsoft/mfa', { payload: { payload: ticket } })).statusCode).toBe(410);

    expect(await ticketLive(ticket, browser)).toBe(true);
    // Used once, by its browser: the identity of the ticket, nothing else.
    const used = await link(ticket, { token, browser });
    expect(used.statusCode).toBe(200);
    expect(await identitiesOf(account.userId)).toEqual([
      expect.objectContaining({ object_id: entra.oid, tenant_id: TENANT }),
    ]);
    // Spent: another account in the same browser gets nothing.
    const second = await makeUser(server, { methods: [] });
    const spent = await link(ticket, { token: await passwordSession(second.email), browser });
    expect(spent.statusCode).toBe(410);
    expect(spent.json().code).toBe('sso_ticket_invalid');
    expect(await ownerOf(entra)).toBe(account.userId);

    // Expired.
    const late = newEntraUser();
    const lateSignIn = await signIn(late);
    await server.ctx.db
      .updateTable('sso_link_tickets')
      .set({ expires_at: LONG_AGO })
      .where('object_id', '=', late.oid)
      .execute();
    expect((await link(ticketOf(lateSignIn.location), { token, browser: lateSignIn.browser })).statusCode).toBe(410);
    expect(await ownerOf(late)).toBeNull();
  });

  it('never moves an identity linked to one account to another: sso_identity_taken, the ticket kept', async () => {
    const owner = await makeUser(server, { methods: [] });
    const taker = await makeUser(server, { methods: [] });
    const entra = newEntraUser();
    // The ticket was minted while the identity was nobody's; the owner linked it since.
    const { location, browser } = await signIn(entra);
    await linkDirectly(owner.userId, entra);
    const res = await link(ticketOf(location), { token: await passwordSession(taker.email), browser });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('sso_identity_taken');
    expect(await ownerOf(entra)).toBe(owner.userId);
    expect(await identitiesOf(taker.userId)).toEqual([]);
    const next = await signIn(entra);
    expect(next.location).toBe('/');
    expect(
      (
        await api('GET', '/api/user', { token: cookieOf(next.res.headers['set-cookie'], server.ctx.cookieName)! })
      ).json().data.id,
    ).toBe(owner.userId);
  });

  // ---- Never by email ----------------------------------------------------------------------------

  it("never signs an identity in, nor makes an account, by its email: same email, other case, or another identity's email", async () => {
    const account = await makeUser(server, { methods: [] });
    const users = await userCount();
    // The account has an identity already, whose email claim is the account's own.
    const linked = newEntraUser({ email: account.email });
    await linkDirectly(account.userId, linked);
    for (const email of [account.email, account.email.toUpperCase(), ` ${account.email}`]) {
      const entra = newEntraUser({ email, name: 'Same Email' });
      const { res, location } = await signIn(entra);
      ticketOf(location);
      expect(cookieOf(res.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
      expect(await ownerOf(entra)).toBeNull();
    }
    // The linked identity's object id, signed in at another tenant, is another identity.
    const crossed = await signIn({ ...linked, tid: undefined }, OTHER_TENANT);
    ticketOf(crossed.location);
    expect(await ownerOf(linked, OTHER_TENANT)).toBeNull();
    expect(await sessionsOf(account.userId)).toBe(0);
    expect(await userCount()).toBe(users);
  });

  // ---- sso_only ----------------------------------------------------------------------------------

  it('keeps an sso_only account from its password: right or weak, by email or phone, no session and no renewal ticket', async () => {
    const account = await makeUser(server, { methods: [] });
    await linkDirectly(account.userId, newEntraUser());
    expect((await cli('users', 'sso-only', account.email, 'on')).code).toBe(0);
    const token = (username: string, password = DEMO_PASSWORD) =>
      server.app.inject({
        method: 'POST',
        url: '/api/token',
        headers: { 'x-device-id': DEVICE_ID },
        payload: { username, password },
      });
    for (const username of [account.email, account.phone]) {
      const right = await token(username);
      expect(right.statusCode).toBe(403);
      expect(right.json()).toEqual({ code: 'sso_required', message: expect.any(String) });
      expect(cookieOf(right.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    }
    expect((await token(account.email, 'Not-the-password-1!')).json().code).toBe('invalid_credentials');
    // A password due for renewal hands out no renewal ticket (which would set a password and go on).
    await server.ctx.db.updateTable('users').set({ password_status: 1 }).where('id', '=', account.userId).execute();
    const weak = await token(account.email);
    expect(weak.statusCode).toBe(403);
    expect(weak.json().code).toBe('sso_required');
    expect(weak.json().payload).toBeUndefined();
    expect(await sessionsOf(account.userId)).toBe(0);
  });

  it("keeps an sso_only account's last identity, even to two unlinks at once", async () => {
    const account = await makeUser(server, { methods: [] });
    const first = await linkDirectly(account.userId, newEntraUser());
    const second = await linkDirectly(account.userId, newEntraUser());
    expect((await cli('users', 'sso-only', account.email, 'on')).code).toBe(0);
    const entra = newEntraUser();
    const third = await linkDirectly(account.userId, entra);
    // The account's session, from its Microsoft sign-in, with a fresh second factor's check.
    const signedIn = await signIn(entra);
    const token = cookieOf(signedIn.res.headers['set-cookie'], server.ctx.cookieName)!;
    await server.ctx.db
      .updateTable('sessions')
      .set({ mfa_at: new Date().toISOString() })
      .where('user_id', '=', account.userId)
      .execute();
    expect((await api('DELETE', `/api/user/sso/${third}`, { token })).statusCode).toBe(204);
    const answers = await Promise.all([first, second].map((id) => api('DELETE', `/api/user/sso/${id}`, { token })));
    expect(statusCounts(answers)).toEqual({ 204: 1, 409: 1 });
    expect(answers.find((a) => a.statusCode === 409)!.json().code).toBe('sso_last_identity');
    expect(await identitiesOf(account.userId)).toHaveLength(1);
    expect(
      await server.ctx.db
        .selectFrom('users')
        .select(['has_sso', 'sso_only'])
        .where('id', '=', account.userId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ has_sso: 1, sso_only: 1 });
  });

  it('lets a password reset of an sso_only account set a password that still signs nothing in', async () => {
    const account = await makeUser(server, { methods: [] });
    const entra = newEntraUser();
    await linkDirectly(account.userId, entra);
    expect((await cli('users', 'sso-only', account.email, 'on')).code).toBe(0);
    const headers = { 'x-device-id': DEVICE_ID };
    const forgot = await server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      headers,
      payload: { username: account.email },
    });
    expect(forgot.statusCode).toBe(200);
    // Without SMTP_URL the test server's mail lands in the dev outbox.
    const mail = await server.ctx.db
      .selectFrom('outbox')
      .select('body')
      .where('recipient', '=', account.email)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    const verified = await server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password/verify',
      headers,
      payload: { payload: forgot.json().payload, code: codeIn(mail.body) },
    });
    expect(verified.statusCode).toBe(200);
    const reset = await server.app.inject({
      method: 'POST',
      url: '/api/user/reset-password',
      headers,
      payload: {
        payload: verified.json().payload,
        password: 'Sso-only-new-pass-42',
        confirmation: 'Sso-only-new-pass-42',
      },
    });
    // The reset sets the password and opens nothing: no token, no cookie.
    expect(reset.statusCode).toBe(204);
    expect(reset.body).toBe('');
    expect(cookieOf(reset.headers['set-cookie'], server.ctx.cookieName)).toBeNull();
    // The new password meets sso_required, as the old one did; the flag stays.
    const withNew = await server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers,
      payload: { username: account.email, password: 'Sso-only-new-pass-42' },
    });
    expect(withNew.statusCode).toBe(403);
    expect(withNew.json().code).toBe('sso_required');
    expect(await sessionsOf(account.userId)).toBe(0);
    expect(await userColumn(server, account.userId, 'sso_only')).toBe(1);
    // Microsoft still signs it in.
    expect((await signIn(entra)).location).toBe('/');
    expect(await sessionsOf(account.userId)).toBe(1);
  });
});
