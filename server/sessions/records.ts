// A sign-in's records: its security event (login_succeeded) and its device sighting. The answer
// does not wait for them. The session row, which the sign-in inserts anyway, carries them
// (pending_record) in that one statement, so a crash cannot keep the session and lose them. A
// worker in every instance writes them soon after, in batches of one transaction each: kicked by
// each sign-in, and polling for what another instance or a crash left. Shutdown writes what is
// left; after a crash the next start does. Whoever reads devices settles the user's records
// first, so nothing reads stale.
import { SqliteAdapter } from 'kysely';
import type { Db } from '../db/index.ts';
import { perDatabase, prepared } from '../db/prepared.ts';
import { logEvent, writeEvents, type SecurityEvent } from '../events/record.ts';
import { serialPasses } from '../workers/serialPasses.ts';
import { touchDevices, type Sighting } from './devices.ts';

/** Records written per transaction. */
const BATCH = 200;
/** A kick waits this long, so that the sign-ins of a busy moment are written together: a batch
 * costs one transaction and touches each device once, however many sign-ins it holds. */
const KICK_DELAY_MS = 250;
/** What a crash or another instance left is picked up within this. */
const POLL_MS = 1_000;

export type SignInRecords = {
  /** Asks the worker to write soon (after the sign-in's session was inserted). */
  kick(): void;
  /** Writes every waiting record, and returns once none is left (tests, shutdown). */
  drain(): Promise<void>;
  /** Writes one user's waiting records now (before reading their devices). */
  settle(userId: string): Promise<void>;
  /** Records waiting to be written. */
  pending(): Promise<number>;
  start(): void;
  /** Stops the worker and writes what is left. */
  stop(): Promise<void>;
};

type Log = { error(data: object, message: string): void };

/** A sign-in from a device its account never used before (and the account had used others). */
export type NewDevice = {
  userId: string;
  sessionId: string;
  deviceKey: string;
  userAgent: string | null;
  ip: string | null;
  at: string;
  /** Where the sign-in was made (`https://<host>`), for links back to it. */
  origin: string | null;
};

/** What learns of sign-ins from new devices, once their records are written. It runs apart from
 * the records: a failure of its own is logged and never holds them back (so a crash between the two
 * loses the news, never the records). */
export type NewDeviceHook = (devices: NewDevice[]) => Promise<void>;

/** Whether a user has records waiting: one read, so that settling a user with none (nearly every
 * call that reads devices or history) opens no transaction. Compiled once per database. */
const waitingOf = perDatabase((db: Db) =>
  prepared(
    db,
    (q, userId: string) =>
      q
        .selectFrom('sessions')
        .select('id')
        .where('user_id', '=', userId)
        .where('pending_record', 'is not', null)
        .limit(1),
    1,
  ),
);

export function createSignInRecords(db: Db, log: Log, newDevices?: () => NewDeviceHook | null): SignInRecords {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  let poll: NodeJS.Timeout | null = null;
  let kicked: NodeJS.Timeout | null = null;
  let stopped = true;

  /** Writes up to BATCH waiting records (of one user, when given) in one transaction; returns how
   * many. Several instances take disjoint rows (skip locked); settling a user waits for rows
   * another worker holds, so that they are written when it returns. */
  async function writeBatch(userId?: string): Promise<number> {
    const hook = newDevices?.() ?? null;
    let fresh: NewDevice[] = [];
    const events = await db.transaction().execute(async (trx) => {
      let waiting = trx
        .selectFrom('sessions')
        .select(['id', 'user_id', 'device_key', 'user_agent', 'ip', 'created_at', 'pending_record'])
        .where('pending_record', 'is not', null)
        .orderBy('created_at')
        .limit(BATCH);
      if (userId) waiting = waiting.where('user_id', '=', userId);
      const rows = await (sqlite ? waiting : userId ? waiting.forUpdate() : waiting.forUpdate().skipLocked()).execute();
      if (rows.length === 0) return [];
      // One sighting per device, the latest; sorted, so that concurrent writers lock devices in one order.
      const sightings = new Map<string, Sighting>();
      for (const row of rows) {
        if (row.device_key === null) continue;
        const key = `${row.user_id}\n${row.device_key}`;
        const seen = sightings.get(key);
        sightings.set(key, {
          userId: row.user_id,
          deviceKey: row.device_key,
          userAgent: row.user_agent,
          at: row.created_at,
          firstAt: seen?.firstAt ?? row.created_at,
        });
      }
      // Which devices are new to their account, before this batch makes them known.
      fresh = hook ? await newDevicesOf(trx, rows) : [];
      const devices = await touchDevices(
        trx,
        [...sightings.keys()].sort().map((key) => sightings.get(key)!),
      );
      const deviceOf = new Map(devices.map((d) => [`${d.user_id}\n${d.device_key}`, d.id]));
      const written: SecurityEvent[] = rows.map((row) => {
        // The origin is for the new-device mail's link, not the event.
        const { origin: _origin, ...detail } = JSON.parse(row.pending_record!) as Record<string, unknown>;
        // One event per sign-in, once its session is open: a Microsoft sign-in is named as such.
        const type = detail.provider === 'microsoft' ? 'sso_sign_in' : 'login_succeeded';
        return { type, userId: row.user_id, ip: row.ip, deviceKey: row.device_key, at: row.created_at, detail };
      });
      await writeEvents(trx, written);
      // Every session of the batch in one statement, each with its device.
      const withDevice = rows.flatMap((row) => {
        const deviceId = deviceOf.get(`${row.user_id}\n${row.device_key}`);
        return deviceId ? [[row.id, deviceId] as const] : [];
      });
      await trx
        .updateTable('sessions')
        .set((eb) => {
          const [first, ...rest] = withDevice;
          if (!first) return { pending_record: null };
          let device = eb.case().when('id', '=', first[0]).then(first[1]);
          for (const [id, deviceId] of rest) device = device.when('id', '=', id).then(deviceId);
          return { pending_record: null, device_id: device.else(eb.ref('device_id')).end() };
        })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return written;
    });
    if (hook && fresh.length > 0)
      await hook(fresh).catch((error: unknown) => log.error({ err: error }, 'telling of new devices failed'));
    // Logged once written: a batch that failed is tried again, and logs then.
    for (const event of events) logEvent(db, event);
    return events.length;
  }

  /** The batch's first sign-in from each device its account never used, when the account had used
   * others (an account's very first device is no news to it). */
  async function newDevicesOf(
    trx: Db,
    rows: Array<{
      id: string;
      user_id: string;
      device_key: string | null;
      user_agent: string | null;
      ip: string | null;
      created_at: string;
      pending_record: string | null;
    }>,
  ): Promise<NewDevice[]> {
    const users = [...new Set(rows.filter((r) => r.device_key !== null).map((r) => r.user_id))];
    if (users.length === 0) return [];
    const known = await trx
      .selectFrom('devices')
      .select(['user_id', 'device_key'])
      .where('user_id', 'in', users)
      .execute();
    const hasDevices = new Set(known.map((d) => d.user_id));
    const seen = new Set(known.map((d) => `${d.user_id}\n${d.device_key}`));
    const fresh: NewDevice[] = [];
    for (const row of rows) {
      const key = `${row.user_id}\n${row.device_key}`;
      if (row.device_key === null || seen.has(key)) continue;
      seen.add(key);
      if (!hasDevices.has(row.user_id)) continue;
      const detail = JSON.parse(row.pending_record!) as { origin?: unknown };
      fresh.push({
        userId: row.user_id,
        sessionId: row.id,
        deviceKey: row.device_key,
        userAgent: row.user_agent,
        ip: row.ip,
        at: row.created_at,
        origin: typeof detail.origin === 'string' ? detail.origin : null,
      });
    }
    return fresh;
  }

  async function writeAll(userId?: string): Promise<void> {
    while ((await writeBatch(userId)) === BATCH);
  }

  // A lost database is survived: the rows wait, and the next poll tries again.
  const passes = serialPasses(
    () => writeAll(),
    (error) => log.error({ err: error }, 'writing sign-in records failed'),
  );

  return {
    kick() {
      if (stopped || kicked) return;
      kicked = setTimeout(() => {
        kicked = null;
        void passes.run();
      }, KICK_DELAY_MS);
    },
    drain: () => passes.drain(),
    async settle(userId) {
      // Rows another worker is writing at this moment still read as waiting (its update is not
      // committed yet): then the transaction below waits for that worker.
      if ((await waitingOf(db)(userId)).length === 0) return;
      await writeAll(userId);
    },
    async pending() {
      const row = await db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('pending_record', 'is not', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    start() {
      if (!stopped) return;
      stopped = false;
      poll = setInterval(() => void passes.run(), POLL_MS);
      poll.unref();
      // What the last run left (a crash) is written now.
      void passes.run();
    },
    async stop() {
      stopped = true;
      if (poll) clearInterval(poll);
      if (kicked) clearTimeout(kicked);
      poll = kicked = null;
      while (passes.current()) await passes.current();
      await writeAll().catch((error: unknown) =>
        log.error({ err: error }, 'writing sign-in records at shutdown failed; the next start writes them'),
      );
    },
  };
}
