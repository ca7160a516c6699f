// Two instances of the server on one PostgreSQL database, behind one address: a small round-robin
// proxy in front of them, as a load balancer would be, so both answer for one issuer,
// http://127.0.0.1:<proxy port>/oidc (the Belgian origin both are configured with). The provider
// keeps nothing in an instance's memory that another needs (interactions, sessions, codes, grants
// and tokens are rows; cookie keys and signing keys come from the shared SECRET_KEY and database;
// the clients' rows an instance keeps are dropped on each when one changes), so a flow may hop
// between them at every request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENTS, DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { rotateSigningKeys } from './keys.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const REDIRECT_URI = DEMO_CLIENTS.find((c) => c.client_id === '2')!.redirect_uris.find((u) => u.startsWith('http://'))!;
/** The header each instance puts on its answers, and the one a test sends to pick an instance. */
const SERVED_BY = 'x-served-by';
const ROUTE_TO = 'x-route-to';

type Name = 'A' | 'B';

/** A proxy that sends each request to the next instance in turn (or to the one `x-route-to` names),
 * Host and every other header as they came. */
function roundRobin(ports: Record<Name, number>) {
  let turn = 0;
  const served: Name[] = [];
  const server = http.createServer((req, res) => {
    const asked = req.headers[ROUTE_TO];
    const target: Name = asked === 'A' || asked === 'B' ? asked : turn++ % 2 === 0 ? 'A' : 'B';
    const upstream = http.request(
      { host: '127.0.0.1', port: ports[target], method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        served.push(answer.headers[SERVED_BY] as Name);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502).end();
    });
    req.pipe(upstream);
  });
  return {
    server,
    served,
    reset: () => {
      turn = 0;
      served.length = 0;
    },
  };
}

// Defined where PostgreSQL runs (CI has it): instances share a database only there.
if (kinds.includes('postgres'))
  describe('two instances on one PostgreSQL database, behind one issuer', () => {
    const instances = {} as Record<Name, TestServer>;
    let proxy: ReturnType<typeof roundRobin>;
    let base: string;
    let issuer: string;
    let config: oidc.Configuration;

    beforeAll(async () => {
      // The proxy's address is the public origin both instances are configured with: it listens
      // first, and learns the instances' ports once they listen.
      const ports = {} as Record<Name, number>;
      proxy = roundRobin(ports);
      await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
      issuer = `${base}/oidc`;
      instances.A = await startTestServer('postgres', { PUBLIC_ORIGIN_BE: base });
      instances.B = await startTestServer('postgres', { PUBLIC_ORIGIN_BE: base }, { sharing: instances.A });
      for (const name of ['A', 'B'] as const) {
        // Set before the app sees the request, so every answer carries it, the provider's too.
        instances[name].app.server.prependListener(
          'request',
          (_req: http.IncomingMessage, res: http.ServerResponse) => {
            res.setHeader(SERVED_BY, name);
          },
        );
        await instances[name].app.listen({ port: 0, host: '127.0.0.1' });
        ports[name] = (instances[name].app.server.address() as AddressInfo).port;
      }
      config = await oidc.discovery(new URL(issuer), '2', undefined, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
      });
    });
    afterAll(async () => {
      proxy?.server.closeAllConnections();
      await new Promise((resolve) => proxy?.server.close(resolve));
      // B first: A drops the database.
      await instances.B?.stop();
      await instances.A?.stop();
    });

    /** The relying party's calls, all through the proxy, to the instance named (or in turn). */
    function through(name?: Name): oidc.Configuration {
      const pinned = structuredClone(config.serverMetadata());
      const copy = new oidc.Configuration(pinned, '2', undefined, oidc.None());
      oidc.allowInsecureRequests(copy);
      if (name) {
        copy[oidc.customFetch] = (url, options) =>
          fetch(url, {
            ...options,
            headers: { ...(options.headers as Record<string, string>), [ROUTE_TO]: name },
          } as RequestInit);
      }
      return copy;
    }

    async function signIn(on: Name): Promise<{ cookie: string; servedBy: string | null }> {
      const res = await fetch(`${base}/api/token`, {
        method: 'POST',
        headers: { ...DEVICE, 'content-type': 'application/json', [ROUTE_TO]: on },
        body: JSON.stringify({ username: emma.email, password: DEMO_PASSWORD }),
      });
      expect(res.status).toBe(200);
      return {
        cookie: res.headers
          .getSetCookie()
          .find((c) => c.startsWith('tessera_token='))!
          .split(';')[0]!,
        servedBy: res.headers.get(SERVED_BY),
      };
    }

    /** Follows the provider's redirects as a browser would, through the proxy; gives where it left the
     * provider, and which instance answered each hop. */
    async function browse(url: string, cookie: string, on?: Name): Promise<{ location: URL; hops: Name[] }> {
      const jar = new Map([[cookie.split('=')[0]!, cookie]]);
      const hops: Name[] = [];
      let next = url;
      for (let hop = 0; hop < 10; hop++) {
        const res = await fetch(next, {
          redirect: 'manual',
          headers: { cookie: [...jar.values()].join('; '), ...(on ? { [ROUTE_TO]: on } : {}) },
        });
        hops.push(res.headers.get(SERVED_BY) as Name);
        for (const set of res.headers.getSetCookie()) jar.set(set.split('=')[0]!, set.split(';')[0]!);
        const target = new URL(res.headers.get('location')!, next);
        if (target.origin !== base || !target.pathname.startsWith('/oidc')) return { location: target, hops };
        next = target.href;
      }
      throw new Error('too many redirects');
    }

    async function start(on?: Name) {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope: 'openid profile offline_access',
        prompt: 'consent',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, verifier, state, on };
    }

    it('alternates between the instances, which publish one discovery document and one key set', async () => {
      proxy.reset();
      const answers = await Promise.all(
        [0, 1].map(async () => {
          const res = await fetch(`${issuer}/.well-known/openid-configuration`);
          return { by: res.headers.get(SERVED_BY), body: (await res.json()) as Record<string, unknown> };
        }),
      );
      expect(answers.map((a) => a.by).sort()).toEqual(['A', 'B']);
      expect(answers[0]!.body).toEqual(answers[1]!.body);
      expect(answers[0]!.body.issuer).toBe(issuer);
      const jwks = await Promise.all(
        ['A', 'B'].map(async (on) => (await fetch(`${issuer}/jwks`, { headers: { [ROUTE_TO]: on } })).json()),
      );
      expect(jwks[0]).toEqual(jwks[1]);
    });

    it('signs in on A, authorizes through A, exchanges the code and refreshes through B, answers userinfo on both', async () => {
      const { cookie, servedBy } = await signIn('A');
      expect(servedBy).toBe('A');
      const request = await start();
      const { location, hops } = await browse(request.url, cookie, 'A');
      expect(hops.every((hop) => hop === 'A')).toBe(true);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect(location.searchParams.get('iss')).toBe(issuer);

      proxy.reset();
      const tokens = await oidc.authorizationCodeGrant(through('B'), location, {
        pkceCodeVerifier: request.verifier,
        expectedState: request.state,
      });
      expect(tokens.claims()!.iss).toBe(issuer);
      const refreshed = await oidc.refreshTokenGrant(through('B'), tokens.refresh_token!);
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect(proxy.served).toEqual(['B', 'B']);

      const sub = tokens.claims()!.sub;
      for (const on of ['A', 'B'] as const) {
        expect(await oidc.fetchUserInfo(through(on), refreshed.access_token, sub)).toMatchObject({
          sub,
          given_name: 'Emma',
        });
      }
      // The refresh repeated on A, as after an answer lost on B, gets B's answer (the database's).
      const repeated = await oidc.refreshTokenGrant(through('A'), tokens.refresh_token!);
      expect(repeated.refresh_token).toBe(refreshed.refresh_token);
      // Once B's token is used, the spent one, used again on A, revokes the grant that B rotated.
      const latest = await oidc.refreshTokenGrant(through('B'), refreshed.refresh_token!);
      await expect(oidc.refreshTokenGrant(through('A'), tokens.refresh_token!)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
      await expect(oidc.refreshTokenGrant(through('B'), latest.refresh_token!)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
    });

    it('carries one flow across both instances when every request goes to the other one', async () => {
      const { cookie } = await signIn('B');
      const request = await start();
      proxy.reset();
      const { location, hops } = await browse(request.url, cookie);
      expect(hops.length).toBeGreaterThanOrEqual(3);
      // Every hop of the authorization (request, interaction, resume) landed on the other instance.
      hops.forEach((hop, i) => expect(hop).toBe(i % 2 === 0 ? 'A' : 'B'));
      const tokens = await oidc.authorizationCodeGrant(through(), location, {
        pkceCodeVerifier: request.verifier,
        expectedState: request.state,
      });
      const refreshed = await oidc.refreshTokenGrant(through(), tokens.refresh_token!);
      await oidc.fetchUserInfo(through(), refreshed.access_token, tokens.claims()!.sub);
      expect(proxy.served).toEqual(Array.from({ length: hops.length + 3 }, (_, i) => (i % 2 === 0 ? 'A' : 'B')));
    });

    it("publishes on B a key rotation done on A once B checks for it, and B's tokens verify with either's JWKS", async () => {
      const { kids } = await rotateSigningKeys(instances.A.ctx.db, instances.A.ctx.config.secretKey);
      const jwksOn = async (on: Name) =>
        (
          (await (await fetch(`${issuer}/jwks`, { headers: { [ROUTE_TO]: on } })).json()) as {
            keys: Array<{ kid: string }>;
          }
        ).keys.map((k) => k.kid);
      expect(await jwksOn('B')).not.toEqual(expect.arrayContaining(kids));
      expect(await instances.A.oidc.refreshKeys()).toBe(true);
      // What B's timer does every 30 s.
      expect(await instances.B.oidc.refreshKeys()).toBe(true);
      for (const on of ['A', 'B'] as const) {
        const published = await jwksOn(on);
        expect(published).toEqual(expect.arrayContaining(kids));
        expect(published).toHaveLength(4);
      }
      // An ID token B signs now carries a new kid, and the relying party (whose JWKS requests alternate) verifies it.
      const { cookie } = await signIn('A');
      const request = await start();
      const { location } = await browse(request.url, cookie, 'A');
      const tokens = await oidc.authorizationCodeGrant(through('B'), location, {
        pkceCodeVerifier: request.verifier,
        expectedState: request.state,
      });
      const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()) as {
        kid: string;
      };
      expect(kids).toContain(header.kid);
    });
  });
