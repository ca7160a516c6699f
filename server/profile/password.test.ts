// Changing the password while signed in (POST /api/user/password, /security/edit-password): behind a
// recent second factor (or the password typed again, for an account without one), with the current
// password, throttled as the sign-in is; the new one checked as every new password is. After it: the
// other sessions end (this one too unless kept), the partners' tokens go, the account gets an email,
// the event is recorded; thirty changes sent at once change it once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../db/index.ts';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { client, freshMfa, makeUser, sessionFor } from '../testing/mfaKit.ts';
import { startSmtp } from '../testing/peers.ts';

const kinds = await databaseKinds();
const LONG_AGO = '2000-01-01T00:00:00.000Z';
const NEW_PASSWORD = 'Brand-new-pass-77';

describe.each(kinds)('changing the password on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let deviceNumber = 0;

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, { SMTP_URL: smtp.url, LOGIN_MAX_FAILS_PER_USER_IP: '3' });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  const device = () => `password-device-${String(++deviceNumber).padStart(3, '0')}`;

  /** An account with an email second factor, signed in on two devices, both freshly checked. */
  async function account(options: { language?: string } = {}) {
    const user = await makeUser(server, {
      methods: ['email'],
      ...(options.language ? { language: options.language } : {}),
    });
    const here = device();
    const there = device();
    const token = await sessionFor(server, user.userId, here);
    const other = await sessionFor(server, user.userId, there);
    await freshMfa(server, user.userId);
    const api = client(server);
    const change = (body: Record<string, unknown>, as = token) =>
      api.call('POST', '/api/user/password', as, here, {
        current: DEMO_PASSWORD,
        password: NEW_PASSWORD,
        confirmation: NEW_PASSWORD,
        keepThisSession: true,
        ...body,
      });
    const alive = async (as: string, from: string) => (await api.call('GET', '/api/user', as, from)).statusCode === 200;
    const signIn = (password: string) => api.password(user.email, device(), { password });
    return { ...user, token, other, here, there, change, alive, signIn };
  }

  const passwordCount = async (userId: string) =>
    (await server.ctx.db.selectFrom('passwords').select('id').where('user_id', '=', userId).execute()).length;
  const events = (userId: string, type: string) =>
    server.ctx.db
      .selectFrom('security_events')
      .select('id')
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .execute();

  it('needs a session', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/user/password',
      headers: { 'x-device-id': device() },
      payload: { current: DEMO_PASSWORD, password: NEW_PASSWORD, confirmation: NEW_PASSWORD, keepThisSession: true },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
  });

  it('needs a recent second factor: without one it is refused and nothing changes', async () => {
    const a = await account();
    await server.ctx.db.updateTable('sessions').set({ mfa_at: LONG_AGO }).where('user_id', '=', a.userId).execute();
    const res = await a.change({});
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('step_up_required');
    expect((await a.signIn(DEMO_PASSWORD)).statusCode).not.toBe(400);
    expect(await a.alive(a.other, a.there)).toBe(true);
  });

  it('lets an account without a second factor change it once its password was typed again', async () => {
    const user = await makeUser(server, { methods: [] });
    const here = device();
    const token = await sessionFor(server, user.userId, here);
    await server.ctx.db
      .updateTable('sessions')
      .set({ created_at: LONG_AGO, mfa_at: null })
      .where('user_id', '=', user.userId)
      .execute();
    const api = client(server);
    const body = { current: DEMO_PASSWORD, password: NEW_PASSWORD, confirmation: NEW_PASSWORD, keepThisSession: true };
    expect((await api.call('POST', '/api/user/password', token, here, body)).json().code).toBe('step_up_required');
    expect(
      (await api.call('POST', '/api/mfa/sudo/password', token, here, { password: DEMO_PASSWORD })).statusCode,
    ).toBe(204);
    const res = await api.call('POST', '/api/user/password', token, here, body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ session_ended: false });
  });

  it('refuses a wrong current password with its own code, and counts it as the sign-in does', async () => {
    const a = await account();
    const before = await passwordCount(a.userId);
    const wrong = await a.change({ current: 'Not-the-password-1' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().code).toBe('wrong_current_password');
    expect(await events(a.userId, 'password_change_failed')).toHaveLength(1);
    // Past the sign-in's limit for this address, it blocks, here and at the sign-in.
    const statuses: number[] = [];
    for (let i = 2; i <= 4; i++) statuses.push((await a.change({ current: `Not-the-password-${i}` })).statusCode);
    expect(statuses[0]).toBe(422);
    expect(statuses.at(-1)).toBe(429);
    expect((await a.change({})).statusCode).toBe(429);
    expect((await a.signIn(DEMO_PASSWORD)).statusCode).toBe(429);
    expect(await passwordCount(a.userId)).toBe(before);
    expect(await a.alive(a.other, a.there)).toBe(true);
  });

  it('refuses a new password that breaks the rules, is common, was used before, or is not confirmed', async () => {
    const a = await account();
    const before = await passwordCount(a.userId);
    const weak = await a.change({ password: 'short', confirmation: 'short' });
    expect(weak.statusCode).toBe(422);
    expect(weak.json().code).toBe('weak_new_password');
    expect(weak.json().problems).toContain('too_short');
    const common = await a.change({ password: 'Password123!', confirmation: 'Password123!' });
    expect(common.json().code).toBe('common_password');
    const same = await a.change({ password: DEMO_PASSWORD, confirmation: DEMO_PASSWORD });
    expect(same.statusCode).toBe(422);
    expect(same.json().code).toBe('password_reused');
    const mismatch = await a.change({ confirmation: `${NEW_PASSWORD}x` });
    expect(mismatch.json()).toMatchObject({ code: 'weak_new_password', problems: ['mismatch'] });
    expect(await passwordCount(a.userId)).toBe(before);
    // None of these counts as a wrong current password.
    expect((await a.change({})).statusCode).toBe(200);
  });

  it('refuses a password used before the current one (the history)', async () => {
    const a = await account();
    expect((await a.change({})).statusCode).toBe(200);
    await freshMfa(server, a.userId);
    const back = await a.change({ current: NEW_PASSWORD, password: DEMO_PASSWORD, confirmation: DEMO_PASSWORD });
    expect(back.statusCode).toBe(422);
    expect(back.json().code).toBe('password_reused');
  });

  it('refuses bad input with a stable code', async () => {
    const a = await account();
    for (const body of [
      { current: '' },
      { keepThisSession: 'yes' },
      { extra: 1 },
      { current: 'x'.repeat(2000) },
      { password: 12 },
    ]) {
      const res = await a.change(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });

  it('changes it, keeps this session, ends the others, and tells the account by email in its language', async () => {
    const a = await account({ language: 'nl' });
    await server.ctx.db
      .updateTable('users')
      .set({ password_status: 1, last_password_change: LONG_AGO })
      .where('id', '=', a.userId)
      .execute();
    const mails = smtp.mails.length;
    const res = await a.change({ keepThisSession: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ session_ended: false });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await a.alive(a.token, a.here)).toBe(true);
    expect(await a.alive(a.other, a.there)).toBe(false);
    expect((await a.signIn(DEMO_PASSWORD)).statusCode).toBe(400);
    expect((await a.signIn(NEW_PASSWORD)).statusCode).not.toBe(400);
    const user = await server.ctx.db
      .selectFrom('users')
      .select(['password_status', 'last_password_change'])
      .where('id', '=', a.userId)
      .executeTakeFirstOrThrow();
    expect(user.password_status).toBe(0);
    expect(user.last_password_change! > LONG_AGO).toBe(true);
    expect(await events(a.userId, 'password_changed')).toHaveLength(1);
    const sent = smtp.mails.slice(mails).filter((m) => m.to === a.email);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.raw).toContain('Subject: Uw Tessera-wachtwoord is gewijzigd');
  });

  it('ends this session too unless kept, and clears its cookie', async () => {
    const a = await account();
    const res = await a.change({ keepThisSession: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ session_ended: true });
    expect(String(res.headers['set-cookie'])).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    expect(await a.alive(a.token, a.here)).toBe(false);
    expect(await a.alive(a.other, a.there)).toBe(false);
  });

  it('takes from the partners the tokens they hold for the account, offline ones too', async () => {
    const a = await account();
    const stranger = await makeUser(server, { methods: [] });
    const expires = nowIso(Date.now() + 3600_000);
    const token = (id: string, model: string, accountId: string) => ({
      model,
      id,
      payload: '{}',
      grant_id: `grant-${id}`,
      uid: null,
      user_code: null,
      account_id: accountId,
      client_id: 'deals-partner',
      expires_at: expires,
      consumed_at: null,
    });
    await server.ctx.db
      .insertInto('oidc_models')
      .values([
        token(`rt-${a.userId}`, 'RefreshToken', a.userId),
        token(`at-${a.userId}`, 'AccessToken', a.userId),
        token(`gr-${a.userId}`, 'Grant', a.userId),
        token(`rt-${stranger.userId}`, 'RefreshToken', stranger.userId),
      ])
      .execute();
    expect((await a.change({})).statusCode).toBe(200);
    const left = await server.ctx.db
      .selectFrom('oidc_models')
      .select(['model', 'account_id'])
      .where('account_id', 'in', [a.userId, stranger.userId])
      .orderBy('model')
      .execute();
    expect(left).toEqual([
      { model: 'Grant', account_id: a.userId },
      { model: 'RefreshToken', account_id: stranger.userId },
    ]);
  });

  it('changes it once when thirty changes with the right current password arrive at once', async () => {
    const a = await account();
    const before = await passwordCount(a.userId);
    const mails = smtp.mails.filter((m) => m.to === a.email).length;
    const answers = await atOnce(30, (i) => {
      const password = `Racing-change-${String(i).padStart(2, '0')}`;
      return a.change({ password, confirmation: password, keepThisSession: i % 2 === 0 });
    });
    const counts = statusCounts(answers);
    expect(counts[200]).toBe(1);
    expect(Object.keys(counts).sort()).toEqual(['200', '422']);
    expect(answers.filter((r) => r.statusCode === 422).every((r) => r.json().code === 'wrong_current_password')).toBe(
      true,
    );
    expect(await passwordCount(a.userId)).toBe(before + 1);
    expect(await events(a.userId, 'password_changed')).toHaveLength(1);
    expect(smtp.mails.filter((m) => m.to === a.email).length).toBe(mails + 1);
    const winner = answers.findIndex((r) => r.statusCode === 200);
    expect((await a.signIn(`Racing-change-${String(winner).padStart(2, '0')}`)).statusCode).not.toBe(400);
    expect((await a.signIn(DEMO_PASSWORD)).statusCode).toBe(400);
  });
});
