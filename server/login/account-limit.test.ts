// NIST SP 800-63B counts failed sign-ins per account: by email or by phone, they add up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { makeUser } from '../testing/mfaKit.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();

describe.each(kinds)('the account-wide failure limit on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    // A small account limit, and per-address limits out of the way, to see the account's count alone.
    server = await startTestServer(kind, { LOGIN_MAX_FAILS_PER_ACCOUNT: '4', LOGIN_MAX_FAILS_PER_USER_IP: '1000', LOGIN_MAX_FAILS_PER_IP: '1000' });
  });
  afterAll(async () => server?.stop());

  const login = (username: string, password: string, from: string) =>
    server.app.inject({ method: 'POST', url: '/api/token', headers: DEVICE, payload: { username, password }, remoteAddress: from });

  it('counts failures by email and by phone together, from any address', async () => {
    const user = await makeUser(server, { methods: [] });
    for (let i = 0; i < 3; i++) expect((await login(user.email, 'wrong-password', `192.0.2.${i + 1}`)).statusCode).toBe(400);
    expect((await login(user.phone, 'wrong-password', '192.0.2.9')).statusCode).toBe(400);
    // Five failures on one account: the fifth crossed the limit, whichever name was typed.
    expect((await login(user.phone, 'wrong-password', '192.0.2.10')).statusCode).toBe(429);
    const byPhone = await login(user.phone, DEMO_PASSWORD, '198.51.100.1');
    expect(byPhone.statusCode).toBe(429);
    expect(byPhone.json().code).toBe('too_many_attempts');
    expect((await login(user.email, DEMO_PASSWORD, '198.51.100.2')).statusCode).toBe(429);
  });

  it('leaves another account alone', async () => {
    const other = await makeUser(server, { methods: [] });
    expect((await login(other.phone, DEMO_PASSWORD, '192.0.2.1')).statusCode).toBe(200);
  });
});
