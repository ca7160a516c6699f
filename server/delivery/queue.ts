// The durable outbox. A message is written with `enqueue` inside the transaction of the change that
// sends it (a code stored, a flow advanced), so a crash never keeps one without the other. A worker
// in every instance delivers what is due, with retries and backoff; instances share the table and
// lease each message while they deliver it. The answer to the request never waits for the sender:
// its speed or failure cannot tell a real account from an unknown one.
import { SqliteAdapter, sql } from 'kysely';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';
import { serialPasses } from '../workers/serialPasses.ts';
import { codeStillWanted, rowIdOf, stepMessageId, type FallbackStep } from './fallback.ts';
import type { Channel, Delivery, Message } from './index.ts';
import { deliveryOf, recordDelivery, type DeliveryStatus } from './receipts.ts';

/** Tries before a message is given up; with the backoff below they span about two minutes. */
export const MAX_DELIVERY_ATTEMPTS = 6;
/** How long a worker holds a message it is delivering before another may take it over (a worker
 * that died holding it is known by this alone): OUTBOX_LEASE_SECONDS, longer than any send. */
const LEASE_MS = 60_000;
const POLL_MS = 1_000;
const BATCH = 20;

const backoffMs = (attempts: number) => Math.min(60_000, 1_000 * 2 ** attempts);

/** A code's message: its challenge, and the steps to try after the chosen channel (./fallback.ts). */
export type CodeSending = { challengeId: string; fallbacks: FallbackStep[] };

export type Outbox = {
  /** Queues a message; pass the transaction of the change it belongs to. */
  enqueue(db: Db, message: Message & { ttlSeconds: number; sending?: CodeSending }): Promise<void>;
  /** Asks the worker to look now (after the transaction that queued a message committed). */
  kick(): void;
  /** A delivery receipt came for this message: a step awaiting it ends (delivered) or moves on
   * at once (failed). */
  heard(messageId: string, status: DeliveryStatus): Promise<void>;
  /** Delivers every message that is due, and returns once none is left (tests, shutdown). */
  drain(): Promise<void>;
  /** Messages waiting to be delivered. */
  depth(): Promise<number>;
  /** Work run before each pass: turning queued requests into messages (forgotten passwords), or,
   * given `everyMs`, housekeeping run at most that often (forgetting what has expired). */
  addStep(step: () => Promise<void>, everyMs?: number): void;
  start(): void;
  stop(): Promise<void>;
};

type Log = { warn(data: object, message: string): void; error(data: object, message: string): void };

/** `dropped`: told of a message given up unsent because its code expired first (a sender's own
 * failures are counted by the sender); `fellBack`: of a code that went another way;
 * `stepSeconds`: how long a code's step waits for its receipt (./fallback.ts); `leaseMs`: how
 * long a message stays with the worker that took it. */
export function createOutbox(
  db: Db,
  delivery: Delivery,
  log: Log,
  hooks: {
    dropped?(channel: string): void;
    fellBack?(from: string, to: string): void;
    stepSeconds?: Partial<Record<Channel, number>>;
    leaseMs?: number;
  } = {},
): Outbox {
  const leaseMs = hooks.leaseMs ?? LEASE_MS;
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  const steps: Array<() => Promise<void>> = [];
  /** The messages this worker leased and has not finished: handed back if it stops first. */
  const held = new Set<string>();

  /** Leases the due messages to this worker. PostgreSQL skips rows another worker holds. */
  async function claim() {
    const now = nowIso();
    const due = db
      .selectFrom('message_outbox')
      .select('id')
      .where('failed_at', 'is', null)
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .orderBy('created_at')
      .limit(BATCH);
    return db
      .updateTable('message_outbox')
      .set({ locked_until: nowIso(Date.now() + leaseMs) })
      .where('id', 'in', sqlite ? due : due.forUpdate().skipLocked())
      .returningAll()
      .execute();
  }

  type Row = Awaited<ReturnType<typeof claim>>[number];
  const stepsOf = (row: Row): FallbackStep[] => (row.fallbacks ? (JSON.parse(row.fallbacks) as FallbackStep[]) : []);
  // Done with: the code in its text is not kept at rest.
  const done = (row: Row) => db.deleteFrom('message_outbox').where('id', '=', row.id).execute();

  /** The code goes the next way, now: the step it leaves is written down as failed, or as unknown
   * when its provider took it but said nothing in time. */
  async function fallBack(row: Row, next: FallbackStep, rest: FallbackStep[], left: 'failed' | 'unknown') {
    const step = Number(row.step);
    await recordDelivery(db, {
      id: stepMessageId(row.id, step),
      provider: '',
      channel: row.channel,
      status: left,
      code: { challengeId: row.challenge_id!, step },
    });
    await db
      .updateTable('message_outbox')
      .set({
        channel: next.channel,
        subject: next.subject,
        body: next.body,
        fallbacks: JSON.stringify(rest),
        step: step + 1,
        awaiting_id: null,
        attempts: 0,
        locked_until: null,
        next_attempt_at: nowIso(),
      })
      .where('id', '=', row.id)
      .execute();
    hooks.fellBack?.(row.channel, next.channel);
  }

  /** A step whose provider took it, and whose receipt was awaited: delivered ends it; "failed", or
   * nothing said in time, moves the code on while it is still wanted. */
  async function settle(row: Row) {
    const heard = await deliveryOf(db, row.awaiting_id!);
    const [next, ...rest] = stepsOf(row);
    if (heard?.status === 'delivered' || !next || !(await codeStillWanted(db, row.challenge_id!))) return done(row);
    await fallBack(row, next, rest, heard?.status === 'failed' ? 'failed' : 'unknown');
  }

  async function deliver(row: Row) {
    if (row.expires_at <= nowIso()) {
      await db
        .updateTable('message_outbox')
        .set({ failed_at: nowIso(), last_error: 'expired before delivery', body: '' })
        .where('id', '=', row.id)
        .execute();
      hooks.dropped?.(row.channel);
      return;
    }
    if (row.awaiting_id) return settle(row);
    const step = Number(row.step);
    const id = stepMessageId(row.id, step);
    const code = row.challenge_id ? { challengeId: row.challenge_id, step } : undefined;
    try {
      const taken = await delivery.send({
        id,
        channel: row.channel as Message['channel'],
        to: row.recipient,
        subject: row.subject,
        body: row.body,
        ...(code ? { code } : {}),
      });
      const wait = hooks.stepSeconds?.[row.channel as Channel];
      // A step whose provider will say what became of it waits for that, while another way is left.
      if (code && taken?.receipts && wait && stepsOf(row).length > 0) {
        await db
          .updateTable('message_outbox')
          .set({ awaiting_id: id, locked_until: null, next_attempt_at: nowIso(Date.now() + wait * 1000) })
          .where('id', '=', row.id)
          .execute();
        return;
      }
      await done(row);
    } catch (error) {
      const [next, ...rest] = stepsOf(row);
      if (code && next && (await codeStillWanted(db, code.challengeId))) {
        log.warn({ err: error, channel: row.channel, next: next.channel }, 'code not sent, trying another way');
        await fallBack(row, next, rest, 'failed');
        return;
      }
      const attempts = Number(row.attempts) + 1;
      const last = attempts >= MAX_DELIVERY_ATTEMPTS;
      log.warn(
        { err: error, channel: row.channel, attempts },
        last ? 'message delivery given up' : 'message delivery failed, will retry',
      );
      await db
        .updateTable('message_outbox')
        .set({
          attempts,
          locked_until: null,
          last_error: String((error as Error)?.message ?? error).slice(0, 500),
          next_attempt_at: nowIso(Date.now() + backoffMs(attempts)),
          ...(last ? { failed_at: nowIso(), body: '' } : {}),
        })
        .where('id', '=', row.id)
        .execute();
    }
  }

  async function pass(): Promise<void> {
    for (const step of steps) await step();
    for (;;) {
      const rows = await claim();
      if (rows.length === 0) return;
      for (const row of rows) held.add(row.id);
      await Promise.all(rows.map((row) => deliver(row).finally(() => held.delete(row.id))));
    }
  }

  // A lost database is survived: the next poll tries again.
  const passes = serialPasses(pass, (error) => log.error({ err: error }, 'outbox pass failed'));

  return {
    async enqueue(tx, message) {
      const now = Date.now();
      await tx
        .insertInto('message_outbox')
        .values({
          id: newId(),
          channel: message.channel,
          recipient: message.to,
          subject: message.subject,
          body: message.body,
          created_at: nowIso(now),
          expires_at: nowIso(now + message.ttlSeconds * 1000),
          next_attempt_at: nowIso(now),
          locked_until: null,
          failed_at: null,
          last_error: null,
          challenge_id: message.sending?.challengeId ?? null,
          fallbacks: message.sending?.fallbacks.length ? JSON.stringify(message.sending.fallbacks) : null,
          awaiting_id: null,
        })
        .execute();
    },
    async heard(messageId, status) {
      // Delivered: nothing more to try. Failed: the next way, now. Anything else: the step waits on.
      if (status === 'delivered') {
        // Any step's delivery, even one the code has moved on from, ends it.
        await db
          .deleteFrom('message_outbox')
          .where('id', '=', rowIdOf(messageId))
          .where('challenge_id', 'is not', null)
          .execute();
        return;
      }
      if (status !== 'failed') return;
      const woken = await db
        .updateTable('message_outbox')
        .set({ next_attempt_at: nowIso() })
        .where('awaiting_id', '=', messageId)
        .executeTakeFirst();
      if (Number(woken.numUpdatedRows) > 0 && !stopped) setImmediate(() => void passes.run());
    },
    kick() {
      if (!stopped) setImmediate(() => void passes.run());
    },
    // A kick may have started a pass just before this one was asked for: drain waits for it too.
    drain: () => passes.drain(),
    async depth() {
      const row = await db
        .selectFrom('message_outbox')
        .select(sql<number>`count(*)`.as('n'))
        .where('failed_at', 'is', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(() => void passes.run(), POLL_MS);
      timer.unref();
      void passes.run();
    },
    addStep(step, everyMs) {
      if (everyMs === undefined) {
        steps.push(step);
        return;
      }
      let last = 0;
      steps.push(async () => {
        if (Date.now() - last < everyMs) return;
        last = Date.now();
        await step();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      // A sender that hangs does not hold the shutdown: its message's lease runs out and a worker
      // sends it again (delivery is at least once).
      const running = passes.current();
      if (running) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      // What it still holds, another worker takes at once rather than when the lease runs out (the
      // same idempotency key lets a provider drop a repeat of a send this one did not finish).
      if (held.size > 0)
        await db
          .updateTable('message_outbox')
          .set({ locked_until: null })
          .where('id', 'in', [...held])
          .execute()
          .catch((error) => log.warn({ err: error }, 'outbox leases not handed back'));
    },
  };
}

/** The latest messages, newest first (the development outbox page shows them). */
export async function latestMessages(db: Db, limit = 100) {
  return db.selectFrom('outbox').selectAll().orderBy('created_at', 'desc').limit(limit).execute();
}
