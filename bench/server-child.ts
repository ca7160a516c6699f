// A server for the benchmarks, in its own process:
//   node bench/server-child.ts tessera [sqlite|postgres] — the real app on a fresh database (a temp
//     SQLite file, or a PostgreSQL database created for the run), demo users plus BENCH_USERS more;
//   node bench/server-child.ts tessera sqlite <dist dir> — the same, also serving the built web app
//     from that folder as `npm start` does (with the build's Brotli and gzip twins; for Lighthouse);
//   node bench/server-child.ts tessera <postgres://…> — the real app on a database filled
//     beforehand (the scale benchmark's), left as it is: no seeding, not dropped;
//   node bench/server-child.ts bare <payload file> [path] — a minimal Fastify app whose GET at the
//     path (/api/user unless given) answers the JSON in the file (the real answer, so both are the
//     same size);
//   node bench/server-child.ts same-work <SQLite file | postgres://…> — a minimal Fastify app whose
//     GET /api/user does what Tessera's does, the leanest way: the bearer token's hash, the
//     profile's statement (server/profile/queries.ts) straight on the driver (node:sqlite, or pg
//     with a named statement and the same pool size) against a Tessera server's database, and the
//     same JSON; no hooks, no extra headers, no metrics. (Tessera also refreshes the session's last
//     use, at most once a minute per session: left out, it is below the noise.)
//   node bench/server-child.ts bare-oidc — oidc-provider alone, configured as Tessera's, on its
//     memory adapter (bench/tokens.ts).
// With BENCH_HISTORY_EVENTS=n in its environment, a fresh Tessera database also gets n security
// events for the first benchmark user, spread over the last 30 days (the history part).
// Sends { type: 'ready', port, database } over IPC (database: a Tessera server's SQLite file or
// PostgreSQL URL, for the same-work server); on { type: 'stop' } closes, cleans up and exits (so that
// --cpu-prof, when given, writes its profile).
// First: it sizes libuv's thread pool for the Argon2id computations, as the server's start does.
import '../server/passwords/threadPool.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_USERS, benchUser } from './users.ts';
import { freePort } from '../server/testing/ports.ts';

/** Settings of the server under test that may be varied from the environment of `npm run bench`. */
const PASSED_THROUGH = ['HASH_CONCURRENCY', 'SESSION_TTL_DAYS'];

type Started = { port: number; database?: string; close(): Promise<void> };

async function startBare(payloadFile: string, path = '/api/user'): Promise<Started> {
  const { default: Fastify } = await import('fastify');
  const payload = JSON.parse(readFileSync(payloadFile, 'utf8')) as unknown;
  const app = Fastify({ logger: false });
  app.get(path, async () => payload);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as { port: number }).port, close: () => app.close() };
}

async function startSameWork(database: string): Promise<Started> {
  const { default: Fastify } = await import('fastify');
  const { openDatabase, nowIso } = await import('../server/db/index.ts');
  const { compileStatement } = await import('../server/db/prepared.ts');
  const { profileQuery, profileOfRow } = await import('../server/profile/queries.ts');
  const { hashToken } = await import('../server/sessions/tokens.ts');
  type ProfileRow = import('../server/profile/queries.ts').ProfileRow;
  const postgres = /^postgres(ql)?:\/\//.test(database);
  const handle = openDatabase({ databaseUrl: postgres ? database : null, sqlitePath: database });
  const { sql, name, values } = compileStatement(handle.db, profileQuery(handle.db), 2);
  const pool = handle.pgPool;
  const statement = handle.sqlite?.prepare(sql);
  const run = async (parameters: unknown[]): Promise<ProfileRow[]> =>
    pool
      ? (await pool.query({ name, text: sql, values: parameters })).rows
      : (statement!.all(...(parameters as never[])) as unknown as ProfileRow[]);
  const app = Fastify({ logger: false });
  app.get('/api/user', async (request, reply) => {
    const token = request.headers.authorization?.slice('Bearer '.length) ?? '';
    const [row] = await run(values([hashToken(token), nowIso(Date.now())]));
    if (!row) return reply.code(401).send({ error: 'unauthorized' });
    return { data: profileOfRow(row) };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    port: (app.server.address() as { port: number }).port,
    async close() {
      await app.close();
      await handle.close();
    },
  };
}

/** `db`: sqlite or postgres (a fresh database, seeded here), or the URL of a database filled beforehand;
 * `spaDir`: the built web app to serve, or none (the API only). */
async function startTessera(db: string, spaDir?: string): Promise<Started> {
  const { buildApp } = await import('../server/app.ts');
  const { loadConfig } = await import('../server/config/index.ts');
  const { DEMO_PASSWORD, createUser, seedDemo } = await import('../server/seed/demo.ts');
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  const given = /^postgres(ql)?:\/\//.test(db) ? db : null;
  let pg: { url: string; drop(): Promise<void> } | null = null;
  if (db === 'postgres') {
    const { createPostgresDatabase } = await import('../server/testing/harness.ts');
    pg = await createPostgresDatabase();
  }
  const databaseUrl = given ?? pg?.url;
  // Its public origin is the address it listens on: the OIDC issuer, and the provider's redirects
  // back to itself, must be where the benchmark's browsers reach it (a free port, taken first).
  const port = await freePort();
  const server = await buildApp(
    loadConfig(
      {
        NODE_ENV: 'test',
        SQLITE_PATH: join(dir, 'bench.sqlite'),
        SPA_DIR: spaDir ?? 'none',
        LOG_LEVEL: 'silent',
        PUBLIC_ORIGIN_BE: `http://127.0.0.1:${port}`,
        LOGIN_MAX_FAILS_PER_IP: '100000',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        // Server settings worth trying under load pass through from the environment.
        ...Object.fromEntries(
          PASSED_THROUGH.filter((name) => process.env[name]).map((name) => [name, process.env[name]]),
        ),
      },
      availableParallelism(),
    ),
  );
  if (!given) {
    await seedDemo(server.ctx);
    const ids = await Promise.all(
      Array.from({ length: BENCH_USERS }, (_, i) => createUser(server.ctx, benchUser(i), DEMO_PASSWORD)),
    );
    const events = Number(process.env.BENCH_HISTORY_EVENTS ?? 0);
    if (events > 0) await seedHistory(server.ctx.db, ids[0]!, events);
  }
  await server.app.listen({ port, host: '127.0.0.1' });
  return {
    port,
    database: databaseUrl ?? join(dir, 'bench.sqlite'),
    async close() {
      await server.close();
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `count` security events of the account, of every kind the history shows, from the device the
 * benchmark signs in with and a public address, spread evenly over the last 30 days. */
async function seedHistory(db: import('../server/db/index.ts').Db, userId: string, count: number) {
  const { writeEvents } = await import('../server/events/record.ts');
  const { KNOWN_HISTORY_TYPES } = await import('../contract/history.ts');
  const now = Date.now();
  const span = 30 * 86_400_000;
  const events = Array.from({ length: count }, (_, i) => ({
    type: KNOWN_HISTORY_TYPES[i % KNOWN_HISTORY_TYPES.length] as import('../server/events/record.ts').SecurityEventType,
    userId,
    ip: '8.8.8.8',
    deviceKey: 'bench-device-0001',
    at: new Date(now - Math.floor((i * span) / count)).toISOString(),
  }));
  for (let i = 0; i < events.length; i += 200) await writeEvents(db, events.slice(i, i + 200));
}

const [kind, arg, third] = process.argv.slice(2);
const spaDir = kind === 'tessera' ? third : undefined;
const started: Started =
  kind === 'bare'
    ? await startBare(arg!, third)
    : kind === 'same-work'
      ? await startSameWork(arg!)
      : kind === 'bare-oidc'
        ? await (await import('./tokens.ts')).startBareOidc()
        : await startTessera(arg ?? 'sqlite', spaDir);
process.send!({ type: 'ready', port: started.port, database: started.database });
process.on('message', async (message: { type: string }) => {
  if (message.type !== 'stop') return;
  await started.close().catch((error) => console.error('bench server: closing failed:', error));
  process.exit(0);
});
// The orchestrator went away without a word: do not linger.
process.on('disconnect', () => void started.close().finally(() => process.exit(0)));
