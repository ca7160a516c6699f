// What an attack with generated requests once turned into 500s under /oidc, kept as examples on
// both databases (server/http/badinput.test.ts generates the rest):
// - a Content-Type header Fastify cannot read (empty, blank, `application/json, text/plain`) on the
//   token, revocation, introspection, registration and PAR endpoints: a 400 with the OAuth error;
// - a NUL byte in a client_id (PostgreSQL's text cannot hold it) and in the other keys the provider
//   looks up (codes, tokens, request_uri): the answer to an unknown one, never a 500.
import { createHash } from 'node:crypto';
import { errors } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/index.ts';
import { DEMO_CLIENTS } from '../seed/demo.ts';
import { databaseKinds, useTestDatabase, startTestServer, type TestServer } from '../testing/harness.ts';
import { OidcAdapter, withoutUnstorableKeys } from './adapter.ts';

const kinds = await databaseKinds();
const HOST = 'account.localhost:3000';
const REDIRECT_URI = DEMO_CLIENTS.find((c) => c.client_id === '2')!.redirect_uris.find((u) => u.startsWith('http://'))!;
const VERIFIER = 'a-code-verifier-of-at-least-forty-three-characters-long';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const NUL_ID = 'a\u0000b';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

type Request = { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string };

/** Requests naming a key (a client_id, a code, a token…), built for any value of that key. */
const KEYED = {
  authorization: (key: string): Request => ({
    method: 'GET',
    headers: { accept: 'text/html' },
    url: `/oidc/auth?${query({ client_id: key, response_type: 'code', scope: 'openid', redirect_uri: REDIRECT_URI, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'st' })}`,
  }),
  endSession: (key: string): Request => ({
    method: 'GET',
    headers: { accept: 'text/html' },
    url: `/oidc/session/end?${query({ client_id: key, post_logout_redirect_uri: REDIRECT_URI })}`,
  }),
  endSessionJson: (key: string): Request => ({ method: 'GET', url: `/oidc/session/end?${query({ client_id: key })}` }),
  token: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/token',
    headers: FORM,
    payload: query({
      client_id: key,
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
    }),
  }),
  tokenBasic: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/token',
    headers: { ...FORM, authorization: basic(key, 'secret') },
    payload: query({ grant_type: 'refresh_token', refresh_token: 'x' }),
  }),
  revocation: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/token/revocation',
    headers: FORM,
    payload: query({ client_id: key, token: 'x' }),
  }),
  introspection: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/token/introspection',
    headers: FORM,
    payload: query({ client_id: key, token: 'x' }),
  }),
  par: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/request',
    headers: FORM,
    payload: query({
      client_id: key,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    }),
  }),
  code: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/token',
    headers: FORM,
    payload: query({
      client_id: '2',
      grant_type: 'authorization_code',
      code: key,
      redirect_uri: REDIRECT_URI,
      code_verifier: VERIFIER,
    }),
  }),
  refreshToken: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/token',
    headers: FORM,
    payload: query({ client_id: '2', grant_type: 'refresh_token', refresh_token: key }),
  }),
  revokedToken: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/token/revocation',
    headers: FORM,
    payload: query({ client_id: '2', token: key }),
  }),
  introspectedToken: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/token/introspection',
    headers: FORM,
    payload: query({ client_id: '2', token: key }),
  }),
  accessToken: (key: string): Request => ({
    method: 'POST',
    url: '/oidc/me',
    headers: FORM,
    payload: query({ access_token: key }),
  }),
  requestUri: (key: string): Request => ({
    method: 'GET',
    headers: { accept: 'text/html' },
    url: `/oidc/auth?${query({ client_id: '2', request_uri: `urn:ietf:params:oauth:request_uri:${key}` })}`,
  }),
};

/** The keys that reach a look-up, each as an unknown one would. */
const LOOKED_UP: Array<[string, keyof typeof KEYED]> = [
  ['a client_id on the authorization endpoint', 'authorization'],
  ['a client_id on RP-initiated logout (a page)', 'endSession'],
  ['a client_id on RP-initiated logout (JSON)', 'endSessionJson'],
  ["a client_id in the token endpoint's form", 'token'],
  ['a client_id on the revocation endpoint', 'revocation'],
  ['a client_id on the introspection endpoint', 'introspection'],
  ['a client_id on the PAR endpoint', 'par'],
  ['an authorization code', 'code'],
  ['a refresh token', 'refreshToken'],
  ['a token to revoke', 'revokedToken'],
  ['a token to introspect', 'introspectedToken'],
  ['an access token on userinfo', 'accessToken'],
  ['a request_uri on the authorization endpoint', 'requestUri'],
];

/** The refusal as a client sees it: its status, and the OAuth error (or that it was a page). */
function refusal(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const type = String(res.headers['content-type'] ?? '');
  if (type.startsWith('text/html')) return { status: res.statusCode, page: /<code>(\w+)<\/code>/.exec(res.body)?.[1] };
  return {
    status: res.statusCode,
    error:
      type.startsWith('application/json') && res.body ? (JSON.parse(res.body) as { error?: string }).error : res.body,
  };
}

describe.each(kinds)('bad input to the OpenID Provider on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  const send = (request: Request) =>
    server.app.inject({
      method: request.method,
      url: request.url,
      headers: { host: HOST, ...request.headers },
      ...(request.payload !== undefined ? { payload: request.payload } : {}),
    });
  const models = async () =>
    (await server.ctx.db.selectFrom('oidc_models').select(['model', 'id']).execute())
      .map((r) => `${r.model} ${r.id}`)
      .sort();

  describe('a Content-Type Fastify cannot read', () => {
    const paths = ['/oidc/token', '/oidc/token/revocation', '/oidc/token/introspection', '/oidc/reg', '/oidc/request'];
    const types = ['', ' ', 'application/json, text/plain'];
    it.each(paths.flatMap((path) => types.map((type) => [path, type] as const)))(
      'POST %s with %j: 400 invalid_request',
      async (path, type) => {
        const before = await models();
        const res = await send({
          method: 'POST',
          url: path,
          headers: { 'content-type': type },
          payload: query({ client_id: '2', grant_type: 'authorization_code', token: 'x' }),
        });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.json()).toEqual({
          error: 'invalid_request',
          error_description: expect.stringMatching(/content-type/),
        });
        expect(await models()).toEqual(before);
      },
    );

    it('shows a browser the error page, with a 400', async () => {
      const res = await send({
        method: 'POST',
        url: '/oidc/token',
        headers: { 'content-type': '', accept: 'text/html' },
        payload: 'x=1',
      });
      expect(res.statusCode).toBe(400);
      expect(refusal(res)).toEqual({ status: 400, page: 'invalid_request' });
    });
  });

  describe('a NUL byte in a key the provider looks up', () => {
    it.each(LOOKED_UP)('%s: the answer to an unknown one, never a 500', async (_name, key) => {
      const before = await models();
      const unknown = await send(KEYED[key]('unknown-key'));
      const nul = await send(KEYED[key](NUL_ID));
      expect(nul.statusCode, nul.body).toBeLessThan(500);
      expect(refusal(nul)).toEqual(refusal(unknown));
      expect(await models()).toEqual(before);
    });

    // The findings as the attack saw them, with what each endpoint answers instead.
    it.each([
      // The provider's own page, whoever asks (renderError, errors.ts).
      ['on the authorization endpoint', 'authorization', { status: 400, page: 'invalid_client' }],
      ['on RP-initiated logout, to a browser', 'endSession', { status: 400, page: 'invalid_client' }],
      ['on RP-initiated logout, to a client back end', 'endSessionJson', { status: 400, error: 'invalid_client' }],
      // RFC 6749 §5.2: the client's authentication failed (none is registered under that id): a 401.
      ["in the token endpoint's form", 'token', { status: 401, error: 'invalid_client' }],
      // The provider refuses a control character in HTTP Basic credentials before any look-up.
      ["in the token endpoint's HTTP Basic credentials", 'tokenBasic', { status: 400, error: 'invalid_request' }],
    ] as const)('a client_id holding NUL %s: refused, never a 500', async (_name, key, expected) => {
      expect(refusal(await send(KEYED[key](NUL_ID)))).toEqual(expected);
    });
  });
});

describe.each(kinds)('the adapter with a key holding NUL on %s', (kind) => {
  let db: Db;
  useTestDatabase(kind, (handle) => {
    db = handle.db;
  });

  it('finds nothing, spends nothing, removes nothing, and never asks the database', async () => {
    const codes = new OidcAdapter(db, 'AuthorizationCode');
    await codes.upsert('code-1', { grantId: 'g-1', uid: 'u-1', userCode: 'UC-1', kind: 'AuthorizationCode' }, 60);
    expect(await codes.find(`code-1${'\u0000'}`)).toBeUndefined();
    expect(await codes.findByUid('u-1\u0000')).toBeUndefined();
    expect(await codes.findByUserCode('\u0000')).toBeUndefined();
    await expect(codes.consume('code-1\u0000')).rejects.toBeInstanceOf(errors.InvalidGrant);
    await codes.destroy('code-1\u0000');
    await codes.revokeByGrantId('g-1\u0000');
    expect(await codes.find('code-1')).toMatchObject({ grantId: 'g-1' });
  });

  it('refuses to store a key holding NUL, keeps a payload holding one', async () => {
    const sessions = new OidcAdapter(db, 'Session');
    await expect(sessions.upsert('s\u0000', { kind: 'Session' }, 60)).rejects.toBeInstanceOf(errors.InvalidRequest);
    await expect(sessions.upsert('s-2', { uid: 'u\u0000', kind: 'Session' }, 60)).rejects.toBeInstanceOf(
      errors.InvalidRequest,
    );
    // An interaction keeps its request's parameters, whatever they hold.
    const interactions = new OidcAdapter(db, 'Interaction');
    await interactions.upsert('i-1', { kind: 'Interaction', params: { state: 'a\u0000b' } }, 60);
    expect(await interactions.find('i-1')).toMatchObject({ params: { state: 'a\u0000b' } });
  });

  it("puts another store (the clients') behind the same rule", async () => {
    const asked: string[] = [];
    const store = withoutUnstorableKeys({
      upsert: async () => {},
      find: async (id) => {
        asked.push(id);
        return { client_id: id };
      },
      findByUid: async (uid) => {
        asked.push(uid);
        return undefined;
      },
      findByUserCode: async (code) => {
        asked.push(code);
        return undefined;
      },
      consume: async () => {},
      destroy: async (id) => {
        asked.push(id);
      },
      revokeByGrantId: async (id) => {
        asked.push(id);
      },
    });
    expect(await store.find(NUL_ID)).toBeUndefined();
    expect(await store.findByUid(NUL_ID)).toBeUndefined();
    expect(await store.findByUserCode(NUL_ID)).toBeUndefined();
    await store.destroy(NUL_ID);
    await store.revokeByGrantId(NUL_ID);
    expect(asked).toEqual([]);
    expect(await store.find('2')).toEqual({ client_id: '2' });
    expect(asked).toEqual(['2']);
  });
});
