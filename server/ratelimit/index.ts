// Login throttling with rate-limiter-flexible: kept in the database by default (SQLite or
// PostgreSQL), in Redis when REDIS_URL is set so that several instances share the counts, with the
// database standing in while Redis is unreachable.
import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { Redis } from 'ioredis';
import {
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterSQLite,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { DatabaseHandle } from '../db/index.ts';

export type LimiterSpec = { keyPrefix: string; points: number; duration: number; blockDuration: number };

/** node:sqlite speaks the better-sqlite3 dialect the store expects, but has no transaction helper.
 * The store prepares its few statements on every call: keep them. */
function betterSqliteShape(database: DatabaseSync) {
  const statements = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  return Object.assign(Object.create(database) as DatabaseSync, {
    prepare: (query: string) => {
      let statement = statements.get(query);
      if (!statement) statements.set(query, (statement = database.prepare(query)));
      return statement;
    },
    // Each upsert is one statement, atomic on its own.
    transaction: <A extends unknown[], R>(fn: (...args: A) => R) => fn,
  });
}

/** The database a limiter keeps its counts in, when that is its store (not Redis): `standings`
 * reads several of them in one statement. */
const databaseOf = new WeakMap<RateLimiterAbstract, DatabaseHandle>();

export async function createLimiter(
  spec: LimiterSpec,
  store: { database: DatabaseHandle; redis: Redis | null },
): Promise<RateLimiterAbstract> {
  const common = { ...spec, tableName: 'rate_limits' };
  const database = await new Promise<RateLimiterAbstract>((resolve, reject) => {
    const done = (error?: unknown) => (error ? reject(error) : resolve(limiter));
    let limiter: RateLimiterAbstract;
    if (store.database.kind === 'postgres') {
      limiter = new RateLimiterPostgres(
        { ...common, storeClient: store.database.pgPool, clearExpiredByTimeout: false },
        done,
      );
    } else {
      limiter = new RateLimiterSQLite(
        {
          ...common,
          storeClient: betterSqliteShape(store.database.sqlite!),
          storeType: 'better-sqlite3',
          clearExpiredByTimeout: false,
        },
        done,
      );
    }
  });
  if (!store.redis) {
    databaseOf.set(database, store.database);
    return database;
  }
  // While Redis is away the database counts instead (every operation, `get` and `delete` included,
  // goes to the insurance limiter when Redis fails), so sign-in keeps working and stays throttled.
  // Not ready means "use the insurance now": calls do not wait in ioredis' offline queue.
  return new RateLimiterRedis({
    ...common,
    storeClient: store.redis,
    rejectIfRedisNotReady: true,
    insuranceLimiter: database,
  });
}

/** Keys longer than this are stored as their hash. */
const MAX_KEY_LENGTH = 200;

/** The key as stored. Callers build keys from what clients send (a username, a forwarded address),
 * and the stores' key columns are bounded (PostgreSQL: varchar(255), with the prefix): a long key
 * becomes its SHA-256, of fixed length, still one key per value. */
export function storedKey(key: string): string {
  return key.length <= MAX_KEY_LENGTH ? key : `sha256:${createHash('sha256').update(key).digest('base64url')}`;
}

export type Standing = { failures: number; wait: number };

/** A key's standing from its count in the store (none: nothing counted in its window). */
function standingOf(
  limiter: RateLimiterAbstract,
  state: { consumedPoints: number; msBeforeNext: number } | null,
): Standing {
  if (!state) return { failures: 0, wait: 0 };
  const wait = state.consumedPoints > limiter.points ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : 0;
  return { failures: state.consumedPoints, wait };
}

/** The failures counted against a key, and the wait in seconds when it has used up its points. */
export async function standing(limiter: RateLimiterAbstract, key: string): Promise<Standing> {
  return standingOf(limiter, await limiter.get(storedKey(key)));
}

/** Reads live counts of the store's table (rate-limiter-flexible's `rate_limits`: key, points, and
 * expire in epoch milliseconds, null for none) by their stored keys, in one statement. */
async function countsIn(
  database: DatabaseHandle,
  keys: string[],
  now: number,
): Promise<Array<{ key: string; points: number; expire: number | null }>> {
  type Row = { key: string; points: number | string; expire: number | string | null };
  let rows: Row[];
  if (database.pgPool) {
    rows = (
      await database.pgPool.query<Row>({
        name: 'tessera-rate-limit-counts',
        text: 'SELECT key, points, expire FROM rate_limits WHERE key = ANY($1) AND (expire > $2 OR expire IS NULL)',
        values: [keys, now],
      })
    ).rows;
  } else {
    rows = database
      .sqlite!.prepare(
        'SELECT key, points, expire FROM rate_limits WHERE key IN (SELECT value FROM json_each(?)) AND (expire > ? OR expire IS NULL)',
      )
      .all(JSON.stringify(keys), now) as Row[];
  }
  return rows.map((row) => ({
    key: row.key,
    points: Number(row.points),
    expire: row.expire === null ? null : Number(row.expire),
  }));
}

/** The standings of several keys, in order: in one statement when their limiters all keep their
 * counts in one database; otherwise one look-up each (Redis answers them on one connection, at once). */
export async function standings(pairs: Array<[RateLimiterAbstract, string]>): Promise<Standing[]> {
  const database = pairs.length > 1 ? databaseOf.get(pairs[0]![0]) : undefined;
  if (!database || pairs.some(([limiter]) => databaseOf.get(limiter) !== database))
    return Promise.all(pairs.map(([limiter, key]) => standing(limiter, key)));
  const keys = pairs.map(([limiter, key]) => limiter.getKey(storedKey(key)));
  const now = Date.now();
  const counts = new Map((await countsIn(database, keys, now)).map((row) => [row.key, row]));
  return pairs.map(([limiter], i) => {
    const row = counts.get(keys[i]!);
    // As the store's own `get` reads a row (rate-limiter-flexible's _getRateLimiterRes).
    return standingOf(
      limiter,
      row
        ? { consumedPoints: row.points, msBeforeNext: row.expire === null ? -1 : Math.max(row.expire - now, 0) }
        : null,
    );
  });
}

/** Spends one point; returns the wait in seconds when this spending crossed the limit. */
export async function spend(limiter: RateLimiterAbstract, key: string): Promise<number> {
  try {
    await limiter.consume(storedKey(key));
    return 0;
  } catch (rejection) {
    if (rejection instanceof Error) throw rejection; // a store failure, not a limit
    const ms = (rejection as { msBeforeNext?: number }).msBeforeNext ?? 1000;
    return Math.max(1, Math.ceil(ms / 1000));
  }
}

/** Spends one point and says how many the key has spent in its window, past the limit or not: for
 * a ceiling, which never refuses but counts on. */
export async function count(limiter: RateLimiterAbstract, key: string): Promise<number> {
  try {
    return (await limiter.consume(storedKey(key))).consumedPoints;
  } catch (rejection) {
    if (rejection instanceof Error) throw rejection; // a store failure, not a limit
    return (rejection as { consumedPoints: number }).consumedPoints;
  }
}

/** Gives back a point spent for something that then did not happen (a send that lost a race). */
export async function refund(limiter: RateLimiterAbstract, key: string): Promise<void> {
  await limiter.reward(storedKey(key), 1).catch(() => {});
}

/** Spends a point on each limiter in turn, stopping at the first that refuses (and giving back the
 * points spent before it): a request refused by a narrow budget costs nothing of the wider ones,
 * so a stranger who exhausts their own budget leaves the destination's to its owner. */
export async function spendInTurn(pairs: Array<[RateLimiterAbstract, string]>): Promise<number> {
  for (const [index, [limiter, key]] of pairs.entries()) {
    const wait = await spend(limiter, key);
    if (wait > 0) {
      await refund(limiter, key);
      await Promise.all(pairs.slice(0, index).map(([earlier, earlierKey]) => refund(earlier, earlierKey)));
      return wait;
    }
  }
  return 0;
}

/** Clears a key's count (after a success). */
export async function forget(limiter: RateLimiterAbstract, key: string): Promise<void> {
  await limiter.delete(storedKey(key));
}
