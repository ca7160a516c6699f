// A client marked FAPI 2.0, end to end over real HTTP with an independent relying party
// (openid-client): it pushes its request, signs its assertion with its own key (private_key_jwt),
// binds its tokens by DPoP, and refreshes without rotation; whatever the profile forbids is refused.
// A plain client beside it keeps today's rules (strict rotation).
import { exportJWK, generateKeyPair } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, startListeningTestServer, type TestServer } from '../testing/harness.ts';
import { browse, signInCookie } from '../testing/oidcKit.ts';
import { addClient, editClient } from './registry.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;

describe.each(kinds)('a FAPI 2.0 client on %s', (kind) => {
  let server: TestServer & { base: string };
  let issuer: URL;
  let redirectUri: string;
  let keys: CryptoKeyPair;
  let config: oidc.Configuration;

  beforeAll(async () => {
    server = await startListeningTestServer(kind);
    issuer = new URL(`${server.base}/oidc`);
    redirectUri = `${server.base}/fapi-callback`;
    keys = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(keys.publicKey)), alg: 'ES256', use: 'sig', kid: 'fapi-key-1' };
    await addClient(server.ctx.db, 'fapi-bank', {
      name: 'FAPI bank',
      redirect_uris: [redirectUri],
      // First-party: no consent screen between the sign-in and the code (consent is tested elsewhere).
      first_party: true,
      profile: 'fapi2',
      jwks: { keys: [jwk] },
    });
    config = await oidc.discovery(
      issuer,
      'fapi-bank',
      undefined,
      oidc.PrivateKeyJwt({ key: keys.privateKey, kid: 'fapi-key-1' }),
      { execute: [oidc.allowInsecureRequests] },
    );
  });
  afterAll(async () => server?.stop());

  /** The code flow through a pushed request, signed in as Emma; the tokens, by DPoP when given. */
  async function codeFlow(dpop?: oidc.DPoPHandle) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await oidc.buildAuthorizationUrlWithPAR(
      config,
      {
        redirect_uri: redirectUri,
        scope: 'openid offline_access',
        prompt: 'consent',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      },
      dpop ? { DPoP: dpop } : undefined,
    );
    const res = await browse(server.base, url.href, [await signInCookie(server.base, emma.email)]);
    return { res, verifier, state };
  }

  it('signs in, binds its tokens by DPoP, and refreshes without rotation: the same refresh token works again', async () => {
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    const { res, verifier, state } = await codeFlow(dpop);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    const tokens = await oidc.authorizationCodeGrant(
      config,
      location,
      { pkceCodeVerifier: verifier, expectedState: state },
      undefined,
      { DPoP: dpop },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const refreshToken = tokens.refresh_token!;
    expect(refreshToken).toBeTruthy();
    const first = await oidc.refreshTokenGrant(config, refreshToken, undefined, { DPoP: dpop });
    expect(first.access_token).toBeTruthy();
    const again = await oidc.refreshTokenGrant(config, refreshToken, undefined, { DPoP: dpop });
    expect(again.access_token).toBeTruthy();
  });

  it('refuses an authorization request that was not pushed, and a token request without DPoP', async () => {
    const direct = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const res = await browse(server.base, direct.href, [await signInCookie(server.base, emma.email)]);
    const answer = `${res.headers.get('location') ?? ''} ${await res.text()}`;
    expect(answer).toMatch(/pushed authorization request|request_uri|invalid_request/i);
  });

  it('refuses a secret for a FAPI client, and a client assertion signed with a key it did not register', async () => {
    await expect(
      addClient(server.ctx.db, 'fapi-secret', {
        name: 'X',
        redirect_uris: [redirectUri],
        profile: 'fapi2',
        jwks: { keys: [] },
      }),
    ).rejects.toThrow(/JWKS/);
    const stranger = await generateKeyPair('ES256', { extractable: true });
    const forged = await oidc.discovery(
      issuer,
      'fapi-bank',
      undefined,
      oidc.PrivateKeyJwt({ key: stranger.privateKey, kid: 'fapi-key-1' }),
      { execute: [oidc.allowInsecureRequests] },
    );
    await expect(
      oidc.buildAuthorizationUrlWithPAR(forged, {
        redirect_uri: redirectUri,
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }),
    ).rejects.toMatchObject({ error: 'invalid_client' });
  });

  it('takes new keys from the CLI: the old key stops working, the new one signs', async () => {
    const next = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(next.publicKey)), alg: 'ES256', use: 'sig', kid: 'fapi-key-2' };
    await editClient(server.ctx.db, 'fapi-bank', { jwks: { keys: [jwk] } });
    const rotated = await oidc.discovery(
      issuer,
      'fapi-bank',
      undefined,
      oidc.PrivateKeyJwt({ key: next.privateKey, kid: 'fapi-key-2' }),
      { execute: [oidc.allowInsecureRequests] },
    );
    const params = {
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    };
    expect((await oidc.buildAuthorizationUrlWithPAR(rotated, params)).href).toContain('request_uri=');
    await expect(oidc.buildAuthorizationUrlWithPAR(config, params)).rejects.toMatchObject({ error: 'invalid_client' });
    // Back to the first key, for whatever runs after.
    const first = { ...(await exportJWK(keys.publicKey)), alg: 'ES256', use: 'sig', kid: 'fapi-key-1' };
    await editClient(server.ctx.db, 'fapi-bank', { jwks: { keys: [first] } });
  });
});
