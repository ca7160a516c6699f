// The new-device mail: a sign-in from a device the account never used mails its owner in their
// language (browser, system, country, time), at most once an hour; its "this wasn't me" link ends
// that sign-in and leads to choosing a new password.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';
import { makeUser } from '../testing/mfaKit.ts';
import { loadCityDatabase } from '../clientinfo/index.ts';
import { writeCityDatabase } from '../clientinfo/mmdb.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const kinds = await databaseKinds();
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const BELGIAN_IP = '81.246.0.1';

describe.each(kinds)('new-device mail on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  async function signIn(email: string, device: string, ip?: string) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { 'x-device-id': device, 'user-agent': FIREFOX, host: 'account.localhost' },
      payload: { username: email, password: DEMO_PASSWORD },
      ...(ip ? { remoteAddress: ip } : {}),
    });
    expect(res.statusCode).toBe(200);
    return { 'x-device-id': device, authorization: `Bearer ${res.json().access_token as string}` };
  }
  // The harness delivers the mail queued before the sign-in's records: the records' own comes after.
  const mailsTo = async (email: string) => {
    await server.ctx.signInRecords.drain();
    await server.ctx.outbox.drain();
    return server.ctx.db
      .selectFrom('outbox')
      .select(['subject', 'body'])
      .where('recipient', '=', email)
      .orderBy('created_at')
      .execute();
  };
  // The link names the page of the app; its ticket is in the hash, which the page posts to the API.
  const linkIn = (body: string) => new URL(/https?:\/\/\S+\/devices\/not-me#[\w-]+/.exec(body)![0]);
  const notMe = (payload: object) =>
    server.app.inject({
      method: 'POST',
      url: '/api/devices/not-me',
      headers: { 'x-device-id': 'notme-owner-01' },
      payload,
    });
  const alive = async (auth: Record<string, string>) =>
    (await server.app.inject({ method: 'GET', url: '/api/devices', headers: auth })).statusCode === 200;

  it("mails nothing for an account's first device nor a known one, then mails once, in the person's language, for a new one", async () => {
    const { email } = await makeUser(server, { methods: [], language: 'fr' });
    await signIn(email, 'alert-first-01');
    await signIn(email, 'alert-first-01');
    expect(await mailsTo(email)).toEqual([]);
    await signIn(email, 'alert-new-01', BELGIAN_IP);
    const mails = await mailsTo(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Nouvelle connexion à votre compte Tessera');
    expect(mails[0]!.body).toContain('Firefox 128.0, Windows 10');
    expect(mails[0]!.body).toContain('Belgique');
    expect(mails[0]!.body).toContain(String(new Date().getFullYear()));
    // The configured Belgian origin (the test default, as npm start serves it), the ticket in the hash.
    const link = linkIn(mails[0]!.body);
    expect(link.origin).toBe('http://account.localhost:3000');
    expect(link.search).toBe('');
  });

  it("names the city too where a city database is configured (GEOIP_CITY_DB), in the person's language, and so does the devices list", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tessera-cities-')), 'cities.mmdb');
    writeFileSync(
      file,
      writeCityDatabase([{ prefix: '81.246.0.0/16', city: 'Brussels', country: 'BE', names: { fr: 'Bruxelles' } }]),
    );
    loadCityDatabase(file);
    try {
      const { email } = await makeUser(server, { methods: [], language: 'fr' });
      await signIn(email, 'city-first-01');
      const auth = await signIn(email, 'city-new-01', BELGIAN_IP);
      const mails = await mailsTo(email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.body).toContain('Lieu : Bruxelles, Belgique');
      const list = await server.app.inject({
        method: 'GET',
        url: '/api/devices',
        headers: { ...auth, 'accept-language': 'en' },
      });
      expect(list.json().data.find((d: { current: boolean }) => d.current)).toMatchObject({
        country: 'BE',
        city: 'Brussels',
      });
    } finally {
      loadCityDatabase(null);
    }
  });

  it('mails at most once an hour per account', async () => {
    const { email } = await makeUser(server, { methods: [] });
    await signIn(email, 'hourly-first-01');
    await signIn(email, 'hourly-new-01');
    await signIn(email, 'hourly-new-02');
    expect(await mailsTo(email)).toHaveLength(1);
    // An hour later, a new device mails again.
    await server.ctx.db
      .updateTable('security_events')
      .set({ created_at: new Date(Date.now() - 3601_000).toISOString() })
      .where('type', '=', 'new_device_alert')
      .execute();
    await signIn(email, 'hourly-new-03');
    expect(await mailsTo(email)).toHaveLength(2);
  });

  it('of many sign-ins from new devices at once, mails one', async () => {
    const { email } = await makeUser(server, { methods: [] });
    await signIn(email, 'burst-first-01');
    const answers = await atOnce(12, (i) =>
      passwordSignIn(server, email, DEMO_PASSWORD, {
        'x-device-id': `burst-new-${String(i).padStart(2, '0')}`,
        'user-agent': FIREFOX,
      }),
    );
    expect(statusCounts(answers)).toEqual({ 200: 12 });
    await server.ctx.signInRecords.drain();
    await server.ctx.outbox.drain();
    expect(await mailsTo(email)).toHaveLength(1);
  });

  it('"this wasn\'t me" ends that sign-in only, and leads to a new password; a link used or malformed does no harm', async () => {
    const { email, userId } = await makeUser(server, { methods: [] });
    const mine = await signIn(email, 'notme-first-01');
    const theirs = await signIn(email, 'notme-stranger-01');
    const ticket = linkIn((await mailsTo(email))[0]!.body).hash.slice(1);
    // The page of the link posts its ticket, with the browser's device id but no session.
    const res = await notMe({ ticket });
    expect(res.statusCode, res.body).toBe(204);
    // The browser that opened it is signed out too, so that it shows the forgotten-password screen.
    expect(String(res.headers['set-cookie'])).toMatch(/^tessera_token=;/);
    expect(await alive(theirs)).toBe(false);
    expect(await alive(mine)).toBe(true);
    const rejected = await server.ctx.db
      .selectFrom('security_events')
      .select('id')
      .where('user_id', '=', userId)
      .where('type', '=', 'new_device_rejected')
      .execute();
    expect(rejected).toHaveLength(1);
    // Again: the same answer, nothing more recorded.
    expect((await notMe({ ticket })).statusCode).toBe(204);
    expect(
      await server.ctx.db
        .selectFrom('security_events')
        .select('id')
        .where('user_id', '=', userId)
        .where('type', '=', 'new_device_rejected')
        .execute(),
    ).toHaveLength(1);
    for (const payload of [
      {},
      { ticket: '' },
      { ticket: "' or 1=1" },
      { ticket: 'a'.repeat(500) },
      { ticket, extra: 1 },
    ]) {
      const bad = await notMe(payload);
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().code).toBe('validation_failed');
    }
    // The old way, the ticket in the query, is gone from the server: the path is the app's page.
    expect((await server.app.inject({ method: 'GET', url: `/devices/not-me?ticket=${ticket}` })).statusCode).toBe(404);
  });
});
