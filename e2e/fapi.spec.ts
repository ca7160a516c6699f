// A FAPI 2.0 client end to end in the browser: an independent relying party (openid-client in this
// process) with its own ES256 key pushes its request (PAR), Chromium walks the real sign-in and
// consent screens, the relying party exchanges the code by private_key_jwt and DPoP, refreshes
// without rotation, and signs the person out (RP-initiated logout). A server of its own, so the
// client exists only here and the shared server's demo data is untouched.
// server/oidc/fapi.test.ts covers the same rules over plain HTTP; docs/operations/fapi.md.
import { expect, test, type Browser, type Page } from '@playwright/test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import * as oidc from 'openid-client';
import { addClient } from '../server/oidc/registry.ts';
import type { TestServer } from '../server/testing/harness.ts';
import { ownPortal, type OwnPortal } from './ownPortal.ts';
// For its side effect too: Node resolves *.localhost to the loopback address, as the browser does.
import './relyingParty.ts';
import { expectNoAxeViolations, signIn, user } from './support.ts';

test.use({ locale: 'en-GB' });
// One server and one client for the file.
test.describe.configure({ mode: 'serial' });

const CLIENT = 'fapi-bank';
const RP = 'https://bank.example';
const REDIRECT = `${RP}/callback`;
const SIGNED_OUT = `${RP}/signed-out`;
const emma = user('cardholder');

let portal: OwnPortal;
let server: TestServer;
let base: string;
let issuer: string;
let config: oidc.Configuration;

test.beforeAll(async () => {
  portal = await ownPortal('fapi');
  ({ server, base } = portal);
  issuer = `${base}/oidc`;
  const keys = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(keys.publicKey)), alg: 'ES256', use: 'sig', kid: 'bank-key-1' };
  await addClient(server.ctx.db, CLIENT, {
    name: 'FAPI bank',
    redirect_uris: [REDIRECT],
    post_logout_redirect_uris: [SIGNED_OUT],
    // A partner: the person is asked before it sees the balance.
    first_party: false,
    scopes: ['balance'],
    profile: 'fapi2',
    jwks: { keys: [jwk] },
  });
  config = await oidc.discovery(
    new URL(issuer),
    CLIENT,
    undefined,
    oidc.PrivateKeyJwt({ key: keys.privateKey, kid: 'bank-key-1' }),
    { execute: [oidc.allowInsecureRequests] },
  );
});
test.afterAll(async () => {
  await portal?.stop();
});

/** The relying party's addresses as the browser reaches them: `arrival(prefix)` resolves with the
 * next request to start with `prefix`. Seen as the browser's request, since a chain of server
 * redirects ending there is not routed (Playwright routes only a chain's first request); where the
 * browser goes there directly, the route answers with a page. */
async function relyingPartyPages(page: Page): Promise<(prefix: string) => Promise<URL>> {
  const waiting: Array<{ prefix: string; resolve: (url: URL) => void }> = [];
  page.on('request', (request) => {
    const at = waiting.findIndex((w) => request.url().startsWith(w.prefix));
    if (at >= 0) waiting.splice(at, 1)[0]!.resolve(new URL(request.url()));
  });
  await page.route(`${RP}/**`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html lang="en"><title>FAPI bank</title><main><h1>FAPI bank</h1></main></html>',
    }),
  );
  return (prefix) => new Promise<URL>((resolve) => waiting.push({ prefix, resolve }));
}

/** A fresh browser on the test's server, at a width. */
async function browserAt(browser: Browser, width: number) {
  const context = await browser.newContext({ locale: 'en-GB', baseURL: base });
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 800 });
  return { context, page, arrival: await relyingPartyPages(page) };
}

/** The browser's last page, the relying party's or the error page it ends on after a chain of
 * redirects there, has loaded before the next navigation starts. */
const settled = (page: Page) =>
  expect.poll(() => page.url()).toMatch(new RegExp(`^(chrome-error:|${RP.replace(/\./g, '\\.')}/)`));

const userinfoWith = (accessToken: string, scheme: string) =>
  fetch(config.serverMetadata().userinfo_endpoint!, { headers: { authorization: `${scheme} ${accessToken}` } });

for (const width of [375, 1280]) {
  test(`a FAPI 2.0 client signs Emma in through a pushed request, binds its tokens by DPoP, refreshes without rotation and signs her out (${width} px)`, async ({
    browser,
  }) => {
    // A whole journey: sign-in, consent, tokens, refreshes, sign-out.
    test.slow();
    const { context, page, arrival } = await browserAt(browser, width);
    const dpopKeys = await oidc.randomDPoPKeyPair('ES256');
    const dpop = oidc.getDPoPHandle(config, dpopKeys);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithPAR(
      config,
      {
        redirect_uri: REDIRECT,
        scope: 'openid balance offline_access',
        prompt: 'consent',
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      },
      { DPoP: dpop },
    );
    // Pushed: the browser carries only the client and the request's reference.
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);

    const back = arrival(`${REDIRECT}?`);
    await page.goto(url.href);
    await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
    await expect(page.getByTestId('signing-in-to')).toHaveText('Sign in to continue to FAPI bank');
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/fapi-sign-in-${width}.png`, fullPage: true });
    await signIn(page, emma.email);

    // offline_access with prompt=consent: the consent screen asks.
    await expect(page).toHaveURL(/\/approve\?uid=/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(
      'FAPI bank would like to use your Tessera account',
    );
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/fapi-consent-${width}.png`, fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();
    const callback = await back;
    await settled(page);
    // The profile's `iss` in the authorization response.
    expect(callback.searchParams.get('iss')).toBe(issuer);

    const tokens = await oidc.authorizationCodeGrant(
      config,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
      undefined,
      { DPoP: dpop },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: issuer, aud: CLIENT, nonce });
    expect(['pwd', 'mfa']).toContain(claims.acr);
    expect(claims.amr).toEqual(expect.arrayContaining([expect.any(String)]));

    // Bound to the relying party's DPoP key: introspection names its thumbprint, and userinfo
    // answers only with a proof of that key.
    const introspection = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(introspection).toMatchObject({ active: true, client_id: CLIENT, token_type: 'DPoP' });
    expect(introspection.cnf?.jkt).toBe(await calculateJwkThumbprint(await exportJWK(dpopKeys.publicKey)));
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub, { DPoP: dpop });
    expect(info.sub).toBe(claims.sub);
    const withoutProof = await userinfoWith(tokens.access_token, 'DPoP');
    expect([withoutProof.status, (await withoutProof.json()).error]).toEqual([400, 'invalid_request']);
    const asBearer = await userinfoWith(tokens.access_token, 'Bearer');
    expect([asBearer.status, (await asBearer.json()).error]).toEqual([401, 'invalid_token']);

    // Refresh by DPoP, and the refresh token is not rotated: the same one works again.
    const refreshToken = tokens.refresh_token!;
    expect(refreshToken).toBeTruthy();
    const refreshed = await oidc.refreshTokenGrant(config, refreshToken, undefined, { DPoP: dpop });
    expect(refreshed.token_type.toLowerCase()).toBe('dpop');
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token ?? refreshToken).toBe(refreshToken);
    const again = await oidc.refreshTokenGrant(config, refreshToken, undefined, { DPoP: dpop });
    expect(again.token_type.toLowerCase()).toBe('dpop');
    expect((await oidc.fetchUserInfo(config, again.access_token, claims.sub, { DPoP: dpop })).sub).toBe(claims.sub);

    // The relying party's sign-out: our screen asks, "yes" ends the Tessera session, and the browser
    // returns to the registered post-logout address with the relying party's state.
    const logoutState = oidc.randomState();
    const signedOut = arrival(`${SIGNED_OUT}?`);
    await page.goto(
      oidc.buildEndSessionUrl(config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: SIGNED_OUT,
        state: logoutState,
      }).href,
    );
    await expect(page).toHaveURL(/\/logout\/confirm\?ref=[\w-]{43}$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign out of FAPI bank');
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/fapi-logout-confirm-${width}.png`, fullPage: true });
    await page.getByRole('button', { name: 'Yes, sign me out of Tessera' }).click();
    expect((await signedOut).searchParams.get('state')).toBe(logoutState);
    await settled(page);
    await page.goto('/user/dashboard');
    await expect(page).toHaveURL(/\/login\/email/);
    await context.close();
  });
}

test('a request the profile forbids never reaches the sign-in: one not pushed goes back to the client with its error, one of an unknown pushed request shows our error page', async ({
  browser,
}) => {
  const { context, page, arrival } = await browserAt(browser, 375);
  const screens: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(`${base}/login`) || request.url().startsWith(`${base}/oidc/interaction`))
      screens.push(request.url());
  });

  // Not pushed: the client and its redirect URI are valid, so the refusal goes back to the client,
  // with the profile's `iss`.
  const state = oidc.randomState();
  const direct = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid balance',
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const back = arrival(`${REDIRECT}?`);
  // A redirect chain that ends at the relying party ends, for the browser, at a name it cannot resolve.
  await page.goto(direct.href).catch(() => undefined);
  const refused = await back;
  expect(Object.fromEntries(refused.searchParams)).toEqual({
    error: 'invalid_request',
    error_description: 'Pushed Authorization Request must be used',
    state,
    iss: issuer,
  });
  await settled(page);

  // A pushed request the server does not hold: no redirect URI is known to send the browser back
  // to, so our error page.
  const unknown = new URL(config.serverMetadata().authorization_endpoint!);
  unknown.search = new URLSearchParams({
    client_id: CLIENT,
    request_uri: 'urn:ietf:params:oauth:request_uri:made-up',
  }).toString();
  await page.goto(unknown.href);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('The sign-in request is invalid.');
  await expect(page.locator('main code')).toHaveText('invalid_request_uri');
  await expect(page.getByRole('link', { name: 'Go to Tessera' })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe('/oidc/auth');
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-reports/screens/fapi-unknown-request-375.png', fullPage: true });
  expect(screens).toEqual([]);
  await context.close();
});
