// What the OIDC tests do as a browser and as a person signing in, over real HTTP against a test
// server listening at `base`.
import * as oidc from 'openid-client';
import { expect } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { DEVICE } from './harness.ts';

/** A browser's cookies, by name (`name=value` each). */
export type Jar = Map<string, string>;
export const jarOf = (cookies: string[]): Jar => new Map(cookies.map((c) => [c.split('=')[0]!, c]));

/** Signs an account in through the API: its `tessera_token=…` cookie. */
export async function signInCookie(base: string, email: string): Promise<string> {
  const res = await fetch(`${base}/api/token`, {
    method: 'POST',
    headers: { ...DEVICE, 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password: DEMO_PASSWORD }),
  });
  expect(res.status).toBe(200);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith('tessera_token='))!
    .split(';')[0]!;
}

/** Follows the provider's redirects as a browser would (keeping its cookies in the jar), up to the
 * first one that leaves the provider; gives that response. */
export async function browse(base: string, url: string, cookies: string[] | Jar): Promise<Response> {
  const jar = Array.isArray(cookies) ? jarOf(cookies) : cookies;
  let next = url;
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(next, { redirect: 'manual', headers: { cookie: [...jar.values()].join('; ') } });
    for (const set of res.headers.getSetCookie()) {
      const pair = set.split(';')[0]!;
      jar.set(pair.split('=')[0]!, pair);
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return res;
    const target = new URL(location, next);
    if (target.origin !== base || !target.pathname.startsWith('/oidc')) return res;
    next = target.href;
  }
  throw new Error('too many redirects');
}

/** The endpoints the discovery document names under the issuer, whatever the provider turns on. */
export const ISSUER_ENDPOINTS = [
  'authorization_endpoint',
  'token_endpoint',
  'userinfo_endpoint',
  'jwks_uri',
  'revocation_endpoint',
  'introspection_endpoint',
  'end_session_endpoint',
] as const;

/** The start of a code flow with PKCE: the authorisation URL for `config`'s client, and what its
 * exchange needs (the verifier and the state). `params` add to the code flow's own. */
export async function codeFlowStart(
  config: oidc.Configuration,
  params: Record<string, string>,
): Promise<{ url: string; verifier: string; state: string }> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    response_type: 'code',
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  });
  return { url: url.href, verifier, state };
}
