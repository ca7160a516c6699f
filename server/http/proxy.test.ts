// Behind a proxy the client address is the one the trusted hop saw, not what the client wrote in
// X-Forwarded-For: rotating a forged left-most address must not escape the per-address limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE, databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();

describe.each(
  kinds.flatMap(
    (kind) =>
      [
        [kind, '1'],
        [kind, '127.0.0.1'],
      ] as const,
  ),
)('TRUST_PROXY on %s set to %s', (kind, trustProxy) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { TRUST_PROXY: trustProxy, LOGIN_MAX_FAILS_PER_IP: '3' });
  });
  afterAll(async () => server?.stop());

  // inject() connects from 127.0.0.1: the one trusted proxy, which appended the address it saw.
  const failedSignIn = (n: number, forwardedFor: string) =>
    passwordSignIn(server, `nobody${n}@example.com`, 'not-the-password', {
      ...DEVICE,
      'x-forwarded-for': forwardedFor,
    });

  it('counts failures against the address the proxy added, whatever the client forged before it', async () => {
    for (let i = 0; i < 3; i++) expect((await failedSignIn(i, `6.6.6.${i}, 1.2.3.4`)).statusCode).toBe(400);
    const events = await server.ctx.db
      .selectFrom('security_events')
      .select('ip')
      .where('type', '=', 'login_failed')
      .execute();
    expect(new Set(events.map((e) => e.ip))).toEqual(new Set(['1.2.3.4']));
    const blocked = await failedSignIn(3, '6.6.6.99, 1.2.3.4');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('too_many_attempts');
    // Another client behind the same proxy is not affected.
    expect((await failedSignIn(4, '6.6.6.6, 1.2.3.5')).statusCode).toBe(400);
  });

  it('takes a forwarded address of any length without failing', async () => {
    // Nothing checks what a proxy forwards: a long value is one more key to the limits, not a 500.
    const res = await failedSignIn(5, `6.6.6.6, ${'f'.repeat(400)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_credentials');
  });
});

describe.each(kinds)('without TRUST_PROXY on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOGIN_MAX_FAILS_PER_IP: '2' });
  });
  afterAll(async () => server?.stop());

  it('ignores X-Forwarded-For and counts the connecting address', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await passwordSignIn(server, `nobody${i}@example.com`, 'not-the-password', {
        ...DEVICE,
        'x-forwarded-for': `6.6.6.${i}`,
      });
      expect(res.statusCode).toBe(400);
    }
    const events = await server.ctx.db
      .selectFrom('security_events')
      .select('ip')
      .where('type', '=', 'login_failed')
      .execute();
    expect(new Set(events.map((e) => e.ip))).toEqual(new Set(['127.0.0.1']));
  });
});
