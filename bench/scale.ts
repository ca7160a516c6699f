// The scale benchmark's databases (BENCH_ONLY=scale npm run bench): PostgreSQL databases created
// for the run, migrated by the real migrations, then filled in bulk with accounts as createUser
// makes them (a users row, a default email, a default phone, a password), all sharing one
// precomputed Argon2id hash. Also times the sign-in's account look-up in this process.
import { hash } from '@node-rs/argon2';
import pg from 'pg';
import { openDatabase, type Db, type DatabaseHandle } from '../server/db/index.ts';
import { migrate } from '../server/db/migrations.ts';
import { findByLoginName } from '../server/identity/accounts.ts';
import { ARGON2_OPTIONS } from '../server/passwords/hashing.ts';
import { DEMO_PASSWORD } from '../server/seed/demo.ts';
import { createSession } from '../server/sessions/store.ts';
import { createPostgresDatabase } from '../server/testing/harness.ts';

export const scaleEmail = (i: number) => `scale.user${i}@example.be`;
export const scalePhone = (i: number) => `+32472${String(i).padStart(6, '0')}`;

/** Accounts per INSERT … SELECT statement: large enough to be fast, small enough to show progress. */
const BATCH = 50_000;

export type ScaleDatabase = { accounts: number; url: string; handle: DatabaseHandle; drop(): Promise<void> };

/** A fresh database with `accounts` accounts (numbered 0 … accounts − 1), vacuumed and analysed. */
export async function createScaleDatabase(accounts: number, progress: (done: number) => void): Promise<ScaleDatabase> {
  if (accounts > 1_000_000) throw new Error('scale accounts: at most 1,000,000 (phone numbers have six free digits)');
  const database = await createPostgresDatabase();
  const handle = openDatabase({ databaseUrl: database.url, sqlitePath: ':memory:' });
  await migrate(handle.db);
  const passwordHash = await hash(DEMO_PASSWORD, ARGON2_OPTIONS);
  const now = new Date().toISOString();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    // A crash loses a bench database, nothing more: no need to wait for each commit's flush.
    await client.query('set synchronous_commit = off');
    // Rows consistent by construction: skip the per-row foreign-key triggers, as a restore does
    // (the constraints stay in the schema and hold for every later write). Needs a superuser, as
    // the bench's default connection (postgres) is.
    await client.query('set session_replication_role = replica');
    // Ids as the app makes them (random-looking UUIDs), but derived from the account number so
    // that the four statements agree without a join.
    const userId = `md5('scale-user-' || i)::uuid::text`;
    const contact = (
      table: string,
      value: string,
    ) => `insert into ${table} (id, user_id, value, is_default, verified, created_at)
      select gen_random_uuid()::text, ${userId}, ${value}, 1, 1, $3 from generate_series($1::int, $2::int) i`;
    const statements = [
      `insert into users (id, firstname, lastname, language, user_id, password_status, last_password_change,
         mfa_forced, mfa_customer, has_sso, sso_only, created_at, updated_at)
       select ${userId}, 'Scale' || i, 'User', 'en', 'US-' || i, 0, $3, 0, 0, 0, 0, $3, $3 from generate_series($1::int, $2::int) i`,
      contact('user_emails', `'scale.user' || i || '@example.be'`),
      contact('user_phones', `'+32472' || lpad(i::text, 6, '0')`),
      `insert into passwords (id, user_id, hash, created_at)
       select gen_random_uuid()::text, ${userId}, $4, $3 from generate_series($1::int, $2::int) i`,
    ];
    for (let start = 0; start < accounts; start += BATCH) {
      const end = Math.min(accounts, start + BATCH) - 1;
      await client.query('begin');
      for (const [n, statement] of statements.entries()) {
        await client.query(statement, n === 3 ? [start, end, now, passwordHash] : [start, end, now]);
      }
      await client.query('commit');
      progress(end + 1);
    }
    // What autovacuum would soon do on a live database; done now so that it does not run mid-measurement.
    await client.query('vacuum analyze users, user_emails, user_phones, passwords');
  } finally {
    await client.end();
  }
  return {
    accounts,
    url: database.url,
    handle,
    async drop() {
      await handle.close();
      await database.drop();
    },
  };
}

/** Sessions for `count` accounts picked at random, made by the app's own createSession: their tokens. */
export async function sampleSessions(scale: ScaleDatabase, count: number): Promise<string[]> {
  const picks = Array.from({ length: count }, () => `US-${Math.floor(Math.random() * scale.accounts)}`);
  const users = await scale.handle.db.selectFrom('users').select('id').where('user_id', 'in', picks).execute();
  const sessions = await Promise.all(
    users.map((user) =>
      createSession(scale.handle.db, { userId: user.id, deviceId: null, clientId: null, ip: '127.0.0.1', ttlDays: 30 }),
    ),
  );
  return sessions.map((session) => session.token);
}

export type Timing = { samples: number; p50Ms: number; p99Ms: number };

/** The sign-in's account look-up, findByLoginName, the query POST /token runs before Argon2id
 * (whose cost does not depend on the number of accounts, so it is left out): random existing
 * emails, existing phones and unknown emails in turn, one at a time. Each sample alternates
 * between the databases (in both orders), so that both see the same machine. */
export async function timeLookups(databases: ScaleDatabase[], samples: number): Promise<Timing[]> {
  const latencies = databases.map(() => [] as number[]);
  const lookup = async (db: Db, accounts: number, n: number) => {
    const i = Math.floor(Math.random() * accounts);
    const [kind, value] =
      n % 3 === 0
        ? (['email', scaleEmail(i)] as const)
        : n % 3 === 1
          ? (['phone', scalePhone(i)] as const)
          : (['email', `nobody${i}@example.be`] as const);
    const t0 = performance.now();
    const found = await findByLoginName(db, kind, value);
    const ms = performance.now() - t0;
    if ((found === null) !== (n % 3 === 2)) throw new Error(`look-up of ${value}: ${found ? 'found' : 'not found'}`);
    return ms;
  };
  const warmUp = Math.ceil(samples / 10);
  for (let n = 0; n < warmUp + samples; n++) {
    const order = n % 2 === 0 ? databases.map((_, k) => k) : databases.map((_, k) => databases.length - 1 - k);
    for (const k of order) {
      const ms = await lookup(databases[k]!.handle.db, databases[k]!.accounts, n);
      if (n >= warmUp) latencies[k]!.push(ms);
    }
  }
  return latencies.map((list) => {
    const sorted = list.toSorted((a, b) => a - b);
    return {
      samples: sorted.length,
      p50Ms: sorted[Math.floor(sorted.length / 2)]!,
      p99Ms: sorted[Math.floor(sorted.length * 0.99)]!,
    };
  });
}
