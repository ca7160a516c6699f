// Thirty requests at once against each "read, check, then write" rule of the second factors:
// exactly one wins, on PostgreSQL as on SQLite.
import { TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { startSmtp } from '../testing/peers.ts';
import { client, freshMfa, makeUser, sessionFor } from '../testing/mfaKit.ts';

const kinds = await databaseKinds();

describe.each(kinds)('second-factor races on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, {
      SMTP_URL: smtp.url,
      MFA_SENDS_PER_REQUESTER: '100',
      MFA_SENDS_PER_DESTINATION: '100',
      MFA_SENDS_PER_ACCOUNT: '100',
    });
    api = client(server);
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  it('keeps the last email or SMS method when thirty deletions of both methods race', async () => {
    const user = await makeUser(server, { methods: ['email', 'sms'] });
    const token = await sessionFor(server, user.userId, 'race-delete-0001');
    await freshMfa(server, user.userId);
    const answers = await atOnce(30, (i) =>
      api.call('DELETE', `/api/mfa/${i % 2 === 0 ? user.ids.email : user.ids.sms}`, token, 'race-delete-0001'),
    );
    expect(answers.every((a) => a.statusCode < 500)).toBe(true);
    expect(statusCounts(answers)[204]).toBe(1);
    const left = await server.ctx.db
      .selectFrom('mfa_methods')
      .select('method')
      .where('user_id', '=', user.userId)
      .execute();
    expect(left).toHaveLength(1);
    // And the account still asks for a second factor from a new device.
    expect((await api.password(user.email, 'race-new-device-01')).statusCode).toBe(401);
  });

  it('sends one code when thirty requests for the same challenge race the resend wait', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const payload = await api.loginPayload(user.email, 'race-resend-0001');
    const before = smtp.mails.filter((m) => m.to === user.email).length;
    const answers = await atOnce(30, () => api.challenge(payload, user.ids.email!, 'race-resend-0001'));
    await server.ctx.outbox.drain();
    expect(statusCounts(answers)).toEqual({ 200: 1, 429: 29 });
    expect(answers.filter((a) => a.statusCode === 429).every((a) => a.json().code === 'resend_too_soon')).toBe(true);
    expect(smtp.mails.filter((m) => m.to === user.email).length).toBe(before + 1);
    expect(
      await server.ctx.db
        .selectFrom('mfa_challenges')
        .select('id')
        .where('user_id', '=', user.userId)
        .where('completed_at', 'is', null)
        .execute(),
    ).toHaveLength(1);
  });

  it('gives the sending budget back to the requests that lost the race', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const payload = await api.loginPayload(user.email, 'race-budget-0001');
    await atOnce(30, () => api.challenge(payload, user.ids.email!, 'race-budget-0001'));
    const state = await server.ctx.limiters.codeAccount.get(user.userId);
    expect(state?.consumedPoints ?? 0).toBeLessThanOrEqual(1);
  });

  it('keeps one authenticator when two set-ups are confirmed at once', async () => {
    const user = await makeUser(server, { methods: ['email'] });
    const token = await sessionFor(server, user.userId, 'race-totp-00001');
    await freshMfa(server, user.userId);
    const setups: Array<{ payload: string; data: { secret: string } }> = [];
    for (let i = 0; i < 2; i++) {
      const started = await api.call('GET', '/api/mfa/-3/activate', token, 'race-totp-00001');
      expect(started.statusCode).toBe(200);
      setups.push(started.json());
    }
    const answers = await atOnce(2, (i) =>
      api.call('POST', '/api/mfa/activate', token, 'race-totp-00001', {
        payload: setups[i]!.payload,
        code: new TOTP({ secret: setups[i]!.data.secret, digits: 6, period: 30 }).generate(),
      }),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 410]);
    const totps = await server.ctx.db
      .selectFrom('mfa_methods')
      .select('id')
      .where('user_id', '=', user.userId)
      .where('method', '=', 'totp')
      .execute();
    expect(totps).toHaveLength(1);
  });
});
