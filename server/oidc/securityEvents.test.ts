// Security events pushed to a partner, end to end: a local receiver takes the pushes (RFC 8935) and
// checks each token's signature against the provider's published keys, its audience, its subject and
// its event, on a password change, on "log out everywhere" and on a grant's revocation; an account
// the partner holds no grant for is never told of.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { encryptSecret } from '../config/secrets.ts';
import { databaseKinds, startListeningTestServer, type TestServer } from '../testing/harness.ts';
import { freshMfa, makeUser } from '../testing/mfaKit.ts';
import { browse, signInCookie } from '../testing/oidcKit.ts';
import { addClient } from './registry.ts';
import { SET_TYPES } from './securityEvents.ts';

const kinds = await databaseKinds();
const TOKEN = 'receiver-bearer-token-1';

type Push = { authorization: string | undefined; contentType: string | undefined; body: string };

describe.each(kinds)('security events pushed to a partner on %s', (kind) => {
  let server: TestServer & { base: string };
  let receiver: http.Server;
  const pushes: Push[] = [];
  let config: oidc.Configuration;
  const redirectUri = () => `${server.base}/events-callback`;

  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        pushes.push({
          authorization: request.headers.authorization,
          contentType: request.headers['content-type'],
          body,
        });
        response.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    server = await startListeningTestServer(kind);
    await addClient(server.ctx.db, 'events-partner', {
      name: 'Events partner',
      redirect_uris: [redirectUri()],
      first_party: true,
      events_endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`,
      events_token: encryptSecret(server.ctx.config.secretKey, TOKEN),
    });
    config = await oidc.discovery(new URL(`${server.base}/oidc`), 'events-partner', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  /** A fresh account that signed in to the partner: the partner holds a grant for it. */
  async function partnerUser() {
    const user = await makeUser(server, { methods: [] });
    const cookie = await signInCookie(server.base, user.email);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri(),
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const res = await browse(server.base, url.href, [cookie]);
    expect(res.status).toBe(303);
    await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      idTokenExpected: true,
    });
    return { ...user, cookie };
  }

  /** The pushes about an account, verified: signature by the provider's keys, audience, subject. */
  async function eventsAbout(userId: string) {
    await server.ctx.outbox.drain();
    const keys = createRemoteJWKSet(new URL(`${server.base}/oidc/jwks`));
    const verified = await Promise.all(
      pushes.map(async (push) => {
        const { payload, protectedHeader } = await jwtVerify(push.body, keys, {
          issuer: `${server.base}/oidc`,
          audience: 'events-partner',
        });
        return { push, payload, protectedHeader };
      }),
    );
    return verified.filter(({ payload }) => (payload.sub_id as { sub: string }).sub === userId);
  }

  const call = (user: { cookie: string }, method: 'POST' | 'DELETE', url: string, payload?: object) =>
    server.app.inject({
      method,
      url,
      headers: { cookie: user.cookie, 'x-device-id': 'events-device-0001' },
      ...(payload ? { payload } : {}),
    });

  it('tells the partner of a password change: a signed credential-change token, with its bearer token', async () => {
    const user = await partnerUser();
    await freshMfa(server, user.userId);
    const changed = await call(user, 'POST', '/api/user/password', {
      current: DEMO_PASSWORD,
      password: 'A-new-password-2026!x',
      confirmation: 'A-new-password-2026!x',
      keepThisSession: true,
    });
    expect(changed.statusCode).toBe(200);
    const events = await eventsAbout(user.userId);
    expect(events).toHaveLength(1);
    const [{ push, payload, protectedHeader }] = events as [(typeof events)[number]];
    expect(push.authorization).toBe(`Bearer ${TOKEN}`);
    expect(push.contentType).toBe('application/secevent+jwt');
    expect(protectedHeader.typ).toBe('secevent+jwt');
    expect(payload.sub_id).toEqual({ format: 'iss_sub', iss: `${server.base}/oidc`, sub: user.userId });
    expect(payload.events).toMatchObject({
      [SET_TYPES.credentialChange]: { credential_type: 'password', change_type: 'update' },
    });
  });

  it('tells the partner of a sign-out everywhere, and of its own access revoked', async () => {
    const everywhere = await partnerUser();
    expect((await call(everywhere, 'DELETE', '/api/sessions')).statusCode).toBe(204);
    expect((await eventsAbout(everywhere.userId)).map((e) => Object.keys(e.payload.events as object))).toEqual([
      [SET_TYPES.sessionRevoked],
    ]);

    const revoking = await partnerUser();
    expect((await call(revoking, 'DELETE', '/api/token/events-partner')).statusCode).toBe(204);
    expect((await eventsAbout(revoking.userId)).map((e) => Object.keys(e.payload.events as object))).toEqual([
      [SET_TYPES.sessionRevoked],
    ]);
  });

  it('tells the partner nothing of an account it holds no grant for', async () => {
    const stranger = await makeUser(server, { methods: [] });
    const cookie = await signInCookie(server.base, stranger.email);
    expect((await call({ cookie }, 'DELETE', '/api/sessions')).statusCode).toBe(204);
    expect(await eventsAbout(stranger.userId)).toEqual([]);
  });
});
