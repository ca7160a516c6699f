// A circuit breaker per delivery provider, shared by every instance: in Redis where configured
// (the database standing in while Redis is unreachable), else in the database. After `failures`
// consecutive failures a provider is skipped for `cooldownMs`; then exactly one message tries it
// (half-open): its success closes the circuit, its failure opens it again.
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';

export type CircuitState = 'closed' | 'open' | 'half_open';
/** `go`: send; `trial`: send as the one half-open try; `skip`: the circuit is open. */
export type Entry = 'go' | 'trial' | 'skip';

export type Breaker = {
  enter(provider: string): Promise<Entry>;
  /** Reports the send's outcome; `failed` says whether that failure opened the circuit. */
  succeeded(provider: string, entry: Entry): Promise<void>;
  failed(provider: string, entry: Entry): Promise<{ opened: boolean }>;
  state(provider: string): Promise<CircuitState>;
};

export type BreakerSettings = {
  failures: number;
  cooldownMs: number;
  /** How long the half-open try holds the provider: past it (its sender died), another may try. */
  trialLeaseMs: number;
  now: () => number;
};

function databaseBreaker(db: Db, settings: BreakerSettings): Breaker {
  const { now } = settings;
  const row = (provider: string) =>
    db.selectFrom('delivery_circuits').selectAll().where('provider', '=', provider).executeTakeFirst();
  return {
    async enter(provider) {
      const circuit = await row(provider);
      if (!circuit?.open_until) return 'go';
      const at = nowIso(now());
      if (circuit.open_until > at) return 'skip';
      // Of the senders that find the cool-down over, the one whose update matches holds the try.
      const taken = await db
        .updateTable('delivery_circuits')
        .set({ trial_until: nowIso(now() + settings.trialLeaseMs) })
        .where('provider', '=', provider)
        .where('open_until', '<=', at)
        .where((eb) => eb.or([eb('trial_until', 'is', null), eb('trial_until', '<=', at)]))
        .executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1 ? 'trial' : 'skip';
    },
    async succeeded(provider, entry) {
      let update = db.updateTable('delivery_circuits').set({ failures: 0, open_until: null, trial_until: null });
      // Only the try closes an open circuit; any other success ends a run of failures.
      if (entry !== 'trial') update = update.where('open_until', 'is', null).where('failures', '>', 0);
      await update.where('provider', '=', provider).execute();
    },
    async failed(provider, entry) {
      const until = nowIso(now() + settings.cooldownMs);
      if (entry === 'trial') {
        await db
          .updateTable('delivery_circuits')
          .set({ open_until: until, trial_until: null })
          .where('provider', '=', provider)
          .execute();
        return { opened: true };
      }
      await db
        .insertInto('delivery_circuits')
        .values({ provider, open_until: null, trial_until: null })
        .onConflict((oc) => oc.column('provider').doNothing())
        .execute();
      // One statement: failures from several instances add up, and the one reaching the limit opens it.
      const counted = await db
        .updateTable('delivery_circuits')
        .set({
          failures: sql`failures + 1`,
          open_until: sql`case when failures + 1 >= ${settings.failures} then ${until} else null end`,
        })
        .where('provider', '=', provider)
        .where('open_until', 'is', null)
        .returning(['failures', 'open_until'])
        .executeTakeFirst();
      // It was closed (the condition): open now means this failure opened it.
      return { opened: counted?.open_until != null };
    },
    async state(provider) {
      const circuit = await row(provider);
      if (!circuit?.open_until) return 'closed';
      return circuit.open_until > nowIso(now()) ? 'open' : 'half_open';
    },
  };
}

// Redis: one hash per provider (failures, open_until and trial_until in ms, 0 for none), each
// change one script, so that instances do not interleave.
const ENTER = `
local open = tonumber(redis.call('HGET', KEYS[1], 'open_until') or '0')
if open == 0 then return 'go' end
local now = tonumber(ARGV[1])
if open > now then return 'skip' end
if tonumber(redis.call('HGET', KEYS[1], 'trial_until') or '0') > now then return 'skip' end
redis.call('HSET', KEYS[1], 'trial_until', ARGV[2])
return 'trial'`;
const FAILED = `
if ARGV[3] == 'trial' then
  redis.call('HSET', KEYS[1], 'open_until', ARGV[2], 'trial_until', 0)
  return 1
end
if tonumber(redis.call('HGET', KEYS[1], 'open_until') or '0') ~= 0 then return 0 end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if failures >= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'open_until', ARGV[2])
  return 1
end
return 0`;
const SUCCEEDED = `
if ARGV[1] == 'trial' or tonumber(redis.call('HGET', KEYS[1], 'open_until') or '0') == 0 then
  redis.call('DEL', KEYS[1])
end
return 0`;

function redisBreaker(redis: Redis, settings: BreakerSettings): Breaker {
  const { now } = settings;
  const key = (provider: string) => `tessera:circuit:${provider}`;
  return {
    async enter(provider) {
      return (await redis.eval(ENTER, 1, key(provider), now(), now() + settings.trialLeaseMs)) as Entry;
    },
    async succeeded(provider, entry) {
      await redis.eval(SUCCEEDED, 1, key(provider), entry);
    },
    async failed(provider, entry) {
      const opened = await redis.eval(FAILED, 1, key(provider), settings.failures, now() + settings.cooldownMs, entry);
      return { opened: opened === 1 };
    },
    async state(provider) {
      const open = Number((await redis.hget(key(provider), 'open_until')) ?? 0);
      if (open === 0) return 'closed';
      return open > now() ? 'open' : 'half_open';
    },
  };
}

/** Every call goes to Redis, or to the database when Redis fails it (as the throttling counts do). */
function withInsurance(primary: Breaker, insurance: Breaker, redis: Redis): Breaker {
  const either =
    <A extends unknown[], R>(call: (breaker: Breaker) => (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (redis.status !== 'ready') return call(insurance)(...args);
      try {
        return await call(primary)(...args);
      } catch {
        return call(insurance)(...args);
      }
    };
  return {
    enter: either((b) => b.enter),
    succeeded: either((b) => b.succeeded),
    failed: either((b) => b.failed),
    state: either((b) => b.state),
  };
}

export function createBreaker(store: { db: Db; redis: Redis | null }, settings: BreakerSettings): Breaker {
  const database = databaseBreaker(store.db, settings);
  return store.redis ? withInsurance(redisBreaker(store.redis, settings), database, store.redis) : database;
}
