// An RP-initiated logout that returns to the client's registered post-logout redirect URI (and to
// nothing else), and the form POSTs the authorization and end-session endpoints take: a 303 to the
// same endpoint with the parameters in the query, refused with invalid_request past 8 KB. Over real
// HTTP, with openid-client as the relying party.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../seed/demo.ts';
import { DEVICE, databaseKinds, startListeningTestServer, type TestServer } from '../testing/harness.ts';
import { browse as browseAs, jarOf, signInCookie, type Jar } from '../testing/oidcKit.ts';
import { registerClient } from './clients.ts';
import { MAX_POSTED_URL } from './routes.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const CLIENT_ID = 'returning-app';
const REDIRECT_URI = 'http://localhost:8081/callback';
const SIGNED_OUT = 'http://localhost:8081/signed-out';

const form = (params: Record<string, string>, jar?: Jar): RequestInit => ({
  method: 'POST',
  redirect: 'manual',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'text/html',
    ...(jar ? { cookie: [...jar.values()].join('; ') } : {}),
  },
  body: new URLSearchParams(params),
});

describe.each(kinds)('logout that returns, and form POSTs, on %s', (kind) => {
  let server: TestServer;
  let base: string;
  let issuer: string;
  let config: oidc.Configuration;

  beforeAll(async () => {
    const listening = await startListeningTestServer(kind);
    server = listening;
    base = listening.base;
    issuer = `${base}/oidc`;
    await registerClient(server.ctx.db, {
      client_id: CLIENT_ID,
      name: 'Returning app',
      first_party: true,
      redirect_uris: [REDIRECT_URI],
      post_logout_redirect_uris: [SIGNED_OUT],
    });
    config = await oidc.discovery(new URL(issuer), CLIENT_ID, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
  });
  afterAll(async () => server?.stop());

  const browse = (url: string, cookies: string[] | Jar) => browseAs(base, url, cookies);

  /** The parameters of a code + PKCE request, and its verifier. */
  async function codeRequest() {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const params = {
      client_id: CLIENT_ID,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    return { params, verifier, state };
  }

  /** Emma signed in to the client in a browser (the jar): its ID token. */
  async function signedIn(jar: Jar): Promise<string> {
    const { params, verifier, state } = await codeRequest();
    const res = await browse(`${issuer}/auth?${new URLSearchParams(params)}`, jar);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    return tokens.id_token!;
  }

  /** Confirms the logout our confirmation screen asks about, as its form does: the end-session
   * endpoint sent the browser there with a reference, which reads the provider's form to post. */
  async function confirm(page: Response, jar: Jar): Promise<Response> {
    expect(page.status).toBe(303);
    const ref = new URL(page.headers.get('location')!, base).searchParams.get('ref')!;
    const read = await fetch(`${base}/api/logout-requests/${ref}`, { headers: DEVICE });
    const { action, xsrf } = (await read.json()) as { action: string; xsrf: string };
    return fetch(new URL(action, base).href, form({ xsrf, logout: 'yes' }, jar));
  }

  it("ends an RP-initiated logout at the client's registered post-logout redirect URI, with its state", async () => {
    const jar = jarOf([await signInCookie(base, emma.email)]);
    const idToken = await signedIn(jar);
    const page = await browse(
      oidc.buildEndSessionUrl(config, {
        id_token_hint: idToken,
        post_logout_redirect_uri: SIGNED_OUT,
        state: 'see-you',
      }).href,
      jar,
    );
    const done = await confirm(page, jar);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${SIGNED_OUT}?state=see-you`);
  });

  it('refuses a post-logout redirect URI the client did not register, and leads nowhere', async () => {
    const jar = jarOf([await signInCookie(base, emma.email)]);
    const idToken = await signedIn(jar);
    for (const uri of ['https://evil.example/', `${SIGNED_OUT}/more`, `${SIGNED_OUT}?x=1`]) {
      // As a browser asks: a page.
      const res = await fetch(
        oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: uri, state: 's' }).href,
        { redirect: 'manual', headers: { accept: 'text/html', cookie: [...jar.values()].join('; ') } },
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      const body = await res.text();
      expect(body).toContain('invalid_request');
      // A sign-out, said as one (not the sign-in's message).
      expect(body).toContain('The sign-out request is invalid.');
      expect(body).not.toContain('evil.example');
    }
  });

  it('answers a form POST to the end-session endpoint with a 303 to it, the parameters in the query', async () => {
    const jar = jarOf([await signInCookie(base, emma.email)]);
    const idToken = await signedIn(jar);
    const params = { id_token_hint: idToken, post_logout_redirect_uri: SIGNED_OUT, state: 'posted' };
    const posted = await fetch(`${issuer}/session/end`, form(params, jar));
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(`${issuer}/session/end?${new URLSearchParams(params)}`);
    const page = await browse(posted.headers.get('location')!, jar);
    const done = await confirm(page, jar);
    expect(done.headers.get('location')).toBe(`${SIGNED_OUT}?state=posted`);
  });

  it('answers a form POST to the authorization endpoint with a 303 to it, and the flow goes on to a code', async () => {
    const jar = jarOf([await signInCookie(base, emma.email)]);
    const { params, verifier, state } = await codeRequest();
    const posted = await fetch(`${issuer}/auth`, form(params));
    expect(posted.status).toBe(303);
    const location = posted.headers.get('location')!;
    expect(location).toBe(`${issuer}/auth?${new URLSearchParams(params)}`);
    // The provider's cookies are Lax: they come with the GET that follows, not with the cross-site POST.
    const res = await browse(location, jar);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.claims()!.aud).toBe(CLIENT_ID);
  });

  it('refuses with invalid_request a POST whose parameters would make the URL longer than 8 KB', async () => {
    const { params } = await codeRequest();
    const padding = 'x'.repeat(MAX_POSTED_URL);
    // A known client and its registered redirect URI: the refusal goes back to it, as the provider's would.
    const back = await fetch(`${issuer}/auth`, form({ ...params, nonce: padding }));
    expect(back.status).toBe(303);
    const callback = new URL(back.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(callback.searchParams)).toMatchObject({
      error: 'invalid_request',
      state: params.state,
      iss: issuer,
    });
    // Just at the limit, it goes on.
    const fits = `${issuer}/auth?${new URLSearchParams({ ...params, nonce: '' })}`;
    const exact = await fetch(`${issuer}/auth`, form({ ...params, nonce: 'x'.repeat(MAX_POSTED_URL - fits.length) }));
    expect(exact.status).toBe(303);
    expect(exact.headers.get('location')).toHaveLength(MAX_POSTED_URL);
    expect(new URL(exact.headers.get('location')!).pathname).toBe('/oidc/auth');
    // An unknown client, or a redirect URI it did not register: a page, never a redirect.
    for (const wrong of [{ client_id: 'nobody' }, { redirect_uri: 'https://evil.example/cb' }]) {
      const page = await fetch(`${issuer}/auth`, form({ ...params, ...wrong, nonce: padding }));
      expect(page.status).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(await page.text()).toContain('invalid_request');
    }
    const logout = await fetch(`${issuer}/session/end`, form({ state: padding }));
    expect([logout.status, logout.headers.get('location')]).toEqual([400, null]);
    expect(await logout.text()).toContain('The sign-out request is invalid.');
    // JSON to a client's back end; and a body that is not a form is refused the same way.
    const json = await fetch(`${issuer}/session/end`, { method: 'POST', body: JSON.stringify({ state: 's' }) });
    expect([json.status, await json.json()]).toEqual([400, { error: 'invalid_request' }]);
  });
});
