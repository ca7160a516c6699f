// Step-up without a second factor (docs/decisions/step-up-password.md): the password typed again, for an
// account that has no second factor; the first factor needs it once the sign-in is no longer
// recent. From the attacker's side too: a stolen old session cannot add its own phone, wrong
// passwords count against the sign-in's limits, and an account with a factor must use it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';
import { createTestUser } from '../testing/mfaKit.ts';
import { codeIn, startSmtp } from '../testing/peers.ts';

const kinds = await databaseKinds();
const LONG_AGO = '2000-01-01T00:00:00.000Z';

describe.each(kinds)('step-up by password on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let userNumber = 0;

  /** A new account without a second factor, signed in; its session made old unless asked. */
  async function signedIn(options: { fresh?: boolean } = {}) {
    userNumber += 1;
    const email = `olga.${userNumber}@example.be`;
    const headers = { 'x-device-id': `step-up-device-${userNumber}` };
    await createTestUser(server, {
      firstname: 'Olga',
      lastname: 'Olsen',
      email,
      phone: `+3247060${String(userNumber).padStart(4, '0')}`,
    });
    const token = (await passwordSignIn(server, email, DEMO_PASSWORD, headers)).json().access_token as string;
    if (!options.fresh)
      await server.ctx.db.updateTable('sessions').set({ created_at: LONG_AGO }).where('mfa_at', 'is', null).execute();
    const auth = { ...headers, authorization: `Bearer ${token}` };
    const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      server.app.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) });
    return { email, call };
  }

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, { SMTP_URL: smtp.url, LOGIN_MAX_FAILS_PER_USER_IP: '3' });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  it('refuses the first factor to an old session, and grants it after the password is typed again', async () => {
    const { email, call } = await signedIn();
    const target = `?target=${encodeURIComponent(email)}`;
    const refused = await call('GET', `/api/mfa/-1/activate${target}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('step_up_required');
    expect((await call('GET', '/api/mfa/status')).json().sudo).toBe(false);

    const wrong = await call('POST', '/api/mfa/sudo/password', { password: 'not-the-password' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('invalid_credentials');
    expect((await call('GET', '/api/mfa/status')).json().sudo).toBe(false);

    expect((await call('POST', '/api/mfa/sudo/password', { password: DEMO_PASSWORD })).statusCode).toBe(204);
    expect((await call('GET', '/api/mfa/status')).json().sudo).toBe(true);
    const started = await call('GET', `/api/mfa/-1/activate${target}`);
    expect(started.statusCode).toBe(200);
    const done = await call('POST', '/api/mfa/activate', {
      payload: started.json().payload,
      code: codeIn(smtp.mails.at(-1)!.raw),
    });
    expect(done.statusCode).toBe(200);
    expect((await call('GET', '/api/mfa')).json().data).toHaveLength(1);
  });

  it('lets a sign-in within the step-up window set up the first factor without asking again', async () => {
    const { email, call } = await signedIn({ fresh: true });
    expect((await call('GET', `/api/mfa/-1/activate?target=${encodeURIComponent(email)}`)).statusCode).toBe(200);
  });

  it('is refused to an account with a second factor: it steps up with that factor', async () => {
    const { email, call } = await signedIn({ fresh: true });
    const started = (await call('GET', `/api/mfa/-1/activate?target=${encodeURIComponent(email)}`)).json();
    expect(
      (await call('POST', '/api/mfa/activate', { payload: started.payload, code: codeIn(smtp.mails.at(-1)!.raw) }))
        .statusCode,
    ).toBe(200);
    await server.ctx.db.updateTable('sessions').set({ mfa_at: LONG_AGO }).execute();
    const refused = await call('POST', '/api/mfa/sudo/password', { password: DEMO_PASSWORD });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('second_factor_required');
    expect((await call('GET', '/api/mfa/status')).json().sudo).toBe(false);
  });

  it("counts wrong passwords with the sign-in's failures: guessing here blocks both, for a short while", async () => {
    const { email, call } = await signedIn();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await call('POST', '/api/mfa/sudo/password', { password: `guess-${i}` })).statusCode);
    expect(statuses.slice(0, 2)).toEqual([400, 400]);
    expect(statuses.at(-1)).toBe(429);
    // The right password is refused while blocked, here and at sign-in from this address.
    expect((await call('POST', '/api/mfa/sudo/password', { password: DEMO_PASSWORD })).statusCode).toBe(429);
    const signIn = await passwordSignIn(server, email, DEMO_PASSWORD, { 'x-device-id': 'step-up-other-01' });
    expect(signIn.statusCode).toBe(429);
  });

  it('refuses bad input with a stable code and no session change', async () => {
    const { call } = await signedIn();
    for (const payload of [
      {},
      { password: '' },
      { password: 'x'.repeat(2000) },
      { password: 'a', extra: 1 },
      { password: 12 },
    ]) {
      const res = await call('POST', '/api/mfa/sudo/password', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
    expect((await call('GET', '/api/mfa/status')).json().sudo).toBe(false);
  });

  it('needs a session', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/mfa/sudo/password',
      headers: { 'x-device-id': 'step-up-none-01' },
      payload: { password: DEMO_PASSWORD },
    });
    expect(res.statusCode).toBe(401);
  });
});
