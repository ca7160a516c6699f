// The OpenID Provider end to end over real HTTP: an independent relying party (openid-client) drives
// the app on a real port. Node cannot resolve *.localhost, so the Belgian origin is configured as the
// address the server listens on (PUBLIC_ORIGIN_BE), and the issuer is http://127.0.0.1:<port>/oidc.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../sessions/tokens.ts';
import { DEMO_CLIENTS, DEMO_MFA_USERS, DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { createSession } from '../sessions/store.ts';
import {
  DEVICE,
  databaseKinds,
  startListeningTestServer,
  startTestServer,
  userIdByEmail,
  type TestServer,
} from '../testing/harness.ts';
import { INVALID_PARTNER_MESSAGE } from './errors.ts';
import { listSigningKeys, rotateSigningKeys } from './keys.ts';
import { forgetCachedClients, registerClient } from './clients.ts';
import { ISSUER_ENDPOINTS, browse as browseAs, jarOf, signInCookie, type Jar } from '../testing/oidcKit.ts';
import { addPasskey, client, freshMfa, makeUser, sessionFor } from '../testing/mfaKit.ts';
import { assert } from '../testing/softAuthenticator.ts';
import { PASSKEY_COOKIE } from '../login/passkey.ts';
import { userHandle as passkeyUserHandle } from '../methods/passkey.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const REDIRECT_URI = DEMO_CLIENTS.find((c) => c.client_id === '2')!.redirect_uris.find((u) => u.startsWith('http://'))!;
const PARTNER_REDIRECT = DEMO_CLIENTS.find((c) => c.client_id === 'deals-partner')!.redirect_uris[0]!;

describe.each(kinds)('the OpenID Provider on %s', (kind) => {
  let server: TestServer;
  let base: string;
  let issuer: string;
  let config: oidc.Configuration;

  beforeAll(async () => {
    const listening = await startListeningTestServer(kind);
    server = listening;
    base = listening.base;
    issuer = `${base}/oidc`;
    config = await oidc.discovery(new URL(issuer), '2', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
  });
  afterAll(async () => server?.stop());

  const signIn = () => signInCookie(base, emma.email);
  const browse = (url: string, cookies: string[] | Jar) => browseAs(base, url, cookies);

  function authorizationUrl(params: Record<string, string>): string {
    return oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, response_type: 'code', ...params }).href;
  }

  async function signedInFlow(scope: string, extra: Record<string, string> = {}, cookie?: string) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = authorizationUrl({
      scope,
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    const res = await browse(url, [cookie ?? (await signIn())]);
    expect(res.status).toBe(303);
    const callback = new URL(res.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    return {
      callback,
      tokens: await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }),
    };
  }

  /** A first-party sign-in in the browser whose cookies are in the jar; gives the callback URL. */
  async function signedInFlowIn(jar: Jar): Promise<URL> {
    const url = authorizationUrl({
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const res = await browse(url, jar);
    const callback = new URL(res.headers.get('location')!);
    expect(callback.searchParams.get('code')).toBeTruthy();
    return callback;
  }

  it('publishes discovery under /oidc with its issuer and the code flow only', async () => {
    const res = await fetch(`${issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(issuer);
    expect(meta.response_types_supported).toEqual(['code']);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    for (const endpoint of ISSUER_ENDPOINTS) expect(String(meta[endpoint])).toMatch(new RegExp(`^${issuer}/`));
    expect(meta.backchannel_logout_supported).toBe(true);
    expect((await fetch(`${issuer}/.well-known/openid-configuration`, { method: 'HEAD' })).status).toBeLessThan(500);
    expect(meta.scopes_supported).toEqual(
      expect.arrayContaining([
        'openid',
        'profile',
        'email',
        'phone',
        'offline_access',
        'user',
        'balance',
        'userwrite',
        'activ',
        'myactiv',
      ]),
    );
    // The provider's answers carry the app's security headers, and a policy of their own.
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('publishes the signing keys in JWKS, public parts only', async () => {
    const res = await fetch(config.serverMetadata().jwks_uri!);
    const { keys } = (await res.json()) as { keys: Array<Record<string, unknown>> };
    const published = (await listSigningKeys(server.ctx.db)).filter((k) => k.published).map((k) => k.kid);
    expect(keys.map((k) => k.kid).sort()).toEqual([...published].sort());
    for (const key of keys) expect(key).not.toHaveProperty('d');
  });

  it('publishes rotated keys once the instance sees the rotation, without a restart', async () => {
    const { kids } = await rotateSigningKeys(server.ctx.db, server.ctx.config.secretKey);
    // What the timer does every 30 s.
    expect(await server.oidc.refreshKeys()).toBe(true);
    const { keys } = (await (await fetch(config.serverMetadata().jwks_uri!)).json()) as {
      keys: Array<{ kid: string }>;
    };
    expect(keys.map((k) => k.kid)).toEqual(expect.arrayContaining(kids));
    expect(keys).toHaveLength(4);
    // Tokens are signed with the new generation.
    const { tokens } = await signedInFlow('openid');
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()) as { kid: string };
    expect(kids).toContain(header.kid);
  });

  it('signs a Tessera session in to first-party client 2 with code + PKCE, and answers claims by scope', async () => {
    const { callback, tokens } = await signedInFlow('openid profile email phone');
    // RFC 9207: the authorization response names its issuer.
    expect(callback.searchParams.get('iss')).toBe(issuer);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(600);
    const idToken = tokens.claims()!;
    expect(idToken.iss).toBe(issuer);
    expect(idToken.aud).toBe('2');
    expect(idToken.amr).toEqual(['pwd']);
    expect(idToken.acr).toBe('pwd');
    expect(idToken.auth_time).toEqual(expect.any(Number));
    const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
    expect(info).toEqual({
      sub: idToken.sub,
      given_name: 'Emma',
      family_name: 'Peeters',
      locale: 'nl',
      email: emma.email,
      email_verified: true,
      phone_number: emma.phone,
      phone_number_verified: true,
    });
  });

  /** A Tessera session of a demo account, made directly (its sign-in is tested elsewhere); `mfaAt`
   * when it passed a second factor. */
  async function sessionOf(key: string, mfaAt: string | null = null): Promise<string> {
    const email = [...DEMO_USERS, ...DEMO_MFA_USERS].find((u) => u.key === key)!.email;
    const userId = await userIdByEmail(server, email);
    const { token } = await createSession(server.ctx.db, {
      userId,
      deviceId: null,
      clientId: null,
      ip: null,
      ttlDays: 1,
      mfaAt,
    });
    return `tessera_token=${token}`;
  }

  it('says in acr and amr that the Tessera session passed a second factor; a password typed again is not one', async () => {
    const { tokens } = await signedInFlow('openid', {}, await sessionOf('mfa', new Date().toISOString()));
    expect(tokens.claims()).toMatchObject({ acr: 'mfa', amr: ['pwd', 'mfa'] });
    // Emma has no second factor: her step-up by password sets the same column, and is still a password.
    const { tokens: emmas } = await signedInFlow('openid', {}, await sessionOf('cardholder', new Date().toISOString()));
    expect(emmas.claims()).toMatchObject({ acr: 'pwd', amr: ['pwd'] });
  });

  it('says in amr how a passkey second factor was given: hwk for one bound to its device, swk for a synced one', async () => {
    for (const [synced, kind] of [
      [false, 'hwk'],
      [true, 'swk'],
    ] as const) {
      const user = await makeUser(server, { methods: ['email'] });
      const device = `oidc-passkey-${kind}-01`;
      const token = await sessionFor(server, user.userId, device);
      await freshMfa(server, user.userId);
      const { id, passkey } = await addPasskey(server, { token, device }, { synced });
      // A sign-in from a new device: the password, then the passkey as the second factor.
      const api = client(server);
      const elsewhere = `${device}-new`;
      const payload = await api.loginPayload(user.email, elsewhere);
      const challenge = (await api.challenge(payload, id, elsewhere)).json();
      const credential = assert(passkey, challenge.passkey, { origin: server.ctx.config.publicOrigins.be });
      const signedIn = await api.verify(challenge.payload, '', elsewhere, { code: undefined, credential });
      expect(signedIn.statusCode).toBe(200);
      const { tokens } = await signedInFlow('openid', {}, `tessera_token=${signedIn.json().access_token}`);
      expect(tokens.claims()).toMatchObject({ acr: 'mfa', amr: ['pwd', kind, 'mfa'] });
    }
  });

  it('says in amr that a passkey sign-in had no password: the key and the user it verified', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const device = 'oidc-passkey-alone-01';
    const token = await sessionFor(server, user.userId, device);
    await freshMfa(server, user.userId);
    const { passkey } = await addPasskey(server, { token, device });
    const started = await server.app.inject({
      method: 'POST',
      url: '/api/passkey/options',
      headers: { 'x-device-id': device },
    });
    const cookie = started.cookies.find((c) => c.name === PASSKEY_COOKIE)!;
    const userHandle = Buffer.from(passkeyUserHandle(server.ctx.config.secretKey, user.userId)).toString('base64url');
    const credential = assert(passkey, started.json(), { origin: server.ctx.config.publicOrigins.be, userHandle });
    const signedIn = await server.app.inject({
      method: 'POST',
      url: '/api/passkey/sign-in',
      headers: { 'x-device-id': device, cookie: `${PASSKEY_COOKIE}=${cookie.value}` },
      payload: { credential },
    });
    expect(signedIn.statusCode).toBe(200);
    const { tokens } = await signedInFlow('openid', {}, `tessera_token=${signedIn.json().access_token}`);
    expect(tokens.claims()).toMatchObject({ acr: 'mfa', amr: ['hwk', 'user', 'mfa'] });
  });

  it('sends prompt=login, max_age and acr_values=mfa to a step-up first, and on once it is done', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const challenge = {
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      scope: 'openid',
    };
    const minuteAgo = new Date(Date.now() - 60_000).toISOString();
    const extras: Array<Record<string, string>> = [{ prompt: 'login' }, { max_age: '10' }, { acr_values: 'mfa' }];
    for (const extra of extras) {
      // Signed in a minute ago (with a second factor, but for acr_values=mfa).
      const cookie = await sessionOf('mfa', extra.acr_values ? null : minuteAgo);
      await server.ctx.db
        .updateTable('sessions')
        .set({ created_at: minuteAgo })
        .where('token_hash', '=', hashToken(cookie.split('=')[1]!))
        .execute();
      const jar = jarOf([cookie]);
      const res = await browse(authorizationUrl({ ...challenge, ...extra }), jar);
      expect(res.status).toBe(303);
      const stepUp = new URL(res.headers.get('location')!, base);
      expect(stepUp.pathname).toBe('/mfa/methods');
      expect(stepUp.searchParams.get('redirect')).toMatch(/^\/oidc\/interaction\/[\w-]+$/);
      // The step-up done (what a right code does to the session), the request goes on to the client.
      await server.ctx.db
        .updateTable('sessions')
        .set({ mfa_at: new Date(Date.now() + 1000).toISOString() })
        .where('token_hash', '=', hashToken(cookie.split('=')[1]!))
        .execute();
      const back = await browse(new URL(stepUp.searchParams.get('redirect')!, base).href, jar);
      const callback = new URL(back.headers.get('location')!);
      expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('code')).toBeTruthy();
    }
  });

  it('keeps the new login through the consent that follows it (prompt=login for a client not granted before)', async () => {
    const redirectUri = 'http://127.0.0.1:9/fresh';
    await registerClient(server.ctx.db, {
      client_id: `fresh-${kind}`,
      name: 'Fresh',
      first_party: true,
      redirect_uris: [redirectUri],
    });
    const fresh = await oidc.discovery(new URL(issuer), `fresh-${kind}`, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const cookie = await sessionOf('mfa', new Date(Date.now() - 60_000).toISOString());
    await server.ctx.db
      .updateTable('sessions')
      .set({ created_at: new Date(Date.now() - 60_000).toISOString() })
      .where('token_hash', '=', hashToken(cookie.split('=')[1]!))
      .execute();
    const jar = jarOf([cookie]);
    const url = oidc.buildAuthorizationUrl(fresh, {
      redirect_uri: redirectUri,
      scope: 'openid',
      prompt: 'login',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const stepUp = new URL((await browse(url.href, jar)).headers.get('location')!, base);
    expect(stepUp.pathname).toBe('/mfa/methods');
    await server.ctx.db
      .updateTable('sessions')
      .set({ mfa_at: new Date().toISOString() })
      .where('token_hash', '=', hashToken(cookie.split('=')[1]!))
      .execute();
    // The consent's interaction starts in a later second than the proof: only the login kept from
    // the first interaction satisfies prompt=login there.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const back = await browse(new URL(stepUp.searchParams.get('redirect')!, base).href, jar);
    const callback = new URL(back.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(callback.searchParams.get('code')).toBeTruthy();
  });

  it('refuses a client that demands a second factor for an account without one', async () => {
    const res = await browse(
      authorizationUrl({
        scope: 'openid',
        acr_values: 'mfa',
        state: 's3',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }),
      [await sessionOf('cardholder')],
    );
    const callback = new URL(res.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('error')).toBe('access_denied');
  });

  it("never lets the provider's session outlive the Tessera session: signed out, the next request signs in again", async () => {
    const cookie = await signIn();
    const jar = jarOf([cookie]);
    await signedInFlowIn(jar);
    // While it lives, the next request goes straight back to the client: no interaction at all.
    const straight = await fetch(
      authorizationUrl({
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual', headers: { cookie: [...jar.values()].join('; ') } },
    );
    expect(straight.headers.get('location')).toMatch(new RegExp(`^${REDIRECT_URI}\\?code=`));
    // Signed out of Tessera: the provider's own session cookie is still in the browser.
    await fetch(`${base}/api/token`, { method: 'DELETE', headers: { ...DEVICE, cookie } });
    const none = await browse(
      authorizationUrl({
        scope: 'openid',
        prompt: 'none',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }),
      jar,
    );
    expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    const again = await browse(
      authorizationUrl({
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }),
      jar,
    );
    expect(new URL(again.headers.get('location')!, base).pathname).toBe('/login/email');
  });

  it('carries the platform ids under the user scope only', async () => {
    const { tokens } = await signedInFlow('openid user');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info).toEqual({
      sub: tokens.claims()!.sub,
      user_id: 'U-1001',
      customer_user_id: 'C-2001',
      fridom_user_id: 'F-3001',
    });
  });

  it('rotates refresh tokens; an old one used again, once its successor was used, fails and revokes the grant', async () => {
    const { tokens } = await signedInFlow('openid offline_access', { prompt: 'consent' });
    const first = tokens.refresh_token!;
    expect(first).toBeTruthy();
    const second = await oidc.refreshTokenGrant(config, first);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(first);
    const third = await oidc.refreshTokenGrant(config, second.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, first)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The reuse revoked the whole grant: the newest refresh token and its access token are dead too.
    await expect(oidc.refreshTokenGrant(config, third.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const introspected = await oidc.tokenIntrospection(config, third.access_token);
    expect(introspected.active).toBe(false);
  });

  it('answers a refresh repeated because its answer was lost with that same answer, and issues nothing new', async () => {
    const { tokens } = await signedInFlow('openid offline_access', { prompt: 'consent' });
    const first = tokens.refresh_token!;
    const lost = await oidc.refreshTokenGrant(config, first);
    const rows = async () =>
      (await server.ctx.db.selectFrom('oidc_models').select('id').where('model', '=', 'RefreshToken').execute()).length;
    const before = await rows();
    // The client never saw `lost`: it presents the same token again and gets the same tokens.
    const repeat = await oidc.refreshTokenGrant(config, first);
    expect(repeat.refresh_token).toBe(lost.refresh_token);
    expect(repeat.access_token).toBe(lost.access_token);
    expect(await rows()).toBe(before);
    expect((await oidc.tokenIntrospection(config, repeat.access_token)).active).toBe(true);
    // The kept answer is sealed: no token in clear at rest.
    const kept = await server.ctx.db
      .selectFrom('oidc_models')
      .select('payload')
      .where('model', '=', 'RefreshAnswer')
      .execute();
    expect(kept.length).toBeGreaterThan(0);
    for (const row of kept) expect(row.payload).not.toContain(lost.access_token);
    // And the chain goes on from there.
    const next = await oidc.refreshTokenGrant(config, repeat.refresh_token!);
    expect(next.refresh_token).not.toBe(repeat.refresh_token);
  });

  it('takes a spent refresh token for a stolen one once the repeat window is over', async () => {
    const { tokens } = await signedInFlow('openid offline_access', { prompt: 'consent' });
    const first = tokens.refresh_token!;
    const second = await oidc.refreshTokenGrant(config, first);
    // The window is over (as REPEAT_SECONDS after the rotation).
    await server.ctx.db
      .updateTable('oidc_models')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('model', '=', 'RefreshAnswer')
      .execute();
    await expect(oidc.refreshTokenGrant(config, first)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('revokes a refresh token at the revocation endpoint: it fails on its next use', async () => {
    const { tokens } = await signedInFlow('openid offline_access', { prompt: 'consent' });
    await oidc.tokenRevocation(config, tokens.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('spends a code once: used again, it is refused and what it issued is revoked', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const url = authorizationUrl({
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const res = await browse(url, [await signIn()]);
    const callback = new URL(res.headers.get('location')!);
    const first = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
    await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await oidc.tokenIntrospection(config, first.access_token)).active).toBe(false);
  });

  /** Signs in to client 2 in the jar's browser, then asks for its RP-initiated logout: gives where
   * the provider sent the browser, and what our confirmation reads there. */
  async function askLogout(jar: Jar) {
    const verifier = oidc.randomPKCECodeVerifier();
    const res = await browse(
      authorizationUrl({
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }),
      jar,
    );
    const tokens = await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
      pkceCodeVerifier: verifier,
    });
    const confirm = await browse(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! }).href, jar);
    // Our confirmation, not the provider's page; the form's secret is not in the address.
    expect(confirm.status).toBe(303);
    const location = new URL(confirm.headers.get('location')!, base);
    expect(location.pathname).toBe('/logout/confirm');
    expect([...location.searchParams.keys()]).toEqual(['ref']);
    const read = await fetch(`${base}/api/logout-requests/${location.searchParams.get('ref')}`, {
      headers: { ...DEVICE, 'accept-language': 'fr-BE' },
    });
    expect(read.status).toBe(200);
    const request = (await read.json()) as { client: { name: string } | null; action: string; xsrf: string };
    expect(location.href).not.toContain(request.xsrf);
    expect(request.action).toBe('/oidc/session/end/confirm');
    const answer = (logout: boolean) =>
      fetch(`${base}${request.action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: [...jar.values()].join('; '), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf: request.xsrf, ...(logout ? { logout: 'yes' } : {}) }),
      });
    return { request, answer };
  }

  it('asks on our own screen to confirm an RP-initiated logout, which ends the Tessera session of the browser too', async () => {
    const cookie = await signIn();
    const jar = jarOf([cookie]);
    const { request, answer } = await askLogout(jar);
    expect(request.client).toMatchObject({ client_id: '2' });
    const done = await answer(true);
    expect(done.status).toBe(303);
    // Our success screen (the client registered no post-logout address).
    expect((await browse(new URL(done.headers.get('location')!, base).href, jar)).headers.get('location')).toBe(
      '/logout/done',
    );
    expect(done.headers.getSetCookie().some((c) => c.startsWith('tessera_token=;'))).toBe(true);
    // Signed out of Tessera as well: its session is gone.
    expect((await fetch(`${base}/api/user`, { headers: { ...DEVICE, cookie } })).status).toBe(401);
    // The request is spent with the provider's session state.
    expect((await answer(true)).status).toBe(400);
  });

  it('keeps the person signed in to Tessera when they answer no, and says which application signed out', async () => {
    const cookie = await signIn();
    const jar = jarOf([cookie]);
    const { answer } = await askLogout(jar);
    const stayed = await answer(false);
    expect(stayed.status).toBe(303);
    const success = await browse(new URL(stayed.headers.get('location')!, base).href, jar);
    expect(success.headers.get('location')).toBe('/logout/done?client_id=2');
    expect((await fetch(`${base}/api/user`, { headers: { ...DEVICE, cookie } })).status).toBe(200);
  });

  it('answers an unknown or malformed logout reference with 404 or 400', async () => {
    const unknown = await fetch(`${base}/api/logout-requests/${'a'.repeat(43)}`, { headers: DEVICE });
    expect(unknown.status).toBe(404);
    expect((await fetch(`${base}/api/logout-requests/short`, { headers: DEVICE })).status).toBe(400);
  });

  it('refuses a request without PKCE, or with the plain method, back to the client', async () => {
    const cookie = await signIn();
    const refused: Array<Record<string, string>> = [
      {},
      { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
    ];
    for (const params of refused) {
      const res = await browse(authorizationUrl({ scope: 'openid', ...params }), [cookie]);
      expect(res.status).toBe(303);
      const callback = new URL(res.headers.get('location')!);
      expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('error')).toBe('invalid_request');
      expect(callback.searchParams.get('code')).toBeNull();
    }
  });

  it('never redirects to an unregistered or near-miss redirect_uri, nor for an unknown client', async () => {
    const pkce = {
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      scope: 'openid',
    };
    for (const redirectUri of [
      'https://evil.example/callback',
      `${REDIRECT_URI}/`,
      REDIRECT_URI.replace('3000', '3001'),
    ]) {
      const res = await fetch(authorizationUrl({ ...pkce, redirect_uri: redirectUri }), { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain(INVALID_PARTNER_MESSAGE);
    }
    // In the visitor's language.
    const french = await fetch(authorizationUrl({ ...pkce, redirect_uri: 'https://evil.example/callback' }), {
      redirect: 'manual',
      headers: { 'accept-language': 'fr-BE' },
    });
    expect(await french.text()).toContain('Configuration du partenaire invalide.');
    const unknown = new URL(authorizationUrl(pkce));
    unknown.searchParams.set('client_id', 'nobody');
    const res = await fetch(unknown, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain(INVALID_PARTNER_MESSAGE);
  });

  it('answers prompt=none without a session with login_required, to the client', async () => {
    const url = authorizationUrl({
      scope: 'openid',
      prompt: 'none',
      state: 's1',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const callback = new URL(res.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('error')).toBe('login_required');
    expect(callback.searchParams.get('iss')).toBe(issuer);
  });

  it('sends a browser without a session to our sign-in, with the way back to the interaction', async () => {
    const url = authorizationUrl({
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const res = await browse(url, []);
    expect(res.status).toBe(303);
    const signInUrl = new URL(res.headers.get('location')!, base);
    expect(signInUrl.pathname).toBe('/login/email');
    expect(signInUrl.searchParams.get('redirect')).toMatch(/^\/oidc\/interaction\/[\w-]+$/);
  });

  describe('a partner application', () => {
    let partner: oidc.Configuration;
    beforeAll(async () => {
      partner = await oidc.discovery(new URL(issuer), 'deals-partner', undefined, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
      });
    });

    /** Starts a partner's request in a signed-in browser: where the provider sent it, and its PKCE verifier. */
    async function startPartnerRequest(scope: string, jar: Jar) {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(partner, {
        redirect_uri: PARTNER_REDIRECT,
        scope,
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const res = await browse(url.href, jar);
      expect(res.status).toBe(303);
      return { location: new URL(res.headers.get('location')!, base), verifier, state };
    }

    async function api(method: 'GET' | 'POST', path: string, cookie: string, body?: unknown, language = 'en') {
      const res = await fetch(`${base}/api${path}`, {
        method,
        headers: {
          ...DEVICE,
          cookie,
          'accept-language': language,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }

    it('asks on /approve for what it wants, then sends the code once the person accepts; it asks again only for new scopes', async () => {
      const cookie = await signIn();
      const jar = jarOf([cookie]);
      const first = await startPartnerRequest('openid user balance', jar);
      expect(first.location.pathname).toBe('/approve');
      const uid = first.location.searchParams.get('uid')!;
      const asked = await api('GET', `/authorize?uid=${uid}`, cookie, undefined, 'fr-BE');
      expect(asked.status).toBe(200);
      expect(asked.body).toMatchObject({ approvalType: ['openid', 'user', 'balance'], granted: [] });
      expect(asked.body.client).toMatchObject({
        client_id: 'deals-partner',
        name: 'Partenaire avantages',
        policy_uri: 'https://deals.partner.example/privacy',
      });
      const answered = await api('POST', '/authorize', cookie, { uid, approve: true });
      expect(answered.status).toBe(200);
      const back = await browse(String(answered.body.target), jar);
      const callback = new URL(back.headers.get('location')!);
      expect(`${callback.origin}${callback.pathname}`).toBe(PARTNER_REDIRECT);
      const tokens = await oidc.authorizationCodeGrant(partner, callback, {
        pkceCodeVerifier: first.verifier,
        expectedState: first.state,
      });
      expect(await oidc.fetchUserInfo(partner, tokens.access_token, tokens.claims()!.sub)).toMatchObject({
        user_id: 'U-1001',
      });

      // The same scopes again: straight back to the client, no question.
      const again = await startPartnerRequest('openid user', jar);
      expect(`${again.location.origin}${again.location.pathname}`).toBe(PARTNER_REDIRECT);
      expect(again.location.searchParams.get('code')).toBeTruthy();
      // One more scope: only that one is asked for.
      const more = await startPartnerRequest('openid user transaction', jar);
      expect(more.location.pathname).toBe('/approve');
      const askedMore = await api('GET', `/authorize?uid=${more.location.searchParams.get('uid')}`, cookie);
      expect(askedMore.body).toMatchObject({
        approvalType: ['transaction'],
        granted: expect.arrayContaining(['openid', 'user', 'balance']),
      });
    });

    it('ends the request with access_denied at once when the person refuses; the first answer stands', async () => {
      const cookie = await signIn();
      const jar = jarOf([cookie]);
      const { location, state } = await startPartnerRequest('openid balance', jar);
      const uid = location.searchParams.get('uid')!;
      const refused = await api('POST', '/authorize', cookie, { uid, approve: false });
      expect(refused.status).toBe(200);
      // The answer is the client's error redirect itself, with the request's state and the issuer.
      const callback = new URL(String(refused.body.target));
      expect(`${callback.origin}${callback.pathname}`).toBe(PARTNER_REDIRECT);
      expect(Object.fromEntries(callback.searchParams)).toEqual({
        error: 'access_denied',
        error_description: 'The person did not give consent',
        state,
        iss: issuer,
      });
      // Ended on the server, with no further click: the interaction and its resume are gone.
      expect(await server.oidc.forIssuer(issuer).Interaction.find(uid)).toBeUndefined();
      expect((await browse(`${issuer}/interaction/${uid}`, jar)).status).toBe(400);
      const resume = await browse(`${issuer}/auth/${uid}`, jar);
      expect(resume.headers.get('location') ?? '').not.toContain('code=');
      // A second answer, or a second look, finds the request over.
      expect((await api('POST', '/authorize', cookie, { uid, approve: true })).status).toBe(410);
      expect((await api('GET', `/authorize?uid=${uid}`, cookie)).status).toBe(410);
      await expect(
        oidc.authorizationCodeGrant(partner, callback, { pkceCodeVerifier: 'x'.repeat(43), expectedState: state }),
      ).rejects.toMatchObject({ error: 'access_denied' });
    });

    it('lets nobody else read or answer the request, and resumes it only in the browser that started it', async () => {
      const cookie = await signIn();
      const jar = jarOf([cookie]);
      const { location } = await startPartnerRequest('openid user', jar);
      const uid = location.searchParams.get('uid')!;
      const noah = DEMO_USERS.find((u) => u.key === 'newcomer')!;
      const other = await fetch(`${base}/api/token`, {
        method: 'POST',
        headers: { ...DEVICE, 'content-type': 'application/json' },
        body: JSON.stringify({ username: noah.email, password: DEMO_PASSWORD }),
      });
      expect(other.status).toBe(200);
      const otherCookie = other.headers
        .getSetCookie()
        .find((c) => c.startsWith('tessera_token='))!
        .split(';')[0]!;
      expect(await api('GET', `/authorize?uid=${uid}`, otherCookie)).toMatchObject({
        status: 410,
        body: { code: 'authorization_expired' },
      });
      expect(await api('POST', '/authorize', otherCookie, { uid, approve: true })).toMatchObject({ status: 410 });
      expect((await api('GET', `/authorize?uid=${uid}`, '')).status).toBe(401);
      expect((await api('GET', '/authorize?uid=nope', cookie)).status).toBe(410);
      expect((await api('GET', `/authorize?uid=${'x'.repeat(65)}`, cookie)).status).toBe(400);
      expect((await api('POST', '/authorize', cookie, { uid, approve: 'yes' })).status).toBe(400);
      const answered = await api('POST', '/authorize', cookie, { uid, approve: true });
      // Another browser (none of the provider's cookies) cannot pick the answer up.
      const stolen = await fetch(String(answered.body.target), { redirect: 'manual', headers: { cookie } });
      expect(stolen.headers.get('location') ?? '').not.toContain('code=');
    });

    // Defined on PostgreSQL only: its default isolation is where read-check-write races.
    if (kind === 'postgres')
      it('of thirty answers sent at once, accepting and refusing, exactly one is recorded and taken', async () => {
        const cookie = await signIn();
        const jar = jarOf([cookie]);
        const { location } = await startPartnerRequest('openid balance', jar);
        const uid = location.searchParams.get('uid')!;
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, i) => api('POST', '/authorize', cookie, { uid, approve: i % 2 === 0 })),
        );
        // A refusal ends the request: an answer read after that finds it over (410).
        expect(answers.every((answer) => answer.status === 200 || answer.status === 410)).toBe(true);
        const recorded = await server.ctx.db.selectFrom('consent_answers').selectAll().where('uid', '=', uid).execute();
        expect(recorded).toHaveLength(1);
        // One answer taken: one security event, the recorded one's.
        const events = await server.ctx.db
          .selectFrom('security_events')
          .select('type')
          .where('detail', 'like', `%${uid}%`)
          .execute();
        expect(events.map((e) => e.type)).toEqual([
          recorded[0]!.approved ? 'partner_consent_given' : 'partner_consent_refused',
        ]);
        // Every answer given points the same way: the code, or access_denied.
        const targets = new Set(answers.filter((answer) => answer.status === 200).map((answer) => answer.body.target));
        expect(targets.size).toBe(1);
        const target = String([...targets][0]);
        const callback = recorded[0]!.approved
          ? new URL((await browse(target, jar)).headers.get('location')!)
          : new URL(target);
        expect(callback.searchParams.get('error') === 'access_denied').toBe(!recorded[0]!.approved);
      });

    it('never grants a scope the client is not registered for', async () => {
      const cookie = await signIn();
      const jar = jarOf([cookie]);
      const { location } = await startPartnerRequest('openid payment', jar);
      expect(`${location.origin}${location.pathname}`).toBe(PARTNER_REDIRECT);
      expect(location.searchParams.get('error')).toBe('invalid_scope');
      expect(location.searchParams.get('code')).toBeNull();
    });
  });

  describe('back-channel logout', () => {
    let received: string[];
    let receiver: http.Server;
    let bcl: oidc.Configuration;
    const BCL_REDIRECT = 'http://127.0.0.1:9/callback';
    beforeAll(async () => {
      received = [];
      receiver = http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on('end', () => {
          received.push(body);
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      await registerClient(server.ctx.db, {
        client_id: 'bcl-app',
        name: 'Back-channel app',
        first_party: true,
        redirect_uris: [BCL_REDIRECT],
        backchannel_logout_uri: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/logout`,
      });
      bcl = await oidc.discovery(new URL(issuer), 'bcl-app', undefined, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
      });
    });
    afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    async function signInTo(jar: Jar) {
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(bcl, {
        redirect_uri: BCL_REDIRECT,
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const res = await browse(url.href, jar);
      return oidc.authorizationCodeGrant(bcl, new URL(res.headers.get('location')!), { pkceCodeVerifier: verifier });
    }

    it('tells the application, with a signed logout token for its session, when the person signs out of Tessera', async () => {
      received.length = 0;
      const cookie = await signIn();
      const tokens = await signInTo(jarOf([cookie]));
      const idToken = tokens.claims()!;
      expect(idToken.sid).toBeTruthy();
      expect((await fetch(`${base}/api/token`, { method: 'DELETE', headers: { ...DEVICE, cookie } })).status).toBe(204);
      expect(received).toHaveLength(1);
      const logoutToken = new URLSearchParams(received[0]).get('logout_token')!;
      const { payload } = await jwtVerify(logoutToken, createRemoteJWKSet(new URL(bcl.serverMetadata().jwks_uri!)), {
        issuer,
        audience: 'bcl-app',
      });
      expect(payload).toMatchObject({
        sub: idToken.sub,
        sid: idToken.sid,
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      });
      expect(payload.nonce).toBeUndefined();
      // Signed in without offline_access: what the application held ends with the session.
      expect((await oidc.tokenIntrospection(bcl, tokens.access_token)).active).toBe(false);
    });

    it('tells it too when the person logs that device out from another one', async () => {
      received.length = 0;
      const cookie = await signIn();
      const tokens = await signInTo(jarOf([cookie]));
      const other = await fetch(`${base}/api/token`, {
        method: 'POST',
        headers: { 'x-device-id': 'bcl-other-device-01', 'content-type': 'application/json' },
        body: JSON.stringify({ username: emma.email, password: DEMO_PASSWORD }),
      });
      const auth = {
        'x-device-id': 'bcl-other-device-01',
        authorization: `Bearer ${((await other.json()) as { access_token: string }).access_token}`,
      };
      const devices = (await (await fetch(`${base}/api/devices`, { headers: auth })).json()) as {
        data: Array<{ id: string; current: boolean; services: Array<{ client_id: string }> }>;
      };
      // The device lists the application it signed in to.
      const device = devices.data.find((d) => d.services.some((s) => s.client_id === 'bcl-app'))!;
      expect(device.current).toBe(false);
      expect(
        (await fetch(`${base}/api/devices/${device.id}/sessions`, { method: 'DELETE', headers: auth })).status,
      ).toBe(204);
      expect(received).toHaveLength(1);
      expect((await oidc.tokenIntrospection(bcl, tokens.access_token)).active).toBe(false);
    });

    it('tells a partner, with a signed logout token for its session, when the person revokes its access', async () => {
      received.length = 0;
      await registerClient(server.ctx.db, {
        client_id: 'bcl-partner',
        name: 'Back-channel partner',
        first_party: false,
        redirect_uris: [BCL_REDIRECT],
        backchannel_logout_uri: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/partner-logout`,
      });
      const partnerBcl = await oidc.discovery(new URL(issuer), 'bcl-partner', undefined, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
      });
      const cookie = await signIn();
      const jar = jarOf([cookie]);
      // Signed in to a first-party application and to the partner, in the same browser.
      const firstParty = await signInTo(jar);
      const verifier = oidc.randomPKCECodeVerifier();
      const start = await browse(
        oidc.buildAuthorizationUrl(partnerBcl, {
          redirect_uri: BCL_REDIRECT,
          scope: 'openid',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }).href,
        jar,
      );
      const uid = new URL(start.headers.get('location')!, base).searchParams.get('uid')!;
      const answered = await fetch(`${base}/api/authorize`, {
        method: 'POST',
        headers: { ...DEVICE, cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ uid, approve: true }),
      });
      const { target } = (await answered.json()) as { target: string };
      const back = await browse(target, jar);
      const tokens = await oidc.authorizationCodeGrant(partnerBcl, new URL(back.headers.get('location')!), {
        pkceCodeVerifier: verifier,
      });
      const idToken = tokens.claims()!;
      expect(received).toHaveLength(0);

      const revoked = await fetch(`${base}/api/token/bcl-partner`, {
        method: 'DELETE',
        headers: { ...DEVICE, cookie },
      });
      expect(revoked.status).toBe(204);
      expect(received).toHaveLength(1);
      const logoutToken = new URLSearchParams(received[0]).get('logout_token')!;
      const { payload } = await jwtVerify(
        logoutToken,
        createRemoteJWKSet(new URL(partnerBcl.serverMetadata().jwks_uri!)),
        { issuer, audience: 'bcl-partner' },
      );
      expect(payload).toMatchObject({
        sub: idToken.sub,
        sid: idToken.sid,
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      });
      // Only the partner is signed out: the first-party application and the Tessera session live on.
      expect((await oidc.tokenIntrospection(bcl, firstParty.access_token)).active).toBe(true);
      expect((await fetch(`${base}/api/user`, { headers: { ...DEVICE, cookie } })).status).toBe(200);
      // Told once: the partner is no longer in the provider's session.
      await server.ctx.sessionsEnded({ accountId: idToken.sub });
      expect(received).toHaveLength(2);
      const second = await jwtVerify(
        new URLSearchParams(received[1]).get('logout_token')!,
        createRemoteJWKSet(new URL(bcl.serverMetadata().jwks_uri!)),
        { issuer },
      );
      expect(second.payload.aud).toBe('bcl-app');
    });

    it('tells it too when every session of the account ends (a new password)', async () => {
      received.length = 0;
      const cookie = await signIn();
      const tokens = await signInTo(jarOf([cookie]));
      await server.ctx.sessionsEnded({ accountId: tokens.claims()!.sub });
      expect(received).toHaveLength(1);
      // Told once: the link is gone with the provider's session.
      await server.ctx.sessionsEnded({ accountId: tokens.claims()!.sub });
      expect(received).toHaveLength(1);
    });
  });

  describe('sign-in by URL hash', () => {
    const ticketFor = (accessToken: string) =>
      fetch(`${base}/api/login-tickets`, {
        method: 'POST',
        headers: { ...DEVICE, authorization: `Bearer ${accessToken}` },
      });
    const spend = (ticket: string, clientId: string) =>
      fetch(`${base}/api/token/ticket`, {
        method: 'POST',
        headers: { ...DEVICE, 'content-type': 'application/json' },
        body: JSON.stringify({ ticket, client_id: clientId }),
      });

    it('gives a first-party platform a one-time ticket that opens a session once, for its own client only', async () => {
      const { tokens } = await signedInFlow('openid');
      const issued = await ticketFor(tokens.access_token);
      expect(issued.status).toBe(201);
      const { ticket, expires_in: expiresIn } = (await issued.json()) as { ticket: string; expires_in: number };
      expect(expiresIn).toBe(60);
      expect((await spend(ticket, '17')).status).toBe(400);
      const spent = await spend(ticket, '2');
      expect(spent.status).toBe(200);
      const cookie = spent.headers
        .getSetCookie()
        .find((c) => c.startsWith('tessera_token='))!
        .split(';')[0]!;
      const user = await fetch(`${base}/api/user`, { headers: { ...DEVICE, cookie } });
      expect(((await user.json()) as { data: { id: string } }).data.id).toBe(tokens.claims()!.sub);
      expect(await (await spend(ticket, '2')).json()).toMatchObject({ code: 'invalid_login_ticket' });
      // Only its digest is kept.
      expect(
        await server.ctx.db
          .selectFrom('login_tickets')
          .selectAll()
          .where('ticket_hash', '=', ticket)
          .executeTakeFirst(),
      ).toBeUndefined();
    });

    it("refuses a missing or unknown access token, and a partner's", async () => {
      expect((await fetch(`${base}/api/login-tickets`, { method: 'POST', headers: DEVICE })).status).toBe(401);
      expect((await ticketFor('x'.repeat(43))).status).toBe(401);
      const cookie = await signIn();
      const jar = jarOf([cookie]);
      const partner = await oidc.discovery(new URL(issuer), 'deals-partner', undefined, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
      });
      const verifier = oidc.randomPKCECodeVerifier();
      const start = await browse(
        oidc.buildAuthorizationUrl(partner, {
          redirect_uri: PARTNER_REDIRECT,
          scope: 'openid',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }).href,
        jar,
      );
      const uid = new URL(start.headers.get('location')!, base).searchParams.get('uid')!;
      const answer = await fetch(`${base}/api/authorize`, {
        method: 'POST',
        headers: { ...DEVICE, cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ uid, approve: true }),
      });
      const back = await browse(((await answer.json()) as { target: string }).target, jar);
      const tokens = await oidc.authorizationCodeGrant(partner, new URL(back.headers.get('location')!), {
        pkceCodeVerifier: verifier,
      });
      expect((await ticketFor(tokens.access_token)).status).toBe(403);
      expect((await spend('bad ticket!', '2')).status).toBe(400);
    });

    // Defined on PostgreSQL only: its default isolation is where read-check-write races.
    if (kind === 'postgres')
      it('of thirty parallel spends of one ticket exactly one opens a session', async () => {
        const { tokens } = await signedInFlow('openid');
        const { ticket } = (await (await ticketFor(tokens.access_token)).json()) as { ticket: string };
        const statuses = await Promise.all(
          Array.from({ length: 30 }, () => spend(ticket, '2').then((res) => res.status)),
        );
        expect(statuses.filter((status) => status === 200)).toHaveLength(1);
        expect(statuses.filter((status) => status === 400)).toHaveLength(29);
      });
  });

  // Defined on PostgreSQL only: it stops the database taking connections, which SQLite has no way to do.
  if (kind === 'postgres')
    it('answers 503 temporarily_unavailable, not 500, while the database is away', async () => {
      const name = new URL(server.ctx.config.databaseUrl!).pathname.slice(1);
      const adminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
      const admin = async (statement: string) => {
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        try {
          await client.query(statement);
        } finally {
          await client.end();
        }
      };
      const url = authorizationUrl({
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      });
      // The instance reads the client now, and keeps it.
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
      // Only this test's own database stops taking connections, and only its connections end.
      await admin(`alter database ${name} with allow_connections false`);
      await admin(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
      );
      try {
        // A client this instance keeps (server/oidc/clients.ts) is known without the database: the
        // error goes back to it, as RFC 6749 (4.1.2.1) has it.
        const known = await fetch(url, { redirect: 'manual' });
        expect(known.status).toBe(303);
        const back = new URL(known.headers.get('location')!);
        expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
        expect(back.searchParams.get('error')).toBe('temporarily_unavailable');
        // A client it has to read: our page, and no redirect.
        forgetCachedClients(server.ctx.db);
        const res = await fetch(url, { redirect: 'manual' });
        expect(res.status).toBe(503);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).toContain('temporarily_unavailable');
        const token = await fetch(config.serverMetadata().token_endpoint!, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x'.repeat(43), client_id: '2' }),
        });
        expect(token.status).toBe(503);
        expect(await token.json()).toMatchObject({ error: 'temporarily_unavailable' });
      } finally {
        await admin(`alter database ${name} with allow_connections true`);
      }
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
    });
});

describe.each(kinds)('the OpenID Provider in maintenance on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { MAINTENANCE: 'true' }, { seed: false });
  });
  afterAll(async () => server?.stop());

  it('answers 503 temporarily_unavailable: a page to a browser, JSON to a client', async () => {
    const page = await server.app.inject({
      method: 'GET',
      url: '/oidc/auth?client_id=2',
      headers: { accept: 'text/html' },
    });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('temporarily_unavailable');
    const token = await server.app.inject({
      method: 'POST',
      url: '/oidc/token',
      payload: 'grant_type=refresh_token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.statusCode).toBe(503);
    expect(token.json()).toEqual({ error: 'temporarily_unavailable' });
  });
});
