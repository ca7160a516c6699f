// The notifications settings (GET and PUT /api/notifications): the marketing preferences given at
// onboarding, changed later, each answer kept as a consent row; the security alerts always listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { NotificationsAnswer } from '../../contract/schemas.ts';
import { nowIso } from '../db/index.ts';
import { recordConsents } from '../identity/consents.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { client, makeUser, sessionFor } from '../testing/mfaKit.ts';

const kinds = await databaseKinds();

describe.each(kinds)('notifications on %s', (kind) => {
  let server: TestServer;
  let deviceNumber = 0;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  async function account() {
    const user = await makeUser(server, { methods: [] });
    const device = `notify-device-${String(++deviceNumber).padStart(3, '0')}`;
    const token = await sessionFor(server, user.userId, device);
    const api = client(server);
    const read = async () => {
      const res = await api.call('GET', '/api/notifications', token, device);
      expect(res.statusCode).toBe(200);
      return v.parse(NotificationsAnswer, res.json());
    };
    const put = (body: unknown) =>
      server.app.inject({
        method: 'PUT',
        url: '/api/notifications',
        headers: { 'x-device-id': device, authorization: `Bearer ${token}` },
        payload: body as object,
      });
    return { ...user, read, put };
  }

  it('needs a session', async () => {
    for (const method of ['GET', 'PUT'] as const) {
      const res = await server.app.inject({
        method,
        url: '/api/notifications',
        headers: { 'x-device-id': 'notify-nobody-01' },
        ...(method === 'PUT' ? { payload: { marketing: { email: true, sms: true, partners: true } } } : {}),
      });
      expect(res.statusCode).toBe(401);
    }
  });

  it('shows the preferences given at onboarding, and the security alerts always sent', async () => {
    const a = await account();
    expect(await a.read()).toEqual({
      marketing: { email: false, sms: false, partners: false },
      security_alerts: ['new_device', 'password_changed', 'contact_changed', 'iban_changed'],
    });
    await recordConsents(
      server.ctx.db,
      a.userId,
      { terms: true, privacy: true, marketing: { email: true, sms: false, partners: true } },
      nowIso(),
    );
    expect((await a.read()).marketing).toEqual({ email: true, sms: false, partners: true });
  });

  it('changes them, keeping every answer given', async () => {
    const a = await account();
    await recordConsents(
      server.ctx.db,
      a.userId,
      { terms: true, privacy: true, marketing: { email: true, sms: true, partners: true } },
      nowIso(),
    );
    const res = await a.put({ marketing: { email: false, sms: true, partners: false } });
    expect(res.statusCode).toBe(200);
    expect(res.json().marketing).toEqual({ email: false, sms: true, partners: false });
    // At once again: the newest answer wins, even within the same millisecond.
    expect((await a.put({ marketing: { email: true, sms: false, partners: false } })).json().marketing).toEqual({
      email: true,
      sms: false,
      partners: false,
    });
    expect((await a.read()).marketing).toEqual({ email: true, sms: false, partners: false });
    const rows = await server.ctx.db.selectFrom('consents').select('kind').where('user_id', '=', a.userId).execute();
    expect(rows.filter((r) => r.kind === 'marketing_email')).toHaveLength(3);
    expect(rows.filter((r) => r.kind === 'terms')).toHaveLength(1);
  });

  it('refuses bad input with a stable code and changes nothing', async () => {
    const a = await account();
    for (const body of [
      {},
      { marketing: { email: true } },
      { marketing: { email: 'yes', sms: false, partners: false } },
      { marketing: { email: true, sms: true, partners: true }, terms: false },
    ]) {
      const res = await a.put(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
    expect((await a.read()).marketing).toEqual({ email: false, sms: false, partners: false });
  });

  it('takes thirty changes at once, and shows one of them whole', async () => {
    const a = await account();
    const choices = Array.from({ length: 30 }, (_, i) => ({
      email: i % 2 === 0,
      sms: i % 3 === 0,
      partners: i % 5 === 0,
    }));
    const answers = await atOnce(30, (i) => a.put({ marketing: choices[i] }));
    expect(statusCounts(answers)).toEqual({ 200: 30 });
    const shown = (await a.read()).marketing;
    expect(choices.some((c) => JSON.stringify(c) === JSON.stringify(shown))).toBe(true);
  });
});
