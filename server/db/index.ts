// Opens the database: SQLite through node:sqlite (the embedded default) or PostgreSQL through pg.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, PostgresDialect, SqliteDialect, sql, type SqliteDatabase, type SqliteStatement } from 'kysely';
import pg from 'pg';
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
  database.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');
  return database;
}

export function openDatabase(options: { databaseUrl: string | null; sqlitePath: string }): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // A dropped idle connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', sqlite: null, pgPool: pool, close: () => db.destroy() };
  }
  const sqlite = openSqlite(options.sqlitePath);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqliteAdapter(sqlite) }) });
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

/** A write refused by a unique index, on either database (PostgreSQL 23505, SQLite's UNIQUE constraint). */
export function isUniqueViolation(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '23505' || (typeof message === 'string' && message.includes('UNIQUE constraint failed'));
}

/** Current time as stored: ISO-8601 UTC. */
export function nowIso(now = Date.now()): string {
  return new Date(now).toISOString();
}
