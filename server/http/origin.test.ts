// Public origins (docs/decisions/public-origins.md), from the attacker's side, on both
// databases. Someone who knows a password signs in naming another host (`Host: evil.example`, or
// `X-Forwarded-Host: evil.example`, through a trusted proxy or not): the owner's new-device mail
// must still lead to the configured origin, with its ticket in the hash. So must a change notice's
// undo link, Microsoft's callback (server/sso/sso.test.ts) and the OIDC issuer. The Host only selects
// the variant's configured origin. In production, a host that is no configured origin's gets 421
// before any route, but for the probes and the metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';
import { ISSUER_ENDPOINTS } from '../testing/oidcKit.ts';
import { freshMfa, makeUser, sessionFor } from '../testing/mfaKit.ts';
import { codeIn, startSmtp } from '../testing/peers.ts';
import { configuredOriginOf, hostnameOf, publicOriginOf } from './origin.ts';
import { loadConfig } from '../config/index.ts';

const kinds = await databaseKinds();
/** The origins of a test server: the demo hosts on the default port (server/config). */
const BE = 'http://account.localhost:3000';
const LU = 'http://account.lu.localhost:3000';
const EVIL = 'evil.example';
/** The proxy the `proxied` server trusts (TRUST_PROXY); the other server trusts none. */
const PROXY = '10.0.0.7';

type Headers = Record<string, string>;
/** Which server a request goes to, where it comes from and which host headers it carries. */
type Way = { name: string; proxied: boolean; headers: Headers; remoteAddress?: string };

/** The ways to name another host: the Host header itself; X-Forwarded-Host where no proxy is
 * trusted, or from a client that is not the trusted proxy (Fastify ignores it); and X-Forwarded-Host
 * from the trusted proxy (Fastify then takes it as the request's host). */
const FORGED: Way[] = [
  { name: 'a forged Host', proxied: false, headers: { host: EVIL } },
  { name: 'a forged Host with a port', proxied: false, headers: { host: `${EVIL}:3000` } },
  {
    name: 'X-Forwarded-Host, no proxy trusted',
    proxied: false,
    headers: { host: 'account.localhost:3000', 'x-forwarded-host': EVIL },
  },
  {
    name: 'X-Forwarded-Host from a client that is not the trusted proxy',
    proxied: true,
    headers: { host: 'account.localhost:3000', 'x-forwarded-host': EVIL },
  },
  {
    name: 'X-Forwarded-Host from the trusted proxy',
    proxied: true,
    headers: { host: 'account.localhost:3000', 'x-forwarded-host': EVIL },
    remoteAddress: PROXY,
  },
  {
    name: 'Host and X-Forwarded-Host from the trusted proxy',
    proxied: true,
    headers: { host: EVIL, 'x-forwarded-host': EVIL },
    remoteAddress: PROXY,
  },
];

/** A mail as its reader sees it: quoted-printable undone. */
const readable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
const from = (way: Omit<Way, 'name' | 'proxied'>) => (way.remoteAddress ? { remoteAddress: way.remoteAddress } : {});

describe.each(kinds)('links and issuers come from the configured origins on %s', (kind) => {
  let direct: TestServer;
  let proxied: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    direct = await startTestServer(kind, { SMTP_URL: smtp.url });
    proxied = await startTestServer(kind, { SMTP_URL: smtp.url, TRUST_PROXY: PROXY });
  });
  afterAll(async () => {
    await direct?.stop();
    await proxied?.stop();
    await smtp?.stop();
  });

  const serverOf = (way: Pick<Way, 'proxied'>) => (way.proxied ? proxied : direct);
  const mailsTo = (to: string) => smtp.mails.filter((m) => m.to === to).map((m) => readable(m.raw));
  const signIn = async (
    server: TestServer,
    email: string,
    device: string,
    way: Omit<Way, 'name' | 'proxied'> = { headers: {} },
  ) => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { 'x-device-id': device, ...way.headers },
      payload: { username: email, password: DEMO_PASSWORD },
      ...from(way),
    });
    expect(res.statusCode, res.body).toBe(200);
    // The sign-in's records queue the mail after the answer: wait for them, then for the sender.
    await server.ctx.signInRecords.drain();
    await server.ctx.outbox.drain();
    return res;
  };
  /** The owner signs in once from their own device; then the attacker, from a new one, their way. */
  async function newDeviceMail(way: Omit<Way, 'name'>) {
    const server = serverOf(way);
    const { email, userId } = await makeUser(server, { methods: [] });
    await signIn(server, email, `owner-${userId.slice(0, 8)}`);
    expect(mailsTo(email)).toEqual([]);
    const res = await signIn(server, email, `attacker-${userId.slice(0, 8)}`, way);
    const mails = mailsTo(email);
    expect(mails).toHaveLength(1);
    return { server, mail: mails[0]!, res };
  }
  const notMeLinkIn = (mail: string) => {
    const found = /https?:\/\/[^\s"<>]+\/devices\/not-me[^\s"<>]*/.exec(mail);
    expect(found, mail).not.toBeNull();
    return new URL(found![0]);
  };

  it("the new-device mail links to the configured origin, its ticket in the hash, whatever host the attacker's sign-in named", async () => {
    for (const way of FORGED) {
      const { server, mail, res } = await newDeviceMail(way);
      expect(mail, way.name).not.toContain(EVIL);
      const link = notMeLinkIn(mail);
      expect(link.href.startsWith(`${BE}/devices/not-me#`), `${way.name}: ${link.href}`).toBe(true);
      expect(link.search, way.name).toBe('');
      expect(link.hash, way.name).toMatch(/^#[\w-]{20,100}$/);
      // Nor is the sign-in's cookie scoped to the named host's parent.
      expect(String(res.headers['set-cookie']), way.name).not.toMatch(/domain=/i);
      // The ticket in the hash is the one that works: the page posts it, and the attacker's device is signed out.
      const attacker = {
        'x-device-id': 'attacker-check',
        authorization: `Bearer ${res.json().access_token as string}`,
      };
      expect((await server.app.inject({ method: 'GET', url: '/api/devices', headers: attacker })).statusCode).toBe(200);
      const rejected = await server.app.inject({
        method: 'POST',
        url: '/api/devices/not-me',
        headers: { 'x-device-id': 'owner-browser' },
        payload: { ticket: link.hash.slice(1) },
      });
      expect(rejected.statusCode, way.name).toBe(204);
      expect(
        (await server.app.inject({ method: 'GET', url: '/api/devices', headers: attacker })).statusCode,
        way.name,
      ).toBe(401);
    }
  });

  it('the host only selects the variant: the Luxembourg host, or the trusted proxy naming it, gets the Luxembourg origin', async () => {
    const luxembourg: Omit<Way, 'name'>[] = [
      { proxied: false, headers: { host: 'account.lu.localhost:3000' } },
      {
        proxied: true,
        headers: { host: 'account.localhost:3000', 'x-forwarded-host': 'account.lu.localhost' },
        remoteAddress: PROXY,
      },
    ];
    for (const way of luxembourg) {
      const link = notMeLinkIn((await newDeviceMail(way)).mail);
      expect(link.href.startsWith(`${LU}/devices/not-me#`), link.href).toBe(true);
    }
    // A client that is not the proxy cannot choose the variant by X-Forwarded-Host: the Host decides.
    const untrusted = notMeLinkIn(
      (
        await newDeviceMail({
          proxied: true,
          headers: { host: 'account.localhost:3000', 'x-forwarded-host': 'account.lu.localhost' },
        })
      ).mail,
    );
    expect(untrusted.href.startsWith(`${BE}/devices/not-me#`), untrusted.href).toBe(true);
  });

  it("a contact change's notice links its undo to the configured origin, whatever host the change named", async () => {
    for (const way of FORGED) {
      const server = serverOf(way);
      const who = await makeUser(server, { methods: ['email'] });
      const device = `undo-${who.userId.slice(0, 8)}`;
      const token = await sessionFor(server, who.userId, device);
      await freshMfa(server, who.userId);
      const call = (url: string, payload: object) =>
        server.app.inject({
          method: 'POST',
          url,
          headers: { 'x-device-id': device, authorization: `Bearer ${token}`, ...way.headers },
          payload,
          ...from(way),
        });
      const added = `origin.${who.userId.slice(0, 8)}@example.be`;
      const started = await call('/api/user/login', { email: added });
      expect(started.statusCode, started.body).toBe(200);
      const confirmed = await call('/api/user/login/confirm', {
        payload: started.json().payload,
        code: codeIn(mailsTo(added).at(-1)!),
      });
      expect(confirmed.statusCode, confirmed.body).toBe(200);
      const notice = mailsTo(who.email).find((mail) => mail.includes('/undo-change'));
      expect(notice, `${way.name}: ${mailsTo(who.email).join('\n---\n')}`).toBeDefined();
      expect(notice, way.name).not.toContain(EVIL);
      const link = /https?:\/\/[^\s"<>]+\/undo-change#[\w-]+/.exec(notice!)![0];
      expect(link.startsWith(`${BE}/undo-change#`), `${way.name}: ${link}`).toBe(true);
    }
  });

  const discovery = (way: Omit<Way, 'name'>) =>
    serverOf(way).app.inject({
      method: 'GET',
      url: '/oidc/.well-known/openid-configuration',
      headers: way.headers,
      ...from(way),
    });
  const expectIssuer = (meta: Record<string, unknown>, issuer: string, name: string) => {
    expect(meta.issuer, name).toBe(issuer);
    for (const endpoint of ISSUER_ENDPOINTS)
      expect(String(meta[endpoint]), `${name}: ${endpoint}`).toMatch(new RegExp(`^${issuer}/`));
    expect(JSON.stringify(meta), name).not.toContain(EVIL);
  };

  it('OIDC discovery names the configured issuer and endpoints, whatever host it was asked for', async () => {
    for (const way of FORGED) {
      const res = await discovery(way);
      expect(res.statusCode, way.name).toBe(200);
      expectIssuer(res.json(), `${BE}/oidc`, way.name);
    }
  });

  it('OIDC discovery on the Luxembourg host (or through the trusted proxy naming it) names the Luxembourg issuer', async () => {
    const luxembourg: Way[] = [
      { name: 'the Luxembourg host', proxied: false, headers: { host: 'account.lu.localhost:3000' } },
      {
        name: 'the Luxembourg host, in capitals, without its port',
        proxied: false,
        headers: { host: 'ACCOUNT.LU.localhost' },
      },
      {
        name: 'the trusted proxy naming it',
        proxied: true,
        headers: { host: 'account.localhost:3000', 'x-forwarded-host': 'account.lu.localhost:3000' },
        remoteAddress: PROXY,
      },
    ];
    for (const way of luxembourg) {
      const res = await discovery(way);
      expect(res.statusCode, way.name).toBe(200);
      expectIssuer(res.json(), `${LU}/oidc`, way.name);
    }
    expectIssuer(
      (await discovery({ proxied: false, headers: { host: 'account.localhost:3000' } })).json(),
      `${BE}/oidc`,
      'the Belgian host',
    );
  });
});

describe.each(kinds)("in production, a host that is no configured origin's on %s", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      kind,
      {
        NODE_ENV: 'production',
        SECRET_KEY: 'k'.repeat(40),
        METRICS: 'true',
        TRUST_PROXY: PROXY,
        PUBLIC_ORIGIN_BE: 'https://account.tessera.be',
        PUBLIC_ORIGIN_LU: 'https://account.tessera.lu',
      },
      { seed: false },
    );
  });
  afterAll(async () => server?.stop());

  type Request = Omit<Way, 'name' | 'proxied'>;
  const get = (url: string, way: Request) =>
    server.app.inject({
      method: 'GET',
      url,
      headers: { 'x-device-id': 'prod-device-0001', ...way.headers },
      ...from(way),
    });
  const MISDIRECTED: (Request & { name: string })[] = [
    { name: 'a forged Host', headers: { host: EVIL } },
    { name: 'a forged Host with a port', headers: { host: `${EVIL}:443` } },
    { name: 'an address', headers: { host: '203.0.113.9' } },
    { name: 'a development host', headers: { host: 'account.localhost:3000' } },
    { name: 'a look-alike', headers: { host: 'account.tessera.be.evil.example' } },
    {
      name: 'X-Forwarded-Host from the trusted proxy',
      headers: { host: 'account.tessera.be', 'x-forwarded-host': EVIL },
      remoteAddress: PROXY,
    },
  ];

  it("answers 421 misdirected_request on the API, OIDC, the sign-in and the app's pages, but /healthz, /readyz and /metrics whatever the host", async () => {
    for (const way of MISDIRECTED) {
      for (const url of [
        '/api/config',
        '/oidc/.well-known/openid-configuration',
        '/oidc/auth?client_id=2',
        '/login/email',
        '/devices/not-me',
      ]) {
        const res = await get(url, way);
        expect(res.statusCode, `${way.name}: ${url}`).toBe(421);
        expect(res.json(), `${way.name}: ${url}`).toEqual({
          code: 'misdirected_request',
          message: 'This service is not available at this address.',
        });
      }
      const signIn = await server.app.inject({
        method: 'POST',
        url: '/api/token',
        headers: { 'x-device-id': 'prod-device-0001', ...way.headers },
        payload: { username: 'someone@example.be', password: DEMO_PASSWORD },
        ...from(way),
      });
      expect(signIn.statusCode, way.name).toBe(421);
      // A load balancer's probes and the metrics scraper name the instance by its address.
      for (const url of ['/healthz', '/readyz', '/metrics', '/healthz?probe=1'])
        expect((await get(url, way)).statusCode, `${way.name}: ${url}`).toBe(200);
    }
  });

  it('answers a configured host normally, each with its own issuer; an untrusted X-Forwarded-Host changes nothing', async () => {
    const cases: [Request, string][] = [
      [{ headers: { host: 'account.tessera.be' } }, 'https://account.tessera.be'],
      [{ headers: { host: 'Account.Tessera.BE:443' } }, 'https://account.tessera.be'],
      [{ headers: { host: 'account.tessera.lu' } }, 'https://account.tessera.lu'],
      [{ headers: { host: 'account.tessera.be', 'x-forwarded-host': EVIL } }, 'https://account.tessera.be'],
      [
        { headers: { host: EVIL, 'x-forwarded-host': 'account.tessera.lu' }, remoteAddress: PROXY },
        'https://account.tessera.lu',
      ],
    ];
    for (const [way, origin] of cases) {
      const config = await get('/api/config', way);
      expect(config.statusCode, JSON.stringify(way)).toBe(200);
      expect(config.json().variant).toBe(origin.endsWith('.lu') ? 'lu' : 'be');
      const discovered = await get('/oidc/.well-known/openid-configuration', way);
      expect(discovered.statusCode).toBe(200);
      expect(discovered.json().issuer).toBe(`${origin}/oidc`);
      expect(discovered.json().token_endpoint).toBe(`${origin}/oidc/token`);
    }
    const signIn = await passwordSignIn(server, 'nobody@example.be', DEMO_PASSWORD, {
      'x-device-id': 'prod-device-0001',
      host: 'account.tessera.be',
    });
    expect(signIn.statusCode).toBe(400);
    expect(signIn.json().code).toBe('invalid_credentials');
  });
});

describe('selecting the configured origin', () => {
  const config = loadConfig({
    NODE_ENV: 'test',
    PUBLIC_ORIGIN_BE: 'https://account.tessera.be',
    PUBLIC_ORIGIN_LU: 'https://account.tessera.lu:8443',
  });

  it('takes the host name of a Host header, in lower case, without its port', () => {
    expect(hostnameOf('Account.Tessera.BE:443')).toBe('account.tessera.be');
    expect(hostnameOf('[::1]:3000')).toBe('[::1]');
    expect(hostnameOf(undefined)).toBe('');
  });

  it('matches a configured origin by host name only, and never returns what the request named', () => {
    expect(configuredOriginOf(config, 'account.tessera.lu')).toEqual({
      variant: 'lu',
      origin: 'https://account.tessera.lu:8443',
      host: 'account.tessera.lu:8443',
    });
    expect(configuredOriginOf(config, 'account.tessera.be:8080')?.origin).toBe('https://account.tessera.be');
    for (const host of [EVIL, 'account.tessera.be.evil.example', 'tessera.be', '', 'account.tessera.be@evil.example']) {
      expect(configuredOriginOf(config, host), host).toBeNull();
    }
  });

  it('falls back to the Belgian origin outside production', () => {
    expect(publicOriginOf(config, { host: EVIL }).origin).toBe('https://account.tessera.be');
    expect(publicOriginOf(config, { host: 'account.lu.evil.example' }).origin).toBe('https://account.tessera.be');
  });
});
