// The OpenID Foundation's Basic and Config OP plans, as tests of an independent relying party
// (openid-client in this process) against the real server: each test is named after the plan's
// test module. Where a person is involved the browser walks the real sign-in and consent screens;
// where none is (discovery, refusals before any screen, tokens, userinfo) it is plain HTTP. One
// signed-in browser context serves the whole file, as the plan's own runs reuse the OP's session.
// docs/oidc-conformance.md lists every item, its test, and where our choices differ from the plan.
import { createPublicKey, verify } from 'node:crypto';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import * as oidc from 'openid-client';
import { rotateSigningKeys } from '../server/oidc/keys.ts';
import { DEMO_CLIENTS, DEMO_CLIENT_SECRET, DEMO_MFA_USERS, DEMO_PASSWORD } from '../server/seed/demo.ts';
import type { TestServer } from '../server/testing/harness.ts';
import { startSmtp } from '../server/testing/peers.ts';
import { ownPortal, type OwnPortal } from './ownPortal.ts';
import {
  addPasskey,
  countSuggestionRequests,
  presence,
  signInWithMailedCode,
  suggestionsWaiting,
  virtualAuthenticator,
} from './passkeyKit.ts';
import { ISSUER, relyingParty } from './relyingParty.ts';
import { signIn, user } from './support.ts';

test.use({ locale: 'en-GB' });
// One signed-in browser for the file: its tests run one after the other, in one worker.
test.describe.configure({ mode: 'serial' });

const CLIENT = 'deals-partner';
const REDIRECT = DEMO_CLIENTS.find((c) => c.client_id === CLIENT)!.redirect_uris[0]!;
const emma = user('cardholder');
const pieter = DEMO_MFA_USERS.find((u) => u.key === 'passkey')!;

type Tokens = oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
type Flow = { url: URL; state: string; verifier: string; nonce: string | undefined };

const discover = (issuer: string) =>
  oidc.discovery(new URL(issuer), CLIENT, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });

/** An authorization request as the plan's relying party makes it: PKCE S256 (which every client of
 * ours must send), a state, a nonce unless `nonce: null`, and the item's own parameters. */
async function request(
  config: oidc.Configuration,
  params: Record<string, string> = {},
  { nonce = oidc.randomNonce() as string | null } = {},
): Promise<Flow> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid',
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...(nonce ? { nonce } : {}),
    ...params,
  });
  return { url, state, verifier, nonce: nonce ?? undefined };
}

/** The relying party's redirect URI as the browser reaches it: each arrival resolves the waiting
 * flow. Seen as the browser's request, since a chain of server redirects ending there is not routed
 * (Playwright routes only a chain's first request); where a page of ours sends the browser, the
 * route answers with a page. */
async function serveCallback(page: Page): Promise<(state: string) => Promise<URL>> {
  let arrived: ((url: URL) => void) | null = null;
  let awaited: string | null = null;
  page.on('request', (request) => {
    if (!request.url().startsWith(`${REDIRECT}?`)) return;
    const url = new URL(request.url());
    // Only the awaited request's arrival: a late one of an earlier request (the browser retrying its
    // error page) is not this one's answer.
    if (url.searchParams.get('state') === awaited) arrived?.(url);
  });
  await page.route(`${new URL(REDIRECT).origin}/**`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html lang="en"><title>RP</title><h1>RP</h1></html>',
    }),
  );
  return (state) =>
    new Promise<URL>((resolve) => {
      awaited = state;
      arrived = resolve;
    });
}

/** Opens a request in the browser. The last one's arrival at the relying party (a name the browser
 * cannot resolve) may still be ending in the browser's error page, and that navigation can interrupt
 * this one: it is then opened again. */
async function open(page: Page, url: URL) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await page.goto(url.href);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('interrupted by another navigation')) throw error;
    }
  }
}

/** Sends the browser to the request and waits for its return; where the consent screen asks (new
 * scopes, prompt=consent), the person allows. */
async function walk(page: Page, next: (state: string) => Promise<URL>, flow: Flow): Promise<URL> {
  const callback = next(flow.state);
  // A redirect chain that ends at the relying party ends, for the browser, at a name it cannot resolve.
  await page.goto(flow.url.href).catch(() => undefined);
  return settle(page, callback);
}

async function settle(page: Page, callback: Promise<URL>): Promise<URL> {
  const allow = page.getByRole('button', { name: 'Allow' });
  const first = await Promise.race([callback, allow.waitFor().then(() => null)]);
  if (!first) await allow.click();
  const url = await callback;
  // The browser's last page, the relying party's or the error page of a name it cannot resolve,
  // has loaded before the next request starts.
  await expect.poll(() => page.url()).toMatch(new RegExp(`^(chrome-error:|${REDIRECT.replace(/[.?]/g, '\\$&')})`));
  return url;
}

const exchange = (config: oidc.Configuration, callback: URL, flow: Flow): Promise<Tokens> =>
  oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
    idTokenExpected: true,
  });

/** The plan's own check of an ID token's signature: the key of its `kid` in the jwks_uri, RS256. */
async function verifyIdToken(config: oidc.Configuration, idToken: string) {
  const [header, payload, signature] = idToken.split('.') as [string, string, string];
  const { alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg: string; kid: string };
  const jwks = (await (await fetch(config.serverMetadata().jwks_uri!)).json()) as { keys: Array<{ kid: string }> };
  const jwk = jwks.keys.find((key) => key.kid === kid);
  expect(jwk, `kid ${kid} in the jwks`).toBeDefined();
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    createPublicKey({ key: jwk!, format: 'jwk' }),
    Buffer.from(signature, 'base64url'),
  );
  return { alg, kid, ok };
}

/** A fresh authentication of the person signed in already (prompt=login, max_age): our step-up
 * screen, "Confirm it's you", with the password (the account has no second factor). */
async function reauthenticate(page: Page) {
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Foidc%2Finteraction%2F/);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
}

const userinfo = (config: oidc.Configuration, tokens: Tokens) =>
  oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);

let context: BrowserContext;
let page: Page;
let next: (state: string) => Promise<URL>;
let config: oidc.Configuration;
/** The sign-in's tokens, for the items that build on a signed-in session. */
let first: Tokens;

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  context = await browser.newContext({ locale: 'en-GB', baseURL: new URL(ISSUER).origin });
  page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  next = await serveCallback(page);
  config = await discover(ISSUER);
});
test.afterAll(async () => context?.close());

test('oidcc-server', async () => {
  const flow = await request(config);
  const callback = next(flow.state);
  await open(page, flow.url);
  await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
  await signIn(page, emma.email);
  const url = await settle(page, callback);
  expect(url.searchParams.get('iss')).toBe(ISSUER);
  first = await exchange(config, url, flow);
  const claims = first.claims()!;
  expect(claims).toMatchObject({ iss: ISSUER, aud: CLIENT, nonce: flow.nonce });
  expect(claims.sub).toBeTruthy();
  expect(claims.exp).toBeGreaterThan(claims.iat);
  expect(first.token_type.toLowerCase()).toBe('bearer');
});

test('oidcc-response-type-missing', async () => {
  const flow = await request(config);
  flow.url.searchParams.delete('response_type');
  const res = await fetch(flow.url, { redirect: 'manual' });
  // Back to the registered redirect URI with the error, as the plan allows.
  expect(res.status).toBe(303);
  const back = new URL(res.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.searchParams.get('error')).toBe('invalid_request');
  expect(back.searchParams.get('state')).toBe(flow.state);
});

test('oidcc-userinfo-get', async () => {
  const res = await fetch(config.serverMetadata().userinfo_endpoint!, {
    headers: { authorization: `Bearer ${first.access_token}` },
  });
  expect(res.status).toBe(200);
  expect((await res.json()).sub).toBe(first.claims()!.sub);
});

test('oidcc-userinfo-post-header', async () => {
  const res = await fetch(config.serverMetadata().userinfo_endpoint!, {
    method: 'POST',
    headers: { authorization: `Bearer ${first.access_token}` },
  });
  expect(res.status).toBe(200);
  expect((await res.json()).sub).toBe(first.claims()!.sub);
});

test('oidcc-userinfo-post-body', async () => {
  const res = await fetch(config.serverMetadata().userinfo_endpoint!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ access_token: first.access_token }),
  });
  expect(res.status).toBe(200);
  expect((await res.json()).sub).toBe(first.claims()!.sub);
});

test('oidcc-ensure-request-without-nonce-succeeds-for-code-flow', async () => {
  const flow = await request(config, {}, { nonce: null });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect(tokens.claims()!.nonce).toBeUndefined();
});

for (const [scope, claims] of [
  ['profile', ['given_name', 'family_name']],
  ['email', ['email']],
  ['phone', ['phone_number']],
] as const) {
  test(`oidcc-scope-${scope}`, async () => {
    const flow = await request(config, { scope: `openid ${scope}` });
    const tokens = await exchange(config, await walk(page, next, flow), flow);
    expect(tokens.scope?.split(' ')).toContain(scope);
    const info = await userinfo(config, tokens);
    for (const claim of claims) expect(info[claim], claim).toBeTruthy();
  });
}

test('oidcc-scope-address', async () => {
  // Not a scope of ours (we hold no postal address to give): ignored, not an error.
  const flow = await request(config, { scope: 'openid address' });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect(tokens.scope?.split(' ')).not.toContain('address');
  expect((await userinfo(config, tokens)).address).toBeUndefined();
});

test('oidcc-scope-all', async () => {
  const flow = await request(config, { scope: 'openid profile email phone address' });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  const info = await userinfo(config, tokens);
  expect(info).toMatchObject({ email: emma.email, given_name: expect.any(String), phone_number: expect.any(String) });
  expect(info.address).toBeUndefined();
});

test('oidcc-ensure-other-scope-order-succeeds', async () => {
  const flow = await request(config, { scope: 'email openid' });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect((await userinfo(config, tokens)).email).toBe(emma.email);
});

for (const display of ['page', 'popup']) {
  test(`oidcc-display-${display}`, async () => {
    const flow = await request(config, { display });
    expect((await exchange(config, await walk(page, next, flow), flow)).claims()!.sub).toBe(first.claims()!.sub);
  });
}

test('oidcc-prompt-login', async () => {
  const flow = await request(config, { prompt: 'login' });
  const callback = next(flow.state);
  await open(page, flow.url);
  // Signed in already, and asked to sign in again: the person proves it is them again, then back.
  await reauthenticate(page);
  const tokens = await exchange(config, await settle(page, callback), flow);
  expect(tokens.claims()!.auth_time).toBeGreaterThanOrEqual(first.claims()!.auth_time!);
  first = tokens;
});

test('oidcc-prompt-none-not-logged-in', async ({ browser }) => {
  const fresh = await browser.newContext({ locale: 'en-GB' });
  const other = await fresh.newPage();
  const arrival = await serveCallback(other);
  const flow = await request(config, { prompt: 'none' });
  const url = await walk(other, arrival, flow);
  expect(url.searchParams.get('error')).toBe('login_required');
  expect(url.searchParams.get('state')).toBe(flow.state);
  await fresh.close();
});

test('oidcc-prompt-none-logged-in', async () => {
  const flow = await request(config, { prompt: 'none' });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect(tokens.claims()!.sub).toBe(first.claims()!.sub);
});

test('oidcc-max-age-1', async () => {
  // max_age is seconds of the server's clock, which has no test control: a real wait of 1.5 s.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const flow = await request(config, { max_age: '1' });
  const callback = next(flow.state);
  await open(page, flow.url);
  await reauthenticate(page);
  const tokens = await exchange(config, await settle(page, callback), flow);
  expect(tokens.claims()!.auth_time).toBeGreaterThan(first.claims()!.auth_time!);
  first = tokens;
});

test('oidcc-max-age-10000', async () => {
  const flow = await request(config, { max_age: '10000' });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  // No new sign-in: the same authentication.
  expect(tokens.claims()!.auth_time).toBe(first.claims()!.auth_time);
});

test('oidcc-ensure-request-with-unknown-parameter-succeeds', async () => {
  const flow = await request(config, { extra: 'foobar' });
  expect((await exchange(config, await walk(page, next, flow), flow)).claims()!.sub).toBe(first.claims()!.sub);
});

test('oidcc-id-token-hint', async () => {
  const flow = await request(config, { prompt: 'none', id_token_hint: first.id_token! });
  expect((await exchange(config, await walk(page, next, flow), flow)).claims()!.sub).toBe(first.claims()!.sub);
});

test('oidcc-claims-locales', async () => {
  const flow = await request(config, { scope: 'openid profile', claims_locales: 'fr-BE nl-BE' });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect((await userinfo(config, tokens)).given_name).toBeTruthy();
});

test('oidcc-ensure-request-with-acr-values-succeeds', async () => {
  // The plan's values, which are not ours (pwd, mfa): a voluntary request, so not an error.
  const flow = await request(config, { acr_values: '1 2' });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect(['pwd', 'mfa']).toContain(tokens.claims()!.acr);
});

async function codeReuse(wait: number) {
  const flow = await request(config);
  const callback = await walk(page, next, flow);
  const tokens = await exchange(config, callback, flow);
  if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
  await expect(exchange(config, callback, flow)).rejects.toMatchObject({ error: 'invalid_grant' });
  // The reuse revokes what the code gave.
  const res = await fetch(config.serverMetadata().userinfo_endpoint!, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  expect(res.status).toBe(401);
}

test('oidcc-codereuse', async () => {
  await codeReuse(0);
});

test('oidcc-codereuse-30seconds', async () => {
  // The plan waits 30 s; the server has no clock control, and a spent code is a database row
  // (consumed_at), so time changes nothing: a real wait of 2 s.
  await codeReuse(2_000);
});

test('oidcc-ensure-registered-redirect-uri', async () => {
  const flow = await request(config, { redirect_uri: 'https://deals.partner.example/elsewhere' });
  const res = await fetch(flow.url, { redirect: 'manual' });
  // An error page of ours, never a redirect to an address the client did not register.
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  await open(page, flow.url);
  expect(page.url()).toContain('/oidc/auth');
});

test('oidcc-ensure-redirect-uri-in-authorization-request', async () => {
  const flow = await request(config);
  flow.url.searchParams.delete('redirect_uri');
  const res = await fetch(flow.url, { redirect: 'manual' });
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
});

const unsigned = (claims: Record<string, unknown>) =>
  `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;

test('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported', async () => {
  expect(config.serverMetadata().request_parameter_supported ?? false).toBe(false);
  const flow = await request(config);
  flow.url.searchParams.set(
    'request',
    unsigned({ client_id: CLIENT, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: flow.state }),
  );
  const res = await fetch(flow.url, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const back = new URL(res.headers.get('location')!);
  expect(back.searchParams.get('error')).toBe('request_not_supported');
  expect(back.searchParams.get('state')).toBe(flow.state);
});

test('oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported', async () => {
  expect(config.serverMetadata().request_uri_parameter_supported ?? false).toBe(false);
  const flow = await request(config);
  flow.url.searchParams.set('request_uri', 'https://deals.partner.example/request.jwt');
  const res = await fetch(flow.url, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const back = new URL(res.headers.get('location')!);
  expect(back.searchParams.get('error')).toBe('request_uri_not_supported');
});

test('oidcc-claims-essential', async () => {
  // The claims parameter is not supported (claims_parameter_supported is false): it is ignored.
  expect(config.serverMetadata().claims_parameter_supported ?? false).toBe(false);
  const flow = await request(config, { claims: JSON.stringify({ userinfo: { name: { essential: true } } }) });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect((await userinfo(config, tokens)).sub).toBe(first.claims()!.sub);
});

test('oidcc-refresh-token', async () => {
  // offline_access is honoured with prompt=consent, as OIDC Core says and the plan asks.
  const flow = await request(config, { scope: 'openid offline_access', prompt: 'consent' });
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect(tokens.refresh_token).toBeTruthy();
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  expect(refreshed.access_token).not.toBe(tokens.access_token);
  expect(refreshed.claims()).toMatchObject({
    iss: ISSUER,
    sub: tokens.claims()!.sub,
    aud: CLIENT,
  });
  expect((await userinfo(config, refreshed)).sub).toBe(tokens.claims()!.sub);
  // Ours: each use rotates the refresh token. The spent one presented again within a minute, while
  // its successor is unused, gets the same answer (a retry whose answer was lost:
  // docs/decisions/refresh-token-repeat.md); once the successor is used, it is refused.
  const repeated = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  expect(repeated.refresh_token).toBe(refreshed.refresh_token);
  await oidc.refreshTokenGrant(config, refreshed.refresh_token!);
  await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
});

test('oidcc-ensure-request-with-valid-pkce-succeeds', async () => {
  const flow = await request(config);
  const callback = await walk(page, next, flow);
  // A wrong verifier is refused; the right one succeeds.
  await expect(
    oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    }),
  ).rejects.toMatchObject({ error: 'invalid_grant' });
  const again = await request(config);
  expect((await exchange(config, await walk(page, next, again), again)).claims()!.sub).toBe(first.claims()!.sub);
  // Ours: PKCE is required of every client; a request without it goes back with invalid_request.
  const without = await request(config);
  without.url.searchParams.delete('code_challenge');
  without.url.searchParams.delete('code_challenge_method');
  const res = await fetch(without.url, { redirect: 'manual' });
  expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
});

test('oidcc-discovery-endpoint-verification', async () => {
  const res = await fetch(`${ISSUER}/.well-known/openid-configuration`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const meta = await res.json();
  expect(meta.issuer).toBe(ISSUER);
  for (const endpoint of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri'])
    expect(meta[endpoint], endpoint).toMatch(new RegExp(`^${ISSUER}/`));
  expect(meta.response_types_supported).toContain('code');
  expect(meta.subject_types_supported).toContain('public');
  expect(meta.id_token_signing_alg_values_supported).toContain('RS256');
  expect(meta.scopes_supported).toContain('openid');
  expect(meta.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'given_name', 'phone_number']));
  expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  expect(meta.code_challenge_methods_supported).toEqual(['S256']);
  const jwks = await (await fetch(meta.jwks_uri)).json();
  expect(jwks.keys.length).toBeGreaterThan(0);
  for (const key of jwks.keys) expect(key.d, 'no private part').toBeUndefined();
});

test('oidcc-idtoken-rs256', async () => {
  const { alg, ok } = await verifyIdToken(config, first.id_token!);
  expect(alg).toBe('RS256');
  expect(ok).toBe(true);
});

test('oidcc-idtoken-signature', async () => {
  const flow = await request(config);
  const tokens = await exchange(config, await walk(page, next, flow), flow);
  expect((await verifyIdToken(config, tokens.id_token!)).ok).toBe(true);
  // A changed payload no longer verifies.
  const [h, p, s] = tokens.id_token!.split('.');
  const tampered = Buffer.from(JSON.stringify({ ...tokens.claims(), sub: 'someone-else' })).toString('base64url');
  expect(p).not.toBe(tampered);
  expect((await verifyIdToken(config, `${h}.${tampered}.${s}`)).ok).toBe(false);
});

test.describe('with a server of its own, whose keys the test rotates', () => {
  let portal: OwnPortal;
  let server: TestServer;
  let base: string;

  test.beforeAll(async () => {
    portal = await ownPortal('conformance');
    ({ server, base } = portal);
  });
  test.afterAll(async () => portal?.stop());

  test('oidcc-server-rotate-keys', async ({ browser }) => {
    const own = await browser.newContext({ locale: 'en-GB', baseURL: base });
    const tab = await own.newPage();
    const arrival = await serveCallback(tab);
    const ownConfig = await discover(`${base}/oidc`);
    const before = await request(ownConfig);
    const callback = arrival(before.state);
    await tab.goto(before.url.href);
    await signIn(tab, emma.email, DEMO_PASSWORD);
    const old = await exchange(ownConfig, await settle(tab, callback), before);
    const oldKey = await verifyIdToken(ownConfig, old.id_token!);

    await rotateSigningKeys(server.ctx.db, server.ctx.config.secretKey);
    expect(await server.oidc.refreshKeys()).toBe(true);

    const after = await request(ownConfig);
    const fresh = await exchange(ownConfig, await walk(tab, arrival, after), after);
    const newKey = await verifyIdToken(ownConfig, fresh.id_token!);
    expect(newKey).toMatchObject({ alg: 'RS256', ok: true });
    expect(newKey.kid).not.toBe(oldKey.kid);
    // The retired key is still published: what it signed still verifies.
    expect((await verifyIdToken(ownConfig, old.id_token!)).ok).toBe(true);
    await own.close();
  });
});

test.describe('with a server of its own, where Pieter signs in with a passkey alone', () => {
  let portal: OwnPortal;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let base: string;

  test.beforeAll(async () => {
    smtp = await startSmtp();
    portal = await ownPortal('conformance-passkey', { SMTP_URL: smtp.url });
    ({ base } = portal);
  });
  test.afterAll(async () => {
    await portal?.stop();
    await smtp?.stop();
  });

  test('a sign-in by passkey gives an ID token of both factors, the passkey named in its amr', async ({ browser }) => {
    test.setTimeout(180_000);
    const own = await browser.newContext({ locale: 'en-GB' });
    const tab = await own.newPage();
    await countSuggestionRequests(tab);
    const authenticator = await virtualAuthenticator(tab);
    await signInWithMailedCode(tab, base, pieter.email, 'Pieter', smtp.mails);
    await addPasskey(tab, authenticator, 'Laptop');
    await tab.getByRole('link', { name: 'Log out' }).first().click();
    await expect(tab).toHaveURL(/\/login\/email$/);

    const arrival = await serveCallback(tab);
    const ownConfig = await discover(`${base}/oidc`);
    const flow = await request(ownConfig);
    const callback = arrival(flow.state);
    await tab.goto(flow.url.href);
    await expect(tab).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
    await suggestionsWaiting(tab);
    await presence(authenticator, true);
    await tab.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const claims = (await exchange(ownConfig, await settle(tab, callback), flow)).claims()!;
    expect(claims.acr).toBe('mfa');
    expect(claims.amr).toEqual(expect.arrayContaining(['user', 'mfa']));
    expect(claims.amr).not.toContain('pwd');
    expect((claims.amr as string[]).filter((amr) => amr === 'hwk' || amr === 'swk')).toHaveLength(1);
    await own.close();
  });
});

// The items that need a request's own shape (a form POST, a client's own authentication, the hints):
// each its own relying party and browser page, apart from the shared signed-in session above.
const redirectOf = (clientId: string) =>
  DEMO_CLIENTS.find((c) => c.client_id === clientId)!.redirect_uris.find((u) => !u.includes('tessera.example'))!;
const employeeArea = { clientId: '17', redirectUri: redirectOf('17'), name: 'Employee area' };
const partner = { clientId: 'deals-partner', redirectUri: redirectOf('deals-partner'), name: 'Deals partner' };

test('oidcc-ensure-post-request-succeeds', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const emma = user('cardholder');
  const rp = await relyingParty(page, { ...employeeArea, scope: 'openid profile', post: true });
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/oidc/auth') posts.push(request.url());
  });
  await page.goto(rp.home);
  // The relying party's form posts the request to the authorization endpoint.
  await page.getByRole('button', { name: 'Sign in with Tessera' }).click();
  await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
  expect(posts).toHaveLength(1);
  await signIn(page, emma.email);
  const callback = await rp.callback;
  expect(callback.searchParams.get('iss')).toBe(rp.config.serverMetadata().issuer);
  const tokens = await rp.exchange(callback);
  expect(tokens.claims()).toMatchObject({ aud: '17' });
});

test('oidcc-server-client-secret-post', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const rp = await relyingParty(page, {
    clientId: 'deals-server',
    redirectUri: redirectOf('deals-server'),
    name: 'Deals partner server',
    scope: 'openid balance',
    auth: oidc.ClientSecretPost(DEMO_CLIENT_SECRET),
  });
  // Discovery advertises exactly the methods a client can be registered with.
  expect(rp.config.serverMetadata().token_endpoint_auth_methods_supported).toEqual([
    'none',
    'client_secret_basic',
    'client_secret_post',
    'private_key_jwt',
  ]);
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await signIn(page, user('cardholder').email);
  await page.getByRole('button', { name: 'Allow' }).click();
  // The token request carries the secret in its form body, and no Authorization header.
  const tokens = await rp.exchange(await rp.callback);
  expect(tokens.claims()).toMatchObject({ aud: 'deals-server' });
  expect(tokens.access_token).toBeTruthy();
});

test('oidcc-login-hint', async ({ page, browser }) => {
  // Two sign-ins.
  test.slow();
  await page.setViewportSize({ width: 375, height: 800 });
  const emma = user('cardholder');
  const rp = await relyingParty(page, { ...employeeArea, scope: 'openid', params: { login_hint: emma.email } });
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(page).toHaveURL(/\/login\/email\?redirect=/);
  await expect(page.getByLabel('Email address')).toHaveValue(emma.email);
  await page.screenshot({ path: 'test-reports/screens/login-hint-email-375.png', fullPage: true });
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const tokens = await rp.exchange(await rp.callback);
  expect(tokens.claims()).toMatchObject({ aud: '17' });

  // A phone number: the phone tab, filled in.
  const other = await (await browser.newContext({ locale: 'en-GB' })).newPage();
  await other.setViewportSize({ width: 375, height: 800 });
  const byPhone = await relyingParty(other, { ...employeeArea, scope: 'openid', params: { login_hint: emma.phone! } });
  await other.goto(byPhone.home);
  await other.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(other).toHaveURL(/\/login\/phone\?redirect=/);
  await expect(other.getByLabel('Phone number')).toHaveValue(emma.phone!);
  await other.screenshot({ path: 'test-reports/screens/login-hint-phone-375.png', fullPage: true });
  await other.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await other.getByRole('button', { name: 'Sign in', exact: true }).click();
  expect((await byPhone.exchange(await byPhone.callback)).claims()).toMatchObject({ aud: '17' });
});

test('oidcc-ui-locales', async ({ page, browser }) => {
  // Two sign-ins.
  test.slow();
  await page.setViewportSize({ width: 375, height: 800 });
  const emma = user('cardholder');
  // German is not offered on the Belgian host: the first language it offers, French, is used.
  const params = { ui_locales: 'de fr-BE nl' };
  const rp = await relyingParty(page, { ...partner, scope: 'openid balance', params });
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(page).toHaveURL(/\/login\/email\?redirect=/);
  await expect(page.getByTestId('signing-in-to')).toHaveText('Connectez-vous pour continuer vers Partenaire avantages');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await page.screenshot({ path: 'test-reports/screens/ui-locales-sign-in-375.png', fullPage: true });
  await page.getByLabel('Adresse e-mail').fill(emma.email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  // The consent of the same request speaks French too.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(
    'Partenaire avantages souhaite utiliser votre compte Tessera',
  );
  await page.screenshot({ path: 'test-reports/screens/ui-locales-consent-375.png', fullPage: true });
  await page.getByRole('button', { name: 'Autoriser' }).click();
  expect((await rp.exchange(await rp.callback)).claims()).toMatchObject({ aud: 'deals-partner' });

  // The person can still choose their own language, and the request's screens then keep it.
  const other = await (await browser.newContext({ locale: 'en-GB' })).newPage();
  await other.setViewportSize({ width: 375, height: 800 });
  const again = await relyingParty(other, { ...partner, scope: 'openid balance', params });
  await other.goto(again.home);
  await other.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(other.getByTestId('signing-in-to')).toHaveText(
    'Connectez-vous pour continuer vers Partenaire avantages',
  );
  await other.getByRole('combobox', { name: 'Langue' }).selectOption('nl');
  await expect(other.getByTestId('signing-in-to')).toContainText('Meld je aan om verder te gaan naar');
  await expect(other.locator('html')).toHaveAttribute('lang', 'nl');
  await other.getByLabel('E-mailadres').fill(emma.email);
  await other.getByLabel('Wachtwoord', { exact: true }).fill(DEMO_PASSWORD);
  await other.getByRole('button', { name: 'Inloggen', exact: true }).click();
  // The consent, in the language the person chose (over the request's).
  await expect(other.getByRole('heading', { level: 1 })).toHaveText(
    'Voordelenpartner wil je Tessera-account gebruiken',
  );
  await other.getByRole('button', { name: 'Toestaan' }).click();
  expect((await again.exchange(await again.callback)).claims()).toMatchObject({ aud: 'deals-partner' });
});
