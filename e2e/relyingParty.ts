// A relying party for the browser tests: openid-client in the test process, its pages served to
// the browser by interception at its registered redirect URI's origin. The browser walks the real
// authorisation server; the code comes back to the relying party, which exchanges it itself.
import dns from 'node:dns';
import { expect, type Page } from '@playwright/test';
import * as oidc from 'openid-client';
import { E2E_PORT } from '../playwright.config.ts';
import { DEMO_CLIENTS } from '../server/seed/demo.ts';
import { signIn, user } from './support.ts';

// Browsers resolve every *.localhost name to the loopback address (RFC 6761); Node asks the system
// resolver, which does not. The relying party reaches the portal's host as the browser does.
const systemLookup = dns.lookup;
(dns as { lookup: unknown }).lookup = ((hostname: string, ...rest: unknown[]) =>
  (systemLookup as (...args: unknown[]) => void)(
    hostname.endsWith('.localhost') ? '127.0.0.1' : hostname,
    ...rest,
  )) as typeof dns.lookup;

export const ISSUER = `http://account.localhost:${E2E_PORT}/oidc`;

export type RelyingParty = {
  /** The relying party's home page, with its "Sign in with Tessera" link (or form). */
  home: string;
  /** Resolves with the URL the authorisation server sent the browser back to. */
  callback: Promise<URL>;
  /** Resolves with the URL a logout it started returned to (its post-logout redirect URI). */
  signedOut: Promise<URL>;
  /** Exchanges the code of that callback, checking state and PKCE. */
  exchange(callback: URL): Promise<oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers>;
  config: oidc.Configuration;
};

export type RelyingPartyOptions = {
  clientId: string;
  redirectUri: string;
  scope: string;
  name: string;
  /** More authorization parameters (prompt, max_age, acr_values, login_hint, ui_locales). */
  params?: Record<string, string>;
  /** Its home page signs in with a form POST to the authorization endpoint, not a link. */
  post?: boolean;
  /** Where a logout it starts returns to: its page there says it is signed out. */
  postLogoutRedirectUri?: string;
  /** How it authenticates at the token endpoint (default: none, a public client). */
  auth?: oidc.ClientAuth;
};

export async function relyingParty(page: Page, options: RelyingPartyOptions): Promise<RelyingParty> {
  const config = await oidc.discovery(new URL(ISSUER), options.clientId, undefined, options.auth ?? oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const authorization = oidc.buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri,
    scope: options.scope,
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...options.params,
  });
  const redirect = new URL(options.redirectUri);
  const home = `${redirect.origin}/`;
  let arrived: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => {
    arrived = resolve;
  });
  let left: (url: URL) => void;
  const signedOut = new Promise<URL>((resolve) => {
    left = resolve;
  });
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const signIn = options.post
    ? `<form method="post" action="${escape(`${authorization.origin}${authorization.pathname}`)}">${[
        ...authorization.searchParams,
      ]
        .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
        .join('')}<button type="submit">Sign in with Tessera</button></form>`
    : `<a href="${escape(authorization.href)}">Sign in with Tessera</a>`;
  const logoutPath = options.postLogoutRedirectUri ? new URL(options.postLogoutRedirectUri).pathname : null;
  await page.route(`${redirect.origin}/**`, async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === redirect.pathname) {
      arrived(url);
      const outcome = url.searchParams.get('error') ?? 'signed in';
      return route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><title>${options.name}</title><main><h1>${options.name}: ${outcome}</h1></main></html>`,
      });
    }
    if (url.pathname === logoutPath) {
      left(url);
      return route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><title>${options.name}</title><main><h1>${options.name}: signed out</h1></main></html>`,
      });
    }
    return route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html lang="en"><title>${options.name}</title><main><h1>${options.name}</h1>${signIn}</main></html>`,
    });
  });
  return {
    home,
    callback,
    signedOut,
    config,
    exchange: (url) => oidc.authorizationCodeGrant(config, url, { pkceCodeVerifier: verifier, expectedState: state }),
  };
}

/** The demo partner's relying party, as most tests ask for it (its own redirect URI and name). */
export const dealsPartner = (page: Page, options: Partial<RelyingPartyOptions> = {}) =>
  relyingParty(page, {
    clientId: 'deals-partner',
    redirectUri: DEMO_CLIENTS.find((c) => c.client_id === 'deals-partner')!.redirect_uris[0]!,
    scope: 'openid balance',
    name: 'Deals partner',
    ...options,
  });

/** From the relying party's page to Tessera's sign-in for its request. */
export async function toSignIn(page: Page, rp: Pick<RelyingParty, 'home'>) {
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
}

/** Signs Emma in to the demo partner through its relying party (consenting when asked: an earlier
 * test's consent may still stand); gives its ID token and configuration, for its sign-out. */
export async function signedInToPartner(page: Page): Promise<{ idToken: string; config: oidc.Configuration }> {
  const rp = await dealsPartner(page);
  await toSignIn(page, rp);
  await signIn(page, user('cardholder').email);
  const arrived = await Promise.race([
    rp.callback.then(() => 'back' as const),
    page.waitForURL(/\/approve\?uid=/).then(() => 'asked' as const),
  ]);
  if (arrived === 'asked') await page.getByRole('button', { name: 'Allow' }).click();
  const tokens = await rp.exchange(await rp.callback);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Deals partner: signed in');
  return { idToken: tokens.id_token!, config: rp.config };
}
