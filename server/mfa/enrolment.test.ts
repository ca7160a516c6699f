import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../seed/demo.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { codeIn, startSmsProvider } from '../testing/peers.ts';

const kinds = await databaseKinds();
const fiona = DEMO_MFA_USERS.find((u) => u.key === 'forced')!;

describe.each(kinds)('forced enrolment on %s', (kind) => {
  let server: TestServer;
  let sms: Awaited<ReturnType<typeof startSmsProvider>>;
  beforeAll(async () => {
    sms = await startSmsProvider();
    server = await startTestServer(kind, { SMS_PROVIDER_URL: sms.url });
  });
  afterAll(async () => {
    await server?.stop();
    await sms?.stop();
  });

  it('gives a forced user without a second factor a session that can only set one up', async () => {
    const headers = { 'x-device-id': 'enrol-device-001' };
    const login = await server.app.inject({ method: 'POST', url: '/api/token', headers, payload: { username: fiona.email, password: DEMO_PASSWORD } });
    expect(login.statusCode).toBe(200);
    const auth = { ...headers, authorization: `Bearer ${login.json().access_token}` };
    const user = await server.app.inject({ method: 'GET', url: '/api/user', headers: auth });
    expect(user.json().data).toMatchObject({ mfa_forced: true, mfa_enrolled: false });
    expect((await server.app.inject({ method: 'GET', url: '/api/mfa', headers: auth })).statusCode).toBe(200);
    const refused = await server.app.inject({ method: 'POST', url: '/api/mfa/regenerate-recovery', headers: auth });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('mfa_enrolment_required');

    const started = await server.app.inject({ method: 'GET', url: `/api/mfa/-2/activate?target=${encodeURIComponent(fiona.phone)}`, headers: auth });
    expect(started.statusCode).toBe(200);
    const done = await server.app.inject({ method: 'POST', url: '/api/mfa/activate', headers: auth, payload: { payload: started.json().payload, code: codeIn(sms.messages.at(-1)!.text) } });
    expect(done.statusCode).toBe(200);
    // A full session now: the call is no longer refused for enrolment (there is simply no authenticator).
    const after = await server.app.inject({ method: 'POST', url: '/api/mfa/regenerate-recovery', headers: auth });
    expect(after.json().code).toBe('not_found');
    expect((await server.app.inject({ method: 'GET', url: '/api/user', headers: auth })).json().data.mfa_enrolled).toBe(true);
  });
});
