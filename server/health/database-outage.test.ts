// PostgreSQL drops every connection of the server under load: requests in flight get 503
// `database_unavailable`, never a 500, the process lives on, and service resumes by itself.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();

describe.each(kinds.filter((kind) => kind === 'postgres'))('losing the database on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOGIN_MAX_FAILS_PER_USER_IP: '1000', LOGIN_MAX_FAILS_PER_IP: '100000' });
  });
  afterAll(async () => server?.stop());

  /** Runs statements on a connection of its own, to this test's database or to the server's default one. */
  async function asAdmin(...statements: string[]): Promise<void> {
    return onDatabase(server.ctx.config.databaseUrl!, ...statements);
  }
  async function onDatabase(url: string, ...statements: string[]): Promise<void> {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (const statement of statements) await admin.query(statement);
    } finally {
      await admin.end();
    }
  }
  /** Ends every other connection to this test's own database, never anyone else's. */
  const TERMINATE =
    'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()';
  const terminateBackends = () => asAdmin(TERMINATE);

  const signIn = (username: string, password: string) => passwordSignIn(server, username, password);

  it('answers 503 database_unavailable while connections die mid-transaction, and recovers by itself', async () => {
    const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
    const weak = DEMO_USERS.find((u) => u.key === 'weak')!;
    const statuses: number[] = [];
    const codes = new Set<string>();
    let running = true;

    // Sign-ins that write (throttling counts, events, sessions, tickets), and transactions that
    // hold their connection between statements, as the flows' transactions do.
    const load = async () => {
      for (let round = 0; running; round++) {
        const requests = [
          signIn(emma.email, 'not-the-password'),
          signIn(`nobody${round}@example.be`, 'not-the-password'),
          signIn(emma.email, DEMO_PASSWORD),
          signIn(weak.email, DEMO_PASSWORD),
        ];
        const held = server.ctx.db
          .transaction()
          .execute(async (trx) => {
            await sql`select count(*) from users`.execute(trx);
            await sleep(20);
            await sql`update users set updated_at = updated_at where id is null`.execute(trx);
          })
          .catch(() => {});
        for (const res of await Promise.all(requests)) {
          statuses.push(res.statusCode);
          if (res.statusCode >= 500) codes.add(res.json().code);
        }
        await held;
      }
    };
    const loaders = Array.from({ length: 4 }, load);
    for (let i = 0; i < 8; i++) {
      await sleep(150);
      await terminateBackends();
    }
    running = false;
    await Promise.all(loaders);

    expect(statuses).toContain(503);
    expect(statuses.filter((status) => status === 500)).toEqual([]);
    expect(statuses.every((status) => [200, 400, 403, 429, 503].includes(status))).toBe(true);
    expect([...codes].filter((code) => code !== 'database_unavailable')).toEqual([]);

    // Service resumes without a restart.
    let ready = 0;
    for (let i = 0; i < 100 && ready !== 200; i++) {
      ready = (await server.app.inject({ method: 'GET', url: '/readyz' })).statusCode;
      if (ready !== 200) await sleep(200);
    }
    expect(ready).toBe(200);
    expect((await signIn(emma.email, DEMO_PASSWORD)).statusCode).toBe(200);
  });

  it('names the database in /readyz while it refuses connections, and is ready again after', async () => {
    const name = new URL(server.ctx.config.databaseUrl!).pathname.slice(1);
    const adminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    // Only this test's own database stops taking connections, and only its connections end.
    await onDatabase(
      adminUrl,
      `alter database ${name} with allow_connections false`,
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
    );
    try {
      const res = await server.app.inject({ method: 'GET', url: '/readyz' });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 503,
        body: { status: 'unavailable', checks: { database: 'down' } },
      });
    } finally {
      await onDatabase(adminUrl, `alter database ${name} with allow_connections true`);
    }
    const res = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 200,
      body: { status: 'ok', checks: { database: 'ok' } },
    });
  });
});
