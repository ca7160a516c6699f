// Before the last try, the sign-in says so; after it, it says how long the pause is. Known and
// unknown accounts answer alike, so the warning tells nothing of which exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { makeUser } from '../testing/mfaKit.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();

describe.each(kinds)('the last try before a pause, on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      LOGIN_MAX_FAILS_PER_USER_IP: '3',
      LOGIN_BLOCK_SECONDS: '600',
      CAPTCHA_LOGIN_AFTER_FAILURES: '0',
    });
  });
  afterAll(async () => server?.stop());

  const login = (username: string, password: string, from: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: DEVICE,
      payload: { username, password },
      remoteAddress: from,
    });

  it('warns on the failure after which one more pauses sign-in, then gives the wait; known and unknown alike', async () => {
    const user = await makeUser(server, { methods: [] });
    for (const [name, from] of [
      [user.email, '192.0.2.20'],
      ['nobody.here@example.be', '192.0.2.21'],
    ] as const) {
      const bodies = [];
      for (let i = 0; i < 4; i++) bodies.push((await login(name, 'wrong-password', from)).json());
      expect(bodies.slice(0, 2)).toEqual([
        { code: 'invalid_credentials', message: 'Invalid username/password.' },
        { code: 'invalid_credentials', message: 'Invalid username/password.' },
      ]);
      expect(bodies[2]).toEqual({
        code: 'invalid_credentials',
        message: 'Invalid username/password.',
        last_attempt: true,
      });
      expect(bodies[3]).toMatchObject({ code: 'too_many_attempts', retry_after: expect.any(Number) });
      expect(bodies[3].retry_after).toBeGreaterThan(500);
      expect(bodies[3].retry_after).toBeLessThanOrEqual(600);
    }
    // The owner, from elsewhere, is not paused.
    expect((await login(user.email, DEMO_PASSWORD, '198.51.100.20')).statusCode).toBe(200);
  });
});
