// A sign-in's event and device sighting are written after its answer, from the session row: they
// do get written, whoever reads devices sees them at once, shutdown writes what waits, a crash
// loses nothing (the next start writes it), and two instances never write one twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { openDatabase } from '../db/index.ts';
import { DEMO_PASSWORD, DEMO_USERS, seedDemo } from '../seed/demo.ts';
import {
  createPostgresDatabase,
  databaseKinds,
  passwordSignIn,
  startTestServer,
  userIdByEmail,
  type DatabaseKind,
  type TestServer,
} from '../testing/harness.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;

const signIn = (app: App, device: string, userAgent = 'records-test') =>
  passwordSignIn(app, emma.email, DEMO_PASSWORD, { 'x-device-id': device, 'user-agent': userAgent });

async function userIdOf(app: App): Promise<string> {
  return userIdByEmail(app, emma.email);
}

async function signInEvents(app: App, userId: string) {
  return app.ctx.db
    .selectFrom('security_events')
    .select(['ip', 'device_key', 'detail', 'created_at'])
    .where('user_id', '=', userId)
    .where('type', '=', 'login_succeeded')
    .orderBy('created_at')
    .execute();
}

describe.each(kinds)('sign-in records on %s', (kind) => {
  let server: TestServer;
  // The test sees the answer before the records: nothing waits for them on its behalf.
  beforeAll(async () => {
    server = await startTestServer(kind, {}, { settleMessages: false });
  });
  afterAll(async () => server?.stop());

  it('writes the event and the device after the answer, dated by the sign-in, and links the session to its device', async () => {
    const userId = await userIdOf(server);
    const res = await signIn(server, 'records-device-01', 'Browser/1.0');
    expect(res.statusCode).toBe(200);
    await server.ctx.signInRecords.drain();
    expect(await server.ctx.signInRecords.pending()).toBe(0);

    const session = await server.ctx.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('device_key', '=', 'records-device-01')
      .executeTakeFirstOrThrow();
    expect(session.pending_record).toBeNull();
    const device = await server.ctx.db
      .selectFrom('devices')
      .selectAll()
      .where('user_id', '=', userId)
      .where('device_key', '=', 'records-device-01')
      .executeTakeFirstOrThrow();
    expect(device).toMatchObject({
      id: session.device_id,
      user_agent: 'Browser/1.0',
      first_seen_at: session.created_at,
      last_seen_at: session.created_at,
    });
    const events = (await signInEvents(server, userId)).filter((e) => e.device_key === 'records-device-01');
    expect(events).toEqual([
      {
        ip: session.ip,
        device_key: 'records-device-01',
        detail: JSON.stringify({ mfa: false }),
        created_at: session.created_at,
      },
    ]);
  });

  it('shows a device signed in from just now as current, without waiting for the worker', async () => {
    const token = (await signIn(server, 'records-device-02')).json().access_token as string;
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/devices',
      headers: { 'x-device-id': 'records-device-02', authorization: `Bearer ${token}` },
    });
    expect(list.statusCode).toBe(200);
    const current = (list.json().data as Array<{ current: boolean; last_seen_at: string }>).filter((d) => d.current);
    expect(current).toHaveLength(1);
  });

  it('writes many sign-ins of one device as one device, seen first at the first and last at the last', async () => {
    const userId = await userIdOf(server);
    for (let i = 0; i < 5; i++)
      expect((await signIn(server, 'records-device-03', `Browser/${i}`)).statusCode).toBe(200);
    await server.ctx.signInRecords.drain();
    const sessions = await server.ctx.db
      .selectFrom('sessions')
      .select(['created_at', 'device_id'])
      .where('device_key', '=', 'records-device-03')
      .orderBy('created_at')
      .execute();
    const device = await server.ctx.db
      .selectFrom('devices')
      .selectAll()
      .where('user_id', '=', userId)
      .where('device_key', '=', 'records-device-03')
      .executeTakeFirstOrThrow();
    expect(device).toMatchObject({
      first_seen_at: sessions[0]!.created_at,
      last_seen_at: sessions[4]!.created_at,
      user_agent: 'Browser/4',
    });
    expect(new Set(sessions.map((s) => s.device_id))).toEqual(new Set([device.id]));
    expect((await signInEvents(server, userId)).filter((e) => e.device_key === 'records-device-03')).toHaveLength(5);
  });

  it('gives each session of one batch its own device, sign-ins of several devices interleaved', async () => {
    const userId = await userIdOf(server);
    const keys = ['records-device-04', 'records-device-05', 'records-device-06'];
    for (let round = 0; round < 2; round++)
      for (const key of keys) expect((await signIn(server, key)).statusCode).toBe(200);
    await server.ctx.signInRecords.drain();
    const sessions = await server.ctx.db
      .selectFrom('sessions')
      .innerJoin('devices', 'devices.id', 'sessions.device_id')
      .select(['sessions.device_key as session_key', 'devices.device_key as device_key', 'devices.user_id'])
      .where('sessions.device_key', 'in', keys)
      .execute();
    expect(sessions).toHaveLength(6);
    for (const session of sessions)
      expect(session).toEqual({ session_key: session.device_key, device_key: session.device_key, user_id: userId });
    expect(new Set(sessions.map((session) => session.device_key))).toEqual(new Set(keys));
  });
});

/** A server on a database that outlives it: a temp SQLite file, or a PostgreSQL database. */
async function durableDatabase(kind: DatabaseKind): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (kind === 'postgres') {
    const pg = await createPostgresDatabase();
    return { env: { DATABASE_URL: pg.url }, drop: () => pg.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tessera-records-'));
  return {
    env: { SQLITE_PATH: join(dir, 'db.sqlite') },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

const start = (env: Record<string, string>) =>
  buildApp(loadConfig({ NODE_ENV: 'test', SPA_DIR: 'none', LOG_LEVEL: 'silent', CAPTCHA: 'false', ...env }));

describe.each(kinds)('sign-in records across restarts on %s', (kind) => {
  let database: Awaited<ReturnType<typeof durableDatabase>>;
  beforeAll(async () => {
    database = await durableDatabase(kind);
    const first = await start(database.env);
    await seedDemo(first.ctx);
    await first.close();
  });
  afterAll(async () => database?.drop());

  it('are written at a graceful shutdown', async () => {
    const app = await start(database.env);
    const userId = await userIdOf(app);
    const before = (await signInEvents(app, userId)).length;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signIn(app, `shutdown-device-${String(i).padStart(2, '0')}`)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(12).fill(200));
    await app.close();

    // Read without starting a server (whose worker would write what was left).
    const config = loadConfig({ NODE_ENV: 'test', ...database.env });
    const after = openDatabase(config);
    try {
      const waiting = await after.db
        .selectFrom('sessions')
        .select('id')
        .where('pending_record', 'is not', null)
        .execute();
      expect(waiting).toHaveLength(0);
      const events = await after.db
        .selectFrom('security_events')
        .select('id')
        .where('user_id', '=', userId)
        .where('type', '=', 'login_succeeded')
        .execute();
      expect(events).toHaveLength(before + 12);
      const devices = await after.db
        .selectFrom('devices')
        .select('device_key')
        .where('user_id', '=', userId)
        .where('device_key', 'like', 'shutdown-device-%')
        .execute();
      expect(devices).toHaveLength(12);
    } finally {
      await after.close();
    }
  });

  it('survive a crash before they were written: the next start writes them', async () => {
    const app = await start(database.env);
    const userId = await userIdOf(app);
    const before = (await signInEvents(app, userId)).length;
    // The worker is gone (as in a crash, it writes nothing more) before the sign-ins come.
    await app.ctx.signInRecords.stop();
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => signIn(app, `crash-device-${i}0000`)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(200));
    expect(await app.ctx.signInRecords.pending()).toBe(5);
    // The process dies: no shutdown step runs, the database simply goes away.
    await app.app.close();
    await app.ctx.outbox.stop();
    await app.ctx.database.close();

    const next = await start(database.env);
    try {
      await next.ctx.signInRecords.drain();
      expect(await next.ctx.signInRecords.pending()).toBe(0);
      const events = await signInEvents(next, userId);
      expect(events).toHaveLength(before + 5);
      expect(events.filter((e) => e.device_key?.startsWith('crash-device-'))).toHaveLength(5);
      const devices = await next.ctx.db
        .selectFrom('devices')
        .select('id')
        .where('user_id', '=', userId)
        .where('device_key', 'like', 'crash-device-%')
        .execute();
      expect(devices).toHaveLength(5);
      const unlinked = await next.ctx.db
        .selectFrom('sessions')
        .select('id')
        .where('device_key', 'like', 'crash-device-%')
        .where('device_id', 'is', null)
        .execute();
      expect(unlinked).toHaveLength(0);
    } finally {
      await next.close();
    }
  });

  // Two instances share rows only on PostgreSQL (an SQLite file has one server).
  if (kind === 'postgres') {
    it('are written once when two instances drain at the same time', async () => {
      const [a, b] = [await start(database.env), await start(database.env)];
      try {
        const userId = await userIdOf(a);
        const before = (await signInEvents(a, userId)).length;
        await Promise.all([a.ctx.signInRecords.stop(), b.ctx.signInRecords.stop()]);
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, i) => signIn(i % 2 ? a : b, `race-device-${i % 3}00000`)),
        );
        expect(answers.map((r) => r.statusCode)).toEqual(Array(30).fill(200));
        await Promise.all([
          a.ctx.signInRecords.drain(),
          b.ctx.signInRecords.drain(),
          a.ctx.signInRecords.settle(userId),
          b.ctx.signInRecords.settle(userId),
        ]);
        expect(await signInEvents(a, userId)).toHaveLength(before + 30);
        const devices = await a.ctx.db
          .selectFrom('devices')
          .select('id')
          .where('user_id', '=', userId)
          .where('device_key', 'like', 'race-device-%')
          .execute();
        expect(devices).toHaveLength(3);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  }
});
