// GET /metrics: Prometheus text with the counters moved by what happened, routes by pattern, and
// closed in production unless configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MFA_USERS, DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { DEVICE, databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();
const user = (key: string) => DEMO_USERS.find((u) => u.key === key)!;

/** The value of one sample line, `name{labels} value`; 0 when the line is absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe.each(kinds)('metrics on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOGIN_MAX_FAILS_PER_USER_IP: '2', CAPTCHA_LOGIN_AFTER_FAILURES: '0' });
  });
  afterAll(async () => server?.stop());

  const signIn = (username: string, password: string) => passwordSignIn(server, username, password);
  const scrape = async () => {
    const res = await server.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  it('counts sign-ins by outcome, codes by channel, 429s and requests by route pattern', async () => {
    const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;
    expect((await signIn(user('cardholder').email, DEMO_PASSWORD)).statusCode).toBe(200);
    expect((await signIn(user('weak').email, DEMO_PASSWORD)).statusCode).toBe(403);
    const mfa = await signIn(mila.email, DEMO_PASSWORD);
    expect(mfa.statusCode).toBe(401);
    const email = mfa.json().mfa.methods.find((m: { method: string }) => m.method === 'email');
    const code = await server.app.inject({
      method: 'GET',
      url: `/api/mfa/sudo?mfaId=${email.id}&payload=${encodeURIComponent(mfa.json().mfa.payload)}`,
      headers: DEVICE,
    });
    expect(code.statusCode).toBe(200);
    for (const expected of [400, 400, 429])
      expect((await signIn(user('luxembourg').email, 'not-the-password')).statusCode).toBe(expected);
    expect((await server.app.inject({ method: 'GET', url: '/no/such/page-zqxw' })).statusCode).toBe(404);

    const text = await scrape();
    expect(sample(text, 'tessera_sign_ins_total{outcome="success"}')).toBe(1);
    expect(sample(text, 'tessera_sign_ins_total{outcome="weak_password"}')).toBe(1);
    expect(sample(text, 'tessera_sign_ins_total{outcome="mfa_required"}')).toBe(1);
    expect(sample(text, 'tessera_sign_ins_total{outcome="invalid_credentials"}')).toBe(2);
    expect(sample(text, 'tessera_sign_ins_total{outcome="throttled"}')).toBe(1);
    expect(sample(text, 'tessera_codes_sent_total{channel="email"}')).toBe(1);
    expect(sample(text, 'tessera_throttled_total{route="/api/token"}')).toBe(1);
    expect(sample(text, 'tessera_http_requests_total{method="POST",route="/api/token",status="200"}')).toBe(1);
    expect(
      sample(text, 'tessera_http_request_duration_seconds_count{method="POST",route="/api/token",status="400"}'),
    ).toBe(2);
    expect(sample(text, 'tessera_http_requests_total{method="GET",route="/api/mfa/sudo",status="200"}')).toBe(1);
    // Routes by pattern: neither the query string nor an unknown path becomes a label.
    expect(text).not.toContain('payload=');
    expect(text).not.toContain('zqxw');
    expect(sample(text, 'tessera_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    // Gauges read at the scrape.
    expect(text).toMatch(/^tessera_db_connections\{state="total"\} [1-9]/m);
    expect(text).toMatch(/^tessera_password_hashes\{state="queued"\} 0$/m);
    expect(text).toMatch(/^tessera_outbox_depth 0$/m);
  });

  it('reads the outbox depth from the function it is given', async () => {
    server.ctx.metrics.measureOutbox(async () => 7);
    expect(sample(await scrape(), 'tessera_outbox_depth')).toBe(7);
  });
});

describe('metrics access', () => {
  it('is closed in production unless configured, and asks for the token when one is set', async () => {
    const production = { NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(32) };
    const closed = await startTestServer('sqlite', production, { seed: false });
    const guarded = await startTestServer(
      'sqlite',
      { ...production, METRICS_TOKEN: 'metrics-token-0123456789' },
      { seed: false },
    );
    try {
      expect((await closed.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      expect((await guarded.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      expect(
        (await guarded.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } }))
          .statusCode,
      ).toBe(401);
      const open = await guarded.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer metrics-token-0123456789' },
      });
      expect(open.statusCode).toBe(200);
      expect(open.body).toContain('tessera_http_requests_total');
    } finally {
      await closed.stop();
      await guarded.stop();
    }
  });
});
