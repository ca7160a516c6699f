// Test harness: a real server on a real database, SQLite in memory or a fresh PostgreSQL database
// created for the run and dropped after it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Selectable } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { openDatabase, type DatabaseHandle } from '../db/index.ts';
import { migrate } from '../db/migrations.ts';
import type { UsersTable } from '../db/schema.ts';
import { seedDemo } from '../seed/demo.ts';
import { freePort } from './ports.ts';

export type DatabaseKind = 'sqlite' | 'postgres';

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The databases to run server tests on. In CI PostgreSQL is required; elsewhere it is skipped, with a word, only if unreachable. */
export async function databaseKinds(): Promise<DatabaseKind[]> {
  if (await postgresReachable()) return ['sqlite', 'postgres'];
  if (process.env.CI) throw new Error(`PostgreSQL is required in CI but ${ADMIN_URL} is not reachable`);
  console.warn(`PostgreSQL not reachable at ${ADMIN_URL}: server tests run on SQLite only`);
  return ['sqlite'];
}

export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tessera_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** A migrated database without a server, for storage tests: `open()` gives another handle on the
 * same database, as a second instance would have (SQLite: a file, so handles share it). */
export async function createTestDatabase(
  kind: DatabaseKind,
): Promise<{ open(): Promise<DatabaseHandle>; drop(): Promise<void> }> {
  const postgres = kind === 'postgres' ? await createPostgresDatabase() : null;
  const dir = postgres ? null : mkdtempSync(join(tmpdir(), 'tessera-db-'));
  const handles: DatabaseHandle[] = [];
  const open = async () => {
    const handle = openDatabase({
      databaseUrl: postgres?.url ?? null,
      sqlitePath: dir ? join(dir, 'tessera.sqlite') : ':memory:',
    });
    handles.push(handle);
    return handle;
  };
  await migrate((await open()).db);
  return {
    open,
    async drop() {
      await Promise.all(handles.map((handle) => handle.close().catch(() => {})));
      await postgres?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A migrated database for the tests of the calling block: `opened` gets a handle on it before they
 * run; it is dropped after them. */
export function useTestDatabase(kind: DatabaseKind, opened: (handle: DatabaseHandle) => void | Promise<void>): void {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    await opened(await database.open());
  });
  afterAll(async () => database?.drop());
}

export type TestServer = App & { kind: DatabaseKind; stop(): Promise<void> };

/** Options of a test server. `settleMessages` (on by default): each `app.inject` returns once the
 * messages its request queued were handed to their sender, and the sign-in records it left
 * (server/sessions/records.ts) were written, so a test reads the mail, events and devices it caused
 * at once. A test of the outbox or of those records turns it off and sees the answer come first.
 * `logStream` receives the server's log lines. `sharing`: another instance of that server, on its
 * PostgreSQL database with its SECRET_KEY (not seeded again, and not dropped when this one stops).
 * `now`: the delivery circuits' clock. */
export async function startTestServer(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  options: {
    seed?: boolean;
    settleMessages?: boolean;
    logStream?: { write(line: string): void };
    sharing?: TestServer;
    now?: () => number;
  } = {},
): Promise<TestServer> {
  const shared = options.sharing?.ctx.config;
  if (shared && !shared.databaseUrl)
    throw new Error('only a server on PostgreSQL can share its database with another instance');
  const database = shared ? null : kind === 'postgres' ? await createPostgresDatabase() : null;
  const config = loadConfig({
    NODE_ENV: 'test',
    SQLITE_PATH: ':memory:',
    SPA_DIR: 'none',
    LOG_LEVEL: 'silent',
    // Off unless a test turns it on (server/captcha tests it; e2e runs with it on).
    CAPTCHA: 'false',
    // Every test request comes from one address: its own sending budget is the destination's,
    // unless a test of that budget sets it lower.
    MFA_SENDS_PER_REQUESTER: '10',
    // The clients of the tests listen on the loopback address.
    OIDC_PRIVATE_OUTBOUND: 'true',
    // A production server must be told its origins: inject's default Host (localhost) is its Belgian one.
    ...(env.NODE_ENV === 'production'
      ? { PUBLIC_ORIGIN_BE: 'https://localhost', PUBLIC_ORIGIN_LU: 'https://account.lu.localhost' }
      : {}),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...(shared ? { DATABASE_URL: shared.databaseUrl!, SECRET_KEY: shared.secretKey } : {}),
    ...env,
  });
  const app = await buildApp(config, {
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  if (options.seed ?? !shared) await seedDemo(app.ctx);
  if (options.settleMessages ?? true) {
    const inject = app.app.inject.bind(app.app) as (request: unknown) => Promise<unknown>;
    (app.app as { inject: unknown }).inject = async (request: unknown) => {
      const answer = await inject(request);
      await app.ctx.outbox.drain();
      await app.ctx.signInRecords.drain();
      return answer;
    };
  }
  return {
    ...app,
    kind,
    async stop() {
      await app.close();
      await database?.drop();
    },
  };
}

/** A test server listening over real HTTP on the loopback address, whose Belgian origin is that
 * address (PUBLIC_ORIGIN_BE=`base`): the OIDC issuer is `${base}/oidc`, as a relying party on this
 * machine can reach it (Node cannot resolve *.localhost). */
export async function startListeningTestServer(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  options: Parameters<typeof startTestServer>[2] = {},
): Promise<TestServer & { base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startTestServer(kind, { PUBLIC_ORIGIN_BE: base, ...env }, options);
  try {
    await server.app.listen({ port, host: '127.0.0.1' });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, base };
}

export const DEVICE = { 'x-device-id': 'test-device-0001' };

/** A sign-in by password (POST /api/token), from the test device unless `headers` name another. */
export const passwordSignIn = (
  server: Pick<TestServer, 'app'>,
  username: string,
  password: string,
  headers: Record<string, string> = DEVICE,
) => server.app.inject({ method: 'POST', url: '/api/token', headers, payload: { username, password } });

/** The id of the account an email belongs to. */
export const userIdByEmail = async (server: Pick<TestServer, 'ctx'>, email: string): Promise<string> =>
  (await server.ctx.db.selectFrom('user_emails').select('user_id').where('value', '=', email).executeTakeFirstOrThrow())
    .user_id;

/** One column of a user's row, as stored. */
export async function userColumn<C extends 'has_sso' | 'sso_only' | 'language' | 'password_status'>(
  server: Pick<TestServer, 'ctx'>,
  userId: string,
  column: C,
): Promise<Selectable<UsersTable>[C]> {
  const row = await server.ctx.db.selectFrom('users').select(column).where('id', '=', userId).executeTakeFirstOrThrow();
  return (row as unknown as Selectable<UsersTable>)[column];
}
