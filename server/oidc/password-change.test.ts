// A new password takes from the applications the tokens they hold for the account, refresh tokens
// of offline access included (a sign-out leaves those): a relying party (openid-client) given them
// through the real code + PKCE flow can no longer refresh nor use them; the grant itself stays.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENTS, DEMO_PASSWORD } from '../seed/demo.ts';
import { DEVICE, databaseKinds, startListeningTestServer, type TestServer } from '../testing/harness.ts';
import { freshMfa, makeUser } from '../testing/mfaKit.ts';
import { browse, signInCookie } from '../testing/oidcKit.ts';

const kinds = await databaseKinds();
const CLIENT = '2';
const REDIRECT = DEMO_CLIENTS.find((c) => c.client_id === CLIENT)!.redirect_uris.find((u) => u.startsWith('http://'))!;

describe.each(kinds)('a password change and the applications on %s', (kind) => {
  let server: TestServer;
  let base: string;
  let config: oidc.Configuration;

  beforeAll(async () => {
    const listening = await startListeningTestServer(kind);
    server = listening;
    base = listening.base;
    config = await oidc.discovery(new URL(`${base}/oidc`), CLIENT, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
  });
  afterAll(async () => server?.stop());

  async function grant(cookie: string) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid offline_access',
      state,
      prompt: 'consent',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).href;
    const res = await browse(base, url, [cookie]);
    expect(res.status).toBe(303);
    return oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
  }

  it('revokes their access and refresh tokens, and keeps the grant', async () => {
    const user = await makeUser(server, { methods: [] });
    const cookie = await signInCookie(base, user.email);
    const tokens = await grant(cookie);
    expect(tokens.refresh_token).toBeTruthy();
    await freshMfa(server, user.userId);
    const changed = await server.app.inject({
      method: 'POST',
      url: '/api/user/password',
      headers: { ...DEVICE, cookie },
      payload: {
        current: DEMO_PASSWORD,
        password: 'Brand-new-pass-77',
        confirmation: 'Brand-new-pass-77',
        keepThisSession: true,
      },
    });
    expect(changed.statusCode).toBe(200);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    const grants = await server.app.inject({ method: 'GET', url: '/api/tokens', headers: { ...DEVICE, cookie } });
    expect(grants.json().data.map((g: { client_id: string }) => g.client_id)).toEqual([CLIENT]);
  });
});
