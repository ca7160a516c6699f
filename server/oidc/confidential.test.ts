// A confidential client registered as the operator registers it (registry.ts, behind `clients add
// --confidential`) signs a person in over real HTTP: an openid-client relying party authenticating
// with its secret by HTTP Basic, code + PKCE, then a refresh. The secret is compared by digest.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { DEVICE, databaseKinds, startListeningTestServer, type TestServer } from '../testing/harness.ts';
import { addClient, editClient, getClient, removeClient } from './registry.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const CLIENT_ID = 'shop-backend';
const REDIRECT_URI = 'http://localhost:8080/callback';

/** The OAuth error a refused request got: from the body, or from the WWW-Authenticate challenge a
 * refused HTTP Basic authentication answers with (RFC 6749 §5.2). */
async function oauthError(request: Promise<unknown>): Promise<{ error: string; status: number } | 'accepted'> {
  try {
    await request;
    return 'accepted';
  } catch (error) {
    if (error instanceof oidc.WWWAuthenticateChallengeError) {
      return { error: String(error.cause[0]?.parameters.error), status: error.status };
    }
    const { error: code, status } = error as { error: string; status: number };
    return { error: code, status };
  }
}

describe.each(kinds)('a confidential client on %s', (kind) => {
  let server: TestServer;
  let base: string;
  let issuer: URL;
  let secret: string;

  beforeAll(async () => {
    const listening = await startListeningTestServer(kind);
    server = listening;
    base = listening.base;
    issuer = new URL(`${base}/oidc`);
    ({ secret } = (await addClient(
      server.ctx.db,
      CLIENT_ID,
      {
        name: 'Shop back end',
        redirect_uris: [REDIRECT_URI],
        scopes: ['user'],
        first_party: true,
      },
      { confidential: true },
    )) as { secret: string });
  });
  afterAll(async () => server?.stop());

  const configure = (auth: oidc.ClientAuth) =>
    oidc.discovery(issuer, CLIENT_ID, undefined, auth, { execute: [oidc.allowInsecureRequests] });

  /** Signs emma in, follows the provider's redirects with the browser's cookies; gives the callback URL. */
  async function authorize(config: oidc.Configuration, verifier: string, state: string): Promise<URL> {
    const login = await fetch(`${base}/api/token`, {
      method: 'POST',
      headers: { ...DEVICE, 'content-type': 'application/json' },
      body: JSON.stringify({ username: emma.email, password: DEMO_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const jar = new Map<string, string>();
    for (const set of login.headers.getSetCookie()) jar.set(set.split('=')[0]!, set.split(';')[0]!);
    let next = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid user offline_access',
      prompt: 'consent',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).href;
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(next, { redirect: 'manual', headers: { cookie: [...jar.values()].join('; ') } });
      for (const set of res.headers.getSetCookie()) jar.set(set.split('=')[0]!, set.split(';')[0]!);
      const target = new URL(res.headers.get('location')!, next);
      if (target.origin !== base) return target;
      next = target.href;
    }
    throw new Error('too many redirects');
  }

  it('exchanges a code with code + PKCE and client_secret_basic, refreshes, and refuses a wrong or missing secret', async () => {
    const config = await configure(oidc.ClientSecretBasic(secret));
    expect(config.serverMetadata().token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const callback = await authorize(config, verifier, state);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);

    // Client authentication comes first: refused attempts (a secret one character off, by Basic or
    // in the body, and none) leave the code unspent. (oidc-provider takes a client_secret_basic
    // client's secret in the body too: it treats the two methods as one.)
    const nearMiss = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const auth of [oidc.ClientSecretBasic(nearMiss), oidc.ClientSecretPost(nearMiss), oidc.None()]) {
      const wrong = await configure(auth);
      expect(
        await oauthError(
          oidc.authorizationCodeGrant(wrong, callback, { pkceCodeVerifier: verifier, expectedState: state }),
        ),
      ).toEqual({ error: 'invalid_client', status: 401 });
    }
    // The digest itself is not the secret.
    const digest = (
      await server.ctx.db
        .selectFrom('oauth_clients')
        .select('secret_hash')
        .where('client_id', '=', CLIENT_ID)
        .executeTakeFirstOrThrow()
    ).secret_hash!;
    expect(
      await oauthError(
        oidc.authorizationCodeGrant(await configure(oidc.ClientSecretBasic(digest)), callback, {
          pkceCodeVerifier: verifier,
          expectedState: state,
        }),
      ),
    ).toEqual({ error: 'invalid_client', status: 401 });

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.claims()).toMatchObject({ aud: CLIENT_ID, iss: issuer.href });
    expect(await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub)).toMatchObject({
      user_id: 'U-1001',
    });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect(
      await oauthError(
        oidc.refreshTokenGrant(await configure(oidc.ClientSecretBasic('not-the-secret')), refreshed.refresh_token!),
      ),
    ).toEqual({ error: 'invalid_client', status: 401 });

    // The database holds no plaintext secret, anywhere the provider or the registration wrote.
    const clients = await server.ctx.db.selectFrom('oauth_clients').selectAll().execute();
    const models = await server.ctx.db.selectFrom('oidc_models').selectAll().execute();
    expect(models.length).toBeGreaterThan(0);
    expect(JSON.stringify([clients, models])).not.toContain(secret);
  });

  it('registers a client that posts its secret in the form body (client_secret_post); discovery advertises exactly what can be registered', async () => {
    const { secret: posted } = (await addClient(
      server.ctx.db,
      'form-poster',
      {
        name: 'Form poster',
        redirect_uris: [REDIRECT_URI],
        scopes: ['user'],
        first_party: true,
        token_endpoint_auth_method: 'client_secret_post',
      },
      { confidential: true },
    )) as { secret: string };
    expect((await getClient(server.ctx.db, 'form-poster'))!.token_endpoint_auth_method).toBe('client_secret_post');
    const provider = server.oidc.forIssuer(issuer.href);
    expect((await provider.Client.find('form-poster'))!.tokenEndpointAuthMethod).toBe('client_secret_post');
    const config = await oidc.discovery(issuer, 'form-poster', undefined, oidc.ClientSecretPost(posted), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata().token_endpoint_auth_methods_supported).toEqual([
      'none',
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
    ]);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const tokens = await oidc.authorizationCodeGrant(config, await authorize(config, verifier, state), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.claims()).toMatchObject({ aud: 'form-poster' });
    await removeClient(server.ctx.db, 'form-poster');
  });

  it('stops taking the old secret once it is rotated, and takes the new one', async () => {
    const { secret: rotated } = await editClient(server.ctx.db, CLIENT_ID, {}, { secret: 'new' });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const callback = await authorize(await configure(oidc.ClientSecretBasic(rotated!)), verifier, state);
    expect(
      await oauthError(
        oidc.authorizationCodeGrant(await configure(oidc.ClientSecretBasic(secret)), callback, {
          pkceCodeVerifier: verifier,
          expectedState: state,
        }),
      ),
    ).toEqual({ error: 'invalid_client', status: 401 });
    const tokens = await oidc.authorizationCodeGrant(await configure(oidc.ClientSecretBasic(rotated!)), callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.access_token).toBeTruthy();
  });

  it('once removed, can no longer refresh, and its access token no longer opens userinfo', async () => {
    const { secret: current } = await editClient(server.ctx.db, CLIENT_ID, {}, { secret: 'new' });
    const config = await configure(oidc.ClientSecretBasic(current!));
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const tokens = await oidc.authorizationCodeGrant(config, await authorize(config, verifier, state), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const { grants } = await removeClient(server.ctx.db, CLIENT_ID);
    expect(grants).toBeGreaterThanOrEqual(1);
    expect(await oauthError(oidc.refreshTokenGrant(config, tokens.refresh_token!))).toEqual({
      error: 'invalid_client',
      status: 401,
    });
    const info = await fetch(config.serverMetadata().userinfo_endpoint!, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(401);
    expect(
      await server.ctx.db.selectFrom('oidc_models').select('id').where('client_id', '=', CLIENT_ID).execute(),
    ).toEqual([]);
  });
});
