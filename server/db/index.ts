// Opens the database: SQLite through node:sqlite (the embedded default) or PostgreSQL through pg.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, PostgresDialect, SqliteDialect, sql, type SqliteDatabase, type SqliteStatement } from 'kysely';
import pg from 'pg';
import { registerPool, registerSqlite } from './prepared.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export type DatabaseHandle = {
  db: Db;
  kind: 'sqlite' | 'postgres';
  /** The raw SQLite connection, for stores that speak to it directly (rate limits). */
  sqlite: DatabaseSync | null;
  /** The raw PostgreSQL pool, likewise. */
  pgPool: pg.Pool | null;
  close(): Promise<void>;
};

/** Adapts node:sqlite to the better-sqlite3 shape Kysely's SqliteDialect expects. Prepared
 * statements are kept by SQL text: Kysely produces the same text for the same query shape, and
 * preparing anew on every call costs more than running the query. */
function sqliteAdapter(database: DatabaseSync, cacheSize = 256): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(query: string): SqliteStatement {
      const cached = cache.get(query);
      if (cached) return cached;
      const statement = database.prepare(query);
      const adapted: SqliteStatement = {
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...(parameters as never[])),
        run: (parameters) => statement.run(...(parameters as never[])),
        iterate: (parameters) => statement.iterate(...(parameters as never[])),
      };
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
      cache.set(query, adapted);
      return adapted;
    },
  };
}

export function openSqlite(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path);
  // WAL lets readers run beside the writer; foreign keys are off by default in SQLite.
  database.exec(
    'PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;',
  );
  return database;
}

export function openDatabase(options: { databaseUrl: string | null; sqlitePath: string }): DatabaseHandle {
  if (options.databaseUrl) {
    // Without a connection timeout a request waits forever for a database that is down.
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10, connectionTimeoutMillis: 5000 });
    // A dropped idle connection must not crash the process; the pool replaces it. The pool may get
    // more listeners (the app logs these).
    pool.on('error', () => {});
    // A connection dropped while checked out (Kysely holds one for a transaction, the limiter for a
    // query) emits 'error' on its client, where no pool listener is: unhandled, it ends the process.
    // The query in flight fails with it, and the pool discards the dead client on release.
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    registerPool(db, pool);
    return { db, kind: 'postgres', sqlite: null, pgPool: pool, close: () => db.destroy() };
  }
  const sqlite = openSqlite(options.sqlitePath);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqliteAdapter(sqlite) }) });
  registerSqlite(db, sqlite);
  return { db, kind: 'sqlite', sqlite, pgPool: null, close: () => db.destroy() };
}

export async function isReachable(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** PostgreSQL or the way to it went away: the connection was terminated (57P01-57P03), refused or
 * reset, could not be opened in time (08xxx, the pool's timeout), or the database takes no
 * connections for now (55000 at connect, `allow_connections false`). Retrying later may succeed. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '55000' && typeof message === 'string' && message.endsWith('is not currently accepting connections'))
    return true;
  if (
    typeof code === 'string' &&
    (/^57P0[123]$/.test(code) ||
      code.startsWith('08') ||
      ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code))
  )
    return true;
  return (
    typeof message === 'string' &&
    /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/.test(
      message,
    )
  );
}

/** A write refused by a unique index, on either database (PostgreSQL 23505, SQLite's UNIQUE constraint). */
export function isUniqueViolation(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '23505' || (typeof message === 'string' && message.includes('UNIQUE constraint failed'));
}

/** EXISTS comes back as 1/0 from SQLite and true/false from PostgreSQL. */
export function isTrue(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** Current time as stored: ISO-8601 UTC. */
export function nowIso(now = Date.now()): string {
  return new Date(now).toISOString();
}
