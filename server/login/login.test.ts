import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import {
  DEVICE,
  databaseKinds,
  passwordSignIn,
  startTestServer,
  userIdByEmail,
  type TestServer,
} from '../testing/harness.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const weak = DEMO_USERS.find((u) => u.key === 'weak')!;

async function count(server: TestServer, table: 'sessions' | 'security_events' | 'users' | 'tickets'): Promise<number> {
  const row = await server.ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(kinds)('sign-in on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOGIN_MAX_FAILS_PER_USER_IP: '3' });
  });
  afterAll(async () => server?.stop());

  const login = (username: string, password: string, extra: Record<string, string> = {}) =>
    passwordSignIn(server, username, password, { ...DEVICE, ...extra });

  it('signs in by email, case-insensitively, and sets the auth cookie', async () => {
    const res = await login(emma.email.toUpperCase(), DEMO_PASSWORD);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.token_type).toBe('Bearer');
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.expires_in).toBe(30 * 24 * 3600);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toContain(`tessera_token=${body.access_token}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Max-Age=2592000/);
    // The token is stored only as a hash.
    const stored = await server.ctx.db.selectFrom('sessions').select('token_hash').execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(body.access_token);
  });

  it.each(['0470 12 34 56', '+32 470/12.34.56', '0032470123456', '+32470123456'])(
    'signs in by phone written as %s',
    async (phone) => {
      const res = await login(phone, DEMO_PASSWORD);
      expect(res.statusCode).toBe(200);
    },
  );

  it('reads a Luxembourg local number in the Luxembourg variant', async () => {
    const res = await login('621 123 456', DEMO_PASSWORD, { host: 'account.lu.localhost:3000' });
    expect(res.statusCode).toBe(200);
  });

  it('answers an unknown account exactly as a wrong password, after the same hashing work', async () => {
    let verifications = 0;
    const { hasher } = server.ctx;
    const original = { verify: hasher.verify, verifyDummy: hasher.verifyDummy };
    hasher.verify = async (...args) => {
      verifications++;
      return original.verify(...args);
    };
    hasher.verifyDummy = async (...args) => {
      verifications++;
      return original.verifyDummy(...args);
    };
    try {
      const wrong = await login('claire.dubois@example.com', 'not-the-password', { 'x-forwarded-for': '1' });
      const unknown = await login('nobody@example.com', 'not-the-password');
      expect(wrong.statusCode).toBe(400);
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toEqual(wrong.json());
      expect(wrong.json()).toEqual({ code: 'invalid_credentials', message: 'Invalid username/password.' });
      expect(verifications).toBe(2);
    } finally {
      Object.assign(hasher, original);
    }
  });

  it('throttles repeated failures per account and IP, even for the right password, with Retry-After', async () => {
    const target = DEMO_USERS.find((u) => u.key === 'luxembourg')!;
    for (let i = 0; i < 3; i++) expect((await login(target.email, 'wrong')).statusCode).toBe(400);
    const throttled = await login(target.email, 'wrong');
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json().code).toBe('too_many_attempts');
    expect(throttled.json().message).toBe('Too many attempts. Please try again later.');
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(target.email, DEMO_PASSWORD)).statusCode).toBe(429);
  });

  it('answers the weak-password marker with a ticket and no session', async () => {
    const sessions = await count(server, 'sessions');
    const res = await login(weak.email, DEMO_PASSWORD);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('weak_password');
    expect(res.json().payload).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await count(server, 'sessions')).toBe(sessions);
    expect(await count(server, 'tickets')).toBeGreaterThan(0);
  });

  it('serves the profile with a bearer token or the cookie, default contacts first', async () => {
    const token = (await login(emma.email, DEMO_PASSWORD)).json().access_token;
    await server.ctx.db
      .insertInto('user_emails')
      .values({
        id: crypto.randomUUID(),
        user_id: await userIdByEmail(server, emma.email),
        value: 'aaa.second@example.be',
        is_default: 0,
        verified: 0,
        created_at: '2000-01-01T00:00:00.000Z',
      })
      .execute();
    const byBearer = await server.app.inject({
      method: 'GET',
      url: '/api/user',
      headers: { ...DEVICE, authorization: `Bearer ${token}` },
    });
    const byCookie = await server.app.inject({
      method: 'GET',
      url: '/api/user',
      headers: DEVICE,
      cookies: { tessera_token: token },
    });
    expect(byBearer.statusCode).toBe(200);
    expect(byCookie.json()).toEqual(byBearer.json());
    const profile = byBearer.json().data;
    expect(profile.firstname).toBe('Emma');
    expect(profile.email.map((e: { value: string }) => e.value)).toEqual([emma.email, 'aaa.second@example.be']);
    expect(profile.email[0]).toEqual({ value: emma.email, default: true, verified: true });
    expect(profile).toMatchObject({
      user_id: 'U-1001',
      customer_user_id: 'C-2001',
      fridom_user_id: 'F-3001',
      password_status: 0,
    });
    expect(profile).not.toHaveProperty('password');
  });

  it('signs out: the token is revoked on the server and the cookie cleared', async () => {
    const token = (await login(emma.email, DEMO_PASSWORD)).json().access_token;
    const auth = { ...DEVICE, authorization: `Bearer ${token}` };
    const out = await server.app.inject({ method: 'DELETE', url: '/api/token', headers: auth });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/tessera_token=;.*Expires=Thu, 01 Jan 1970/);
    expect((await server.app.inject({ method: 'GET', url: '/api/user', headers: auth })).statusCode).toBe(401);
    expect((await server.app.inject({ method: 'DELETE', url: '/api/token', headers: auth })).statusCode).toBe(401);
  });

  it('refuses expired sessions', async () => {
    const token = (await login(emma.email, DEMO_PASSWORD)).json().access_token;
    await server.ctx.db.updateTable('sessions').set({ expires_at: '2000-01-01T00:00:00.000Z' }).execute();
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/user',
      headers: { ...DEVICE, authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
  });

  it('refuses bad input with a stable code and writes nothing', async () => {
    const before = await Promise.all([count(server, 'sessions'), count(server, 'security_events')]);
    const cases = [
      { payload: '{"username":', headers: { 'content-type': 'application/json' }, status: 400, code: 'invalid_json' },
      { payload: { username: emma.email, password: 12345 }, status: 400, code: 'validation_failed' },
      {
        payload: { username: emma.email, password: DEMO_PASSWORD, admin: true },
        status: 400,
        code: 'validation_failed',
      },
      { payload: { username: emma.email }, status: 400, code: 'validation_failed' },
      { payload: { username: '', password: 'x' }, status: 400, code: 'validation_failed' },
      { payload: { username: emma.email, password: 'x'.repeat(20_000) }, status: 413, code: 'body_too_large' },
      {
        payload: 'username=a&password=b',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        status: 415,
        code: 'unsupported_media_type',
      },
    ];
    for (const c of cases) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/token',
        headers: { ...DEVICE, ...c.headers },
        payload: c.payload,
      });
      expect({ status: res.statusCode, code: res.json().code }).toEqual({ status: c.status, code: c.code });
      expect(typeof res.json().message).toBe('string');
    }
    expect(await Promise.all([count(server, 'sessions'), count(server, 'security_events')])).toEqual(before);
  });

  it('requires the device id header on every API call', async () => {
    for (const req of [
      { method: 'POST' as const, url: '/api/token', payload: { username: emma.email, password: DEMO_PASSWORD } },
      { method: 'GET' as const, url: '/api/user' },
      { method: 'GET' as const, url: '/api/config', headers: { 'x-device-id': 'bad id!' } },
    ]) {
      const res = await server.app.inject(req);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('device_id_required');
    }
  });

  it('tells the variant, its languages and the registered redirect targets', async () => {
    const be = (
      await server.app.inject({
        method: 'GET',
        url: '/api/config',
        headers: { ...DEVICE, host: 'account.localhost:3000' },
      })
    ).json();
    const lu = (
      await server.app.inject({
        method: 'GET',
        url: '/api/config',
        headers: { ...DEVICE, host: 'account.lu.localhost:3000' },
      })
    ).json();
    expect(be).toMatchObject({ variant: 'be', defaultLocale: 'nl' });
    expect(be.locales.toSorted()).toEqual(['en', 'fr', 'nl']);
    expect(lu).toMatchObject({ variant: 'lu', defaultLocale: 'fr_LU', locales: ['fr_LU', 'en_LU'] });
    expect(be.redirectTargets).toContain('https://client.tessera.example/auth/callback');
  });

  it('answers unknown API paths with 404 JSON and sends security headers', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/nothing-here', headers: DEVICE });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('reports readiness from the database', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
      status: 'ok',
      checks: { database: 'ok' },
    });
  });
});

describe.each(kinds)('maintenance on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { MAINTENANCE: 'true' }, { seed: false });
  });
  afterAll(async () => server?.stop());

  it('answers every API call with 503 maintenance', async () => {
    for (const url of ['/api/config', '/api/user']) {
      const res = await server.app.inject({ method: 'GET', url, headers: DEVICE });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('maintenance');
    }
  });
});
