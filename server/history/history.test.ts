// The security history (GET /api/history, GET /api/history/summary): the account's own events only,
// a page at a time without gaps or repeats, within the days and categories asked for, described by
// device and country; sign-ins per day for the graph; bad input is a 400 with a stable code.
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { HISTORY_PAGE_SIZE, addDays, dayOf } from '../../contract/history.ts';
import { HistoryPage, HistorySummary } from '../../contract/schemas.ts';
import { countryOf } from '../clientinfo/index.ts';
import { historyQuery } from './queries.ts';
import { writeEvents, type SecurityEvent, type SecurityEventType } from '../events/record.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, passwordSignIn, startTestServer, userIdByEmail, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const rita = DEMO_USERS.find((u) => u.key === 'reset')!;
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const DAY = 86_400_000;

describe.each(kinds)('security history on %s', (kind) => {
  let server: TestServer;
  let emmaCookie: string;
  let ritaCookie: string;
  let emmaId: string;
  let ritaId: string;
  const today = dayOf(Date.now());

  const userIdOf = (email: string) => userIdByEmail(server, email);

  async function signIn(email: string, device: string) {
    const res = await passwordSignIn(server, email, DEMO_PASSWORD, { 'x-device-id': device, 'user-agent': FIREFOX });
    expect(res.statusCode).toBe(200);
    return res.cookies.find((c) => c.name === 'tessera_token')!;
  }

  const get = (url: string, cookie = emmaCookie) =>
    server.app.inject({ method: 'GET', url, headers: { 'x-device-id': 'history-emma-1', cookie } });

  async function page(query: string, cookie = emmaCookie) {
    const res = await get(`/api/history${query}`, cookie);
    expect(res.statusCode, res.body).toBe(200);
    return v.parse(HistoryPage, res.json());
  }

  /** Every page of a query, following `next`. */
  async function all(query: string, cookie = emmaCookie) {
    const events = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const sep = query ? '&' : '?';
      const answer = await page(next ? `${query}${sep}cursor=${next}` : query, cookie);
      events.push(...answer.data);
      next = answer.next;
      pages += 1;
    } while (next && pages < 100);
    return { events, pages };
  }

  beforeAll(async () => {
    server = await startTestServer(kind);
    const emmaToken = await signIn(emma.email, 'history-emma-1');
    emmaCookie = `${emmaToken.name}=${emmaToken.value}`;
    const ritaToken = await signIn(rita.email, 'history-rita-1');
    ritaCookie = `${ritaToken.name}=${ritaToken.value}`;
    emmaId = await userIdOf(emma.email);
    ritaId = await userIdOf(rita.email);
  });
  afterAll(async () => server?.stop());

  it('is for a signed-in account only', async () => {
    for (const url of ['/api/history', '/api/history/summary']) {
      const res = await server.app.inject({ method: 'GET', url, headers: { 'x-device-id': 'history-anon-1' } });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
  });

  it('lists the sign-in just made, with its browser and operating system', async () => {
    const answer = await page('');
    expect(answer.from).toBe(addDays(today, -29));
    expect(answer.to).toBe(today);
    const signIn = answer.data.find((e) => e.type === 'login_succeeded')!;
    expect(signIn).toMatchObject({
      category: 'sign_in',
      browser: 'Firefox 128.0',
      os: 'Windows 10',
      platform: 'desktop',
      country: null,
    });
  });

  it('pages through every event of the range, newest first, without gaps or repeats, even with equal times', async () => {
    const base = Date.now() - 3 * DAY;
    const events: SecurityEvent[] = Array.from({ length: 57 }, (_, i) => ({
      // Three events share each moment: the id orders them.
      type: i % 2 ? 'login_failed' : 'mfa_method_added',
      userId: emmaId,
      ip: '8.8.8.8',
      deviceKey: 'history-emma-1',
      at: new Date(base - Math.floor(i / 3) * 60_000).toISOString(),
    }));
    await writeEvents(server.ctx.db, events);
    const expected = await server.ctx.db
      .selectFrom('security_events')
      .select(['id', 'created_at'])
      .where('user_id', '=', emmaId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();

    const { events: listed, pages } = await all('');
    expect(pages).toBe(Math.ceil(expected.length / HISTORY_PAGE_SIZE));
    expect(listed.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    expect(new Set(listed.map((e) => e.id)).size).toBe(listed.length);
    const failed = listed.find((e) => e.type === 'login_failed')!;
    expect(failed.country).toBe(countryOf('8.8.8.8'));
    expect(failed.country).toMatch(/^[A-Z]{2}$/);

    // An event written while the person pages does not shift the pages already given.
    const first = await page('');
    await writeEvents(server.ctx.db, [{ type: 'logout', userId: emmaId, ip: null, deviceKey: null }]);
    const second = await page(`?cursor=${first.next}`);
    expect(second.data[0]!.id).toBe(expected[HISTORY_PAGE_SIZE]!.id);
  });

  it('filters by categories, unknown types showing under "other"', async () => {
    await writeEvents(server.ctx.db, [
      { type: 'some_future_event' as SecurityEventType, userId: emmaId, ip: null, deviceKey: null },
      { type: 'partner_access_revoked', userId: emmaId, ip: null, deviceKey: null },
    ]);
    const other = await all('?categories=other');
    expect(other.events.map((e) => [e.type, e.category])).toEqual([['some_future_event', 'other']]);
    const some = await all('?categories=failed_sign_in,access');
    expect(new Set(some.events.map((e) => e.category))).toEqual(new Set(['failed_sign_in', 'access']));
    expect(some.events.filter((e) => e.type === 'login_failed')).toHaveLength(28);
    const everything = await all('?categories=all');
    expect(everything.events.length).toBe((await all('')).events.length);
    expect(everything.events.map((e) => e.type)).toContain('some_future_event');
  });

  it('filters by days, both ends included, in UTC', async () => {
    const day = addDays(today, -40);
    await writeEvents(server.ctx.db, [
      { type: 'password_changed', userId: emmaId, ip: null, deviceKey: null, at: `${day}T00:00:00.000Z` },
      { type: 'password_changed', userId: emmaId, ip: null, deviceKey: null, at: `${day}T23:59:59.999Z` },
      { type: 'password_changed', userId: emmaId, ip: null, deviceKey: null, at: `${addDays(day, 1)}T00:00:00.000Z` },
      { type: 'password_changed', userId: emmaId, ip: null, deviceKey: null, at: `${addDays(day, -1)}T23:59:59.999Z` },
    ]);
    // The default range (the last 30 days) leaves them out.
    expect((await all('')).events.some((e) => e.type === 'password_changed')).toBe(false);
    expect((await all(`?from=${day}&to=${day}`)).events.map((e) => e.at)).toEqual([
      `${day}T23:59:59.999Z`,
      `${day}T00:00:00.000Z`,
    ]);
    expect((await all(`?from=${addDays(day, -1)}&to=${addDays(day, 1)}&categories=password`)).events).toHaveLength(4);
  });

  it('counts successful sign-ins per day, every day of the range listed', async () => {
    const day = addDays(today, -60);
    await writeEvents(server.ctx.db, [
      ...Array.from({ length: 3 }, (_, i) => ({
        type: 'login_succeeded' as const,
        userId: emmaId,
        ip: null,
        deviceKey: null,
        at: `${day}T0${i}:00:00.000Z`,
      })),
      { type: 'login_succeeded', userId: emmaId, ip: null, deviceKey: null, at: `${addDays(day, 2)}T12:00:00.000Z` },
      { type: 'login_failed', userId: emmaId, ip: null, deviceKey: null, at: `${day}T05:00:00.000Z` },
      // Another account's sign-ins are not counted.
      { type: 'login_succeeded', userId: ritaId, ip: null, deviceKey: null, at: `${day}T06:00:00.000Z` },
    ]);
    const res = await get(`/api/history/summary?from=${addDays(day, -1)}&to=${addDays(day, 2)}`);
    expect(res.statusCode).toBe(200);
    expect(v.parse(HistorySummary, res.json()).days).toEqual([
      { date: addDays(day, -1), sign_ins: 0 },
      { date: day, sign_ins: 3 },
      { date: addDays(day, 1), sign_ins: 0 },
      { date: addDays(day, 2), sign_ins: 1 },
    ]);
    const recent = v.parse(HistorySummary, (await get('/api/history/summary')).json());
    expect(recent.days).toHaveLength(30);
    expect(recent.days.at(-1)).toMatchObject({ date: today });
    expect(recent.days.at(-1)!.sign_ins).toBeGreaterThanOrEqual(1);
  });

  it("never shows another account's events", async () => {
    await writeEvents(server.ctx.db, [
      { type: 'iban_changed' as SecurityEventType, userId: ritaId, ip: '8.8.8.8', deviceKey: 'history-emma-1' },
      { type: 'logout', userId: ritaId, ip: null, deviceKey: null, at: new Date(Date.now() - 10 * DAY).toISOString() },
      ...Array.from({ length: HISTORY_PAGE_SIZE + 5 }, () => ({
        type: 'logout' as const,
        userId: emmaId,
        ip: null,
        deviceKey: null,
        at: new Date(Date.now() - 5 * DAY).toISOString(),
      })),
    ]);
    const ritas = (await all('', ritaCookie)).events;
    expect(ritas.map((e) => e.type).sort()).toEqual(['iban_changed', 'login_succeeded', 'logout']);
    // Rita's event names emma's device key: no device of hers has it, so nothing is described.
    expect(ritas.find((e) => e.type === 'iban_changed')).toMatchObject({
      category: 'banking',
      browser: null,
      os: null,
    });
    const emmas = (await all('?categories=banking')).events;
    expect(emmas).toEqual([]);
    // A cursor from another account's pages leads only to one's own events.
    const emmaFirst = await page('');
    expect(emmaFirst.next).not.toBeNull();
    const crossed = await page(`?cursor=${emmaFirst.next}`, ritaCookie);
    expect(crossed.data.map((e) => e.type)).toEqual(['logout']);
    const ritaIds = new Set(ritas.map((e) => e.id));
    for (const event of crossed.data) expect(ritaIds.has(event.id)).toBe(true);
    const emmaRows = await server.ctx.db
      .selectFrom('security_events')
      .select('id')
      .where('user_id', '=', emmaId)
      .execute();
    const emmaIds = new Set(emmaRows.map((row) => row.id));
    expect(ritas.some((e) => emmaIds.has(e.id))).toBe(false);
  });

  it("reads a page through the account's index on (user_id, created_at), never the whole table", async () => {
    const compiled = historyQuery(server.ctx.db, emmaId, {
      range: { from: addDays(today, -29), to: today },
      categories: ['sign_in', 'other'],
      cursor: { at: new Date().toISOString(), id: '00000000-0000-0000-0000-000000000000' },
    }).compile();
    const plan =
      kind === 'sqlite'
        ? (
            await server.ctx.db.executeQuery(
              CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
            )
          ).rows
        : // A table this small would be read whole: the plan asked of PostgreSQL is the one without that choice.
          await server.ctx.db.transaction().execute(async (trx) => {
            await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
            return (await trx.executeQuery(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters])))
              .rows;
          });
    const text = JSON.stringify(plan);
    expect(text).toContain('security_events_user_idx');
    expect(text).not.toMatch(/SCAN e\b|Seq Scan on security_events/);
  });

  it('refuses a malformed or inverted range, an unknown category or cursor with a 400, never a 500', async () => {
    const cases: Array<[string, string]> = [
      ['/api/history?from=2026-13-01', 'invalid_date_range'],
      ['/api/history?from=2026-02-30&to=2026-03-01', 'invalid_date_range'],
      ['/api/history?from=2026-11-02&to=2026-11-01', 'invalid_date_range'],
      ['/api/history?from=20261101', 'invalid_date_range'],
      ['/api/history?to=yesterday', 'invalid_date_range'],
      ['/api/history?from=2024-01-01&to=2026-01-01', 'invalid_date_range'],
      ['/api/history/summary?from=2026-11-02&to=2026-11-01', 'invalid_date_range'],
      ['/api/history/summary?from=2026-11-31', 'invalid_date_range'],
      ['/api/history?categories=nonsense', 'validation_failed'],
      ['/api/history?categories=sign_in,,other', 'validation_failed'],
      ['/api/history?categories=sign_in&categories=other', 'validation_failed'],
      ['/api/history?cursor=bm90LWpzb24', 'invalid_request'],
      [`/api/history?cursor=${Buffer.from('["2026-11-01T00:00:00.000Z",5]').toString('base64url')}`, 'invalid_request'],
      ['/api/history?cursor=%27%3B--', 'validation_failed'],
      ['/api/history?page=2', 'validation_failed'],
    ];
    for (const [url, code] of cases) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().code, url).toBe(code);
    }
  });
});
