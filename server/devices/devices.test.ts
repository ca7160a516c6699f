// Devices and sessions (GET /api/devices, DELETE /api/devices/{id}/sessions, DELETE
// /api/sessions/others, DELETE /api/sessions): what a device shows, signing one out, every other
// one, or everywhere; strangers' and malformed ids; a race of sign-outs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { DeviceList } from '../../contract/schemas.ts';
import { countryOf } from '../clientinfo/index.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { newId } from '../sessions/tokens.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, userIdByEmail, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const rita = DEMO_USERS.find((u) => u.key === 'reset')!;

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
/** A public address of a Belgian provider, and its country by the shared table. */
const BELGIAN_IP = '81.246.0.1';

describe.each(kinds)('devices and sessions on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  /** A sign-in from a device: its bearer headers. */
  async function signIn(
    email: string,
    device: string,
    userAgent: string,
    extra: { ip?: string; clientId?: string } = {},
  ) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { 'x-device-id': device, 'user-agent': userAgent },
      payload: { username: email, password: DEMO_PASSWORD, ...(extra.clientId ? { client_id: extra.clientId } : {}) },
      ...(extra.ip ? { remoteAddress: extra.ip } : {}),
    });
    expect(res.statusCode).toBe(200);
    return {
      'x-device-id': device,
      'user-agent': userAgent,
      authorization: `Bearer ${res.json().access_token as string}`,
    };
  }

  async function list(auth: Record<string, string>) {
    const res = await server.app.inject({ method: 'GET', url: '/api/devices', headers: auth });
    expect(res.statusCode).toBe(200);
    return v.parse(DeviceList, res.json()).data;
  }

  const call = (method: 'DELETE', url: string, auth: Record<string, string>) =>
    server.app.inject({ method, url, headers: auth });
  const userIdOf = (email: string) => userIdByEmail(server, email);
  const events = async (userId: string, type: string) =>
    server.ctx.db
      .selectFrom('security_events')
      .select(['detail'])
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .execute();
  /** Every session of the user back to live (each test starts from signed-in devices). */
  const liveSessions = async (userId: string) =>
    server.ctx.db
      .selectFrom('sessions')
      .select(['id', 'device_key'])
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();

  it('is for a signed-in user only', async () => {
    for (const [method, url] of [
      ['GET', '/api/devices'],
      ['DELETE', `/api/devices/${newId()}/sessions`],
      ['DELETE', '/api/sessions/others'],
      ['DELETE', '/api/sessions'],
    ] as const) {
      const res = await server.app.inject({ method, url, headers: { 'x-device-id': 'nobody-device-01' } });
      expect(res.statusCode, url).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
  });

  it('describes each device: browser, system, country, first and last use, services, status, the current one, its live sessions', async () => {
    const laptop = await signIn(emma.email, 'describe-laptop-01', FIREFOX, { ip: BELGIAN_IP, clientId: '2' });
    await signIn(emma.email, 'describe-phone-01', IPHONE);
    await signIn(emma.email, 'describe-phone-01', IPHONE);
    const devices = await list(laptop);
    const mine = devices.find((d) => d.current)!;
    expect(mine).toMatchObject({
      browser: 'Firefox 128.0',
      os: 'Windows 10',
      platform: 'desktop',
      country: countryOf(BELGIAN_IP),
      status: 'active',
      sessions: 1,
    });
    expect(countryOf(BELGIAN_IP)).toBe('BE');
    expect(mine.services).toEqual([{ client_id: '2', name: 'Client area' }]);
    // Services are named in the caller's language.
    const inFrench = await server.app.inject({
      method: 'GET',
      url: '/api/devices',
      headers: { ...laptop, 'accept-language': 'fr' },
    });
    expect(v.parse(DeviceList, inFrench.json()).data.find((d) => d.current)!.services).toEqual([
      { client_id: '2', name: 'Espace client' },
    ]);
    expect(Date.parse(mine.first_seen_at)).toBeLessThanOrEqual(Date.parse(mine.last_seen_at));
    const phone = devices.find((d) => !d.current && d.user_agent === IPHONE)!;
    // A loopback address has no country.
    expect(phone).toMatchObject({
      browser: 'Safari 18.1',
      os: 'iOS 18.1',
      platform: 'mobile',
      country: null,
      status: 'active',
      sessions: 2,
      services: [],
      current: false,
    });
    expect(devices.filter((d) => d.current)).toHaveLength(1);
  });

  it('signs one device out: all its sessions at once, recorded once; asking again is no error', async () => {
    const userId = await userIdOf(emma.email);
    const laptop = await signIn(emma.email, 'one-laptop-01', FIREFOX);
    const phoneA = await signIn(emma.email, 'one-phone-01', IPHONE);
    const phoneB = await signIn(emma.email, 'one-phone-01', IPHONE);
    const phoneId = await deviceIdOf(userId, 'one-phone-01');
    const phone = (await list(laptop)).find((d) => d.id === phoneId)!;
    expect(phone).toMatchObject({ status: 'active', sessions: 2, current: false });
    const before = (await events(userId, 'device_logged_out')).length;
    const res = await call('DELETE', `/api/devices/${phone.id}/sessions`, laptop);
    expect(res.statusCode).toBe(204);
    // The phone's tokens are dead; the laptop's lives.
    for (const auth of [phoneA, phoneB])
      expect((await server.app.inject({ method: 'GET', url: '/api/devices', headers: auth })).statusCode).toBe(401);
    const after = await list(laptop);
    expect(after.find((d) => d.id === phone.id)).toMatchObject({ status: 'signed_out', sessions: 0 });
    expect(after.find((d) => d.current)).toMatchObject({ status: 'active' });
    expect(await events(userId, 'device_logged_out')).toHaveLength(before + 1);
    // Again: already out, nothing more recorded.
    expect((await call('DELETE', `/api/devices/${phone.id}/sessions`, laptop)).statusCode).toBe(204);
    expect(await events(userId, 'device_logged_out')).toHaveLength(before + 1);
  });

  async function deviceIdOf(userId: string, key: string) {
    return (
      await server.ctx.db
        .selectFrom('devices')
        .select('id')
        .where('user_id', '=', userId)
        .where('device_key', '=', key)
        .executeTakeFirstOrThrow()
    ).id;
  }

  it("answers 404 to a stranger's id and to another account's device, 400 to a malformed one", async () => {
    const laptop = await signIn(emma.email, 'stranger-laptop-01', FIREFOX);
    await signIn(rita.email, 'rita-device-01', FIREFOX);
    const ritasDevice = await deviceIdOf(await userIdOf(rita.email), 'rita-device-01');
    for (const id of [newId(), ritasDevice]) {
      const res = await call('DELETE', `/api/devices/${id}/sessions`, laptop);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    // Rita's device stays signed in.
    expect((await liveSessions(await userIdOf(rita.email))).length).toBeGreaterThan(0);
    for (const id of ['not-a-uuid', '1', `${newId()}x`, '%27%20or%201=1']) {
      const res = await call('DELETE', `/api/devices/${id}/sessions`, laptop);
      expect(res.statusCode, id).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });

  it('signs out everywhere else: every session but this one', async () => {
    const userId = await userIdOf(emma.email);
    const laptop = await signIn(emma.email, 'others-laptop-01', FIREFOX);
    const phone = await signIn(emma.email, 'others-phone-01', IPHONE);
    const res = await call('DELETE', '/api/sessions/others', laptop);
    expect(res.statusCode).toBe(204);
    expect((await server.app.inject({ method: 'GET', url: '/api/devices', headers: phone })).statusCode).toBe(401);
    const live = await liveSessions(userId);
    expect(live.map((s) => s.device_key)).toEqual(['others-laptop-01']);
    expect((await list(laptop)).filter((d) => d.status === 'active').map((d) => d.current)).toEqual([true]);
    expect((await events(userId, 'logout_others')).length).toBeGreaterThan(0);
  });

  it("signs out everywhere: every session, this one too, the cookie and the applications' refresh tokens", async () => {
    const userId = await userIdOf(emma.email);
    const laptop = await signIn(emma.email, 'global-laptop-01', FIREFOX);
    const phone = await signIn(emma.email, 'global-phone-01', IPHONE);
    const refreshToken = {
      model: 'RefreshToken',
      id: newId(),
      payload: JSON.stringify({ accountId: userId }),
      grant_id: null,
      uid: null,
      user_code: null,
      expires_at: '2999-01-01T00:00:00.000Z',
      consumed_at: null,
      account_id: userId,
      client_id: 'deals-partner',
    };
    await server.ctx.db.insertInto('oidc_models').values(refreshToken).execute();
    const res = await call('DELETE', '/api/sessions', laptop);
    expect(res.statusCode).toBe(204);
    expect(res.headers['set-cookie']).toBeDefined();
    for (const auth of [laptop, phone])
      expect((await server.app.inject({ method: 'GET', url: '/api/devices', headers: auth })).statusCode).toBe(401);
    expect(await liveSessions(userId)).toEqual([]);
    const left = await server.ctx.db
      .selectFrom('oidc_models')
      .select('id')
      .where('model', '=', 'RefreshToken')
      .where('account_id', '=', userId)
      .execute();
    expect(left).toEqual([]);
    expect((await events(userId, 'logout_everywhere')).length).toBe(1);
  });

  it('of thirty sign-outs of one device sent at once, all succeed and exactly one records it; none is left half done', async () => {
    const userId = await userIdOf(emma.email);
    const laptop = await signIn(emma.email, 'race-laptop-01', FIREFOX);
    for (let i = 0; i < 3; i++) await signIn(emma.email, 'race-phone-01', IPHONE);
    const phone = await deviceIdOf(userId, 'race-phone-01');
    const before = (await events(userId, 'device_logged_out')).length;
    const answers = await atOnce(30, () => call('DELETE', `/api/devices/${phone}/sessions`, laptop));
    expect(statusCounts(answers)).toEqual({ 204: 30 });
    const recorded = await events(userId, 'device_logged_out');
    expect(recorded).toHaveLength(before + 1);
    expect(JSON.parse(recorded.at(-1)!.detail!)).toMatchObject({ device: phone, sessions: 3 });
    expect((await liveSessions(userId)).filter((s) => s.device_key === 'race-phone-01')).toEqual([]);
  });
});
