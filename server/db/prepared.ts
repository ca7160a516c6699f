// Hot-path queries built and compiled once. Kysely builds and compiles a query on every call; for
// the few queries every authenticated request runs, we compile with stand-in values once and
// afterwards only swap the values in. On PostgreSQL they are also named statements, which each
// connection parses and plans once instead of on every call. On SQLite they run straight on the
// connection, outside Kysely, when no transaction holds it.
import { createHash } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { CompiledQuery, type Compilable } from 'kysely';
import type pg from 'pg';
import type { Db } from './index.ts';

const STAND_IN = '\u0000stand-in:';

/** The pool behind a PostgreSQL handle, or the connection behind a SQLite one (openDatabase registers them). */
const pools = new WeakMap<Db, pg.Pool>();
const connections = new WeakMap<Db, DatabaseSync>();
export function registerPool(db: Db, pool: pg.Pool): void {
  pools.set(db, pool);
}
export function registerSqlite(db: Db, connection: DatabaseSync): void {
  connections.set(db, connection);
}
/** Whether the handle speaks to PostgreSQL (a statement may then hold what SQLite cannot, such as an
 * UPDATE in a WITH). */
export function isPostgres(db: Db): boolean {
  return pools.has(db);
}

/** A query compiled once with stand-in values: its SQL, a name for it (by its text), and the values
 * of a call. What `prepared` runs; also what a benchmark runs on the bare driver to compare. */
export function compileStatement<Args extends Array<string | null>, Row>(
  db: Db,
  build: (db: Db, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): { sql: string; name: string; values(args: Args): unknown[] } {
  const standIns = Array.from({ length: arity }, (_, i) => `${STAND_IN}${i}`) as unknown as Args;
  const compiled = build(db, ...standIns).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(STAND_IN) ? Number(value.slice(STAND_IN.length)) : -1,
  );
  for (let i = 0; i < arity; i++) {
    if (!slots.includes(i)) throw new Error(`prepared: argument ${i} is not used as a parameter`);
  }
  return {
    sql: compiled.sql,
    // Named by its text: the same query compiled twice (two apps in one process) shares its name.
    name: `tessera_${createHash('sha256').update(compiled.sql).digest('hex').slice(0, 24)}`,
    values: (args) => compiled.parameters.map((value, i) => (slots[i]! >= 0 ? args[slots[i]!] : value)),
  };
}

export function prepared<Args extends Array<string | null>, Row>(
  db: Db,
  build: (db: Db, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): (...args: Args) => Promise<Row[]> {
  const { sql, name, values } = compileStatement(db, build, arity);
  const pool = pools.get(db);
  const connection = connections.get(db);
  const runNow = connection ? onConnection(connection, sql) : null;
  return async (...args: Args) => {
    const parameters = values(args);
    if (pool)
      return (await pool.query<Row & pg.QueryResultRow>({ name, text: sql, values: parameters as unknown[] })).rows;
    // SQLite answers synchronously: outside a transaction the statement runs at once, without
    // Kysely's connection lock and its promise hops (a tenth of GET /user's time). A Kysely
    // transaction holds the one connection across awaits; a statement run then would see its
    // uncommitted rows, so it waits its turn through Kysely instead.
    if (runNow && !connection!.isTransaction) return runNow(parameters) as Row[];
    const result = await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters));
    return result.rows;
  };
}

/** SQLite's side of `prepared` for `atOnce`: the statement runs on the connection itself and answers
 * at once (a function, not a promise). */
export function preparedNow<Args extends Array<string | null>, Row>(
  db: Db,
  build: (db: Db, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): (...args: Args) => Row[] {
  const { sql, values } = compileStatement(db, build, arity);
  const connection = connections.get(db);
  if (!connection) throw new Error('preparedNow: a SQLite handle only');
  const runNow = onConnection(connection, sql);
  return (...args: Args) => runNow(values(args)) as Row[];
}

/** A statement run on SQLite's connection itself, prepared on its first run. */
function onConnection(connection: DatabaseSync, sql: string): (parameters: unknown[]) => unknown[] {
  let statement: StatementSync | null = null;
  return (parameters) => {
    statement ??= connection.prepare(sql);
    return statement.all(...(parameters as never[]));
  };
}

/** SQLite, its connection free: runs `work` (statements of `preparedNow`) as one transaction on the
 * connection itself. Every statement answers synchronously, so nothing else runs between them, and
 * no promise waits on Kysely's lock. Undefined, `work` not run, when a Kysely transaction holds the
 * connection (or on PostgreSQL): the caller then takes Kysely's way. */
export function atOnce<T>(db: Db, work: () => T): { value: T } | undefined {
  const connection = connections.get(db);
  if (!connection || connection.isTransaction) return undefined;
  connection.exec('BEGIN IMMEDIATE');
  try {
    const value = work();
    connection.exec('COMMIT');
    return { value };
  } catch (error) {
    connection.exec('ROLLBACK');
    throw error;
  }
}

/** `compile` run once per database handle, its result kept with the handle (a hot path's prepared queries). */
export function perDatabase<T>(compile: (db: Db) => T): (db: Db) => T {
  const compiled = new WeakMap<Db, T>();
  return (db) => {
    let value = compiled.get(db);
    if (value === undefined) compiled.set(db, (value = compile(db)));
    return value;
  };
}
