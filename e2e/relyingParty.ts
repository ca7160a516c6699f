// A relying party for the browser tests: openid-client in the test process, its pages served to
// the browser by interception at its registered redirect URI's origin. The browser walks the real
// authorisation server; the code comes back to the relying party, which exchanges it itself.
import dns from 'node:dns';
import type { Page } from '@playwright/test';
import * as oidc from 'openid-client';
import { E2E_PORT } from '../playwright.config.ts';

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
  /** The relying party's home page, with its "Sign in with Tessera" link. */
  home: string;
  /** Resolves with the URL the authorisation server sent the browser back to. */
  callback: Promise<URL>;
  /** Exchanges the code of that callback, checking state and PKCE. */
  exchange(callback: URL): Promise<oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers>;
  config: oidc.Configuration;
};

export async function relyingParty(
  page: Page,
  options: {
    clientId: string;
    redirectUri: string;
    scope: string;
    name: string;
    /** More authorization parameters (prompt, max_age, acr_values). */
    params?: Record<string, string>;
  },
): Promise<RelyingParty> {
  const config = await oidc.discovery(new URL(ISSUER), options.clientId, undefined, oidc.None(), {
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
    return route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><html lang="en"><title>${options.name}</title><main><h1>${options.name}</h1><a href="${authorization.href.replace(/&/g, '&amp;')}">Sign in with Tessera</a></main></html>`,
    });
  });
  return {
    home,
    callback,
    config,
    exchange: (url) => oidc.authorizationCodeGrant(config, url, { pkceCodeVerifier: verifier, expectedState: state }),
  };
}
