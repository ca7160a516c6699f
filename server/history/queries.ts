// The account's security history: its security events, newest first, a page at a time (a keyset
// cursor on (created_at, id), so a page never skips or repeats an event written meanwhile), within
// a range of UTC days and of the categories asked for; and its successful sign-ins per day. Every
// query is the account's own: `security_events_user_idx` (user_id, created_at) serves them.
import { sql } from 'kysely';
import {
  HISTORY_PAGE_SIZE,
  HISTORY_TYPES,
  KNOWN_HISTORY_TYPES,
  addDays,
  categoryOf,
  daysBetween,
  type HistoryCategory,
} from '../../contract/history.ts';
import type { HistoryEvent } from '../../contract/schemas.ts';
import { describeAgent, placeOf } from '../clientinfo/index.ts';
import type { Db } from '../db/index.ts';

export type DayRange = { from: string; to: string };

/** Where a page starts: the last event of the previous one. */
export type HistoryCursor = { at: string; id: string };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

export function encodeCursor(cursor: HistoryCursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');
}

/** The cursor a page's `next` carried, or null when it is not one. */
export function decodeCursor(text: string): HistoryCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [at, id] = value as unknown[];
    if (typeof at !== 'string' || !ISO.test(at) || typeof id !== 'string' || !/^[\w-]{1,64}$/.test(id)) return null;
    return { at, id };
  } catch {
    return null;
  }
}

/** The bounds of a range of days as the column's ISO text: from the first day's midnight to (not
 * including) the midnight after the last. */
const bounds = (range: DayRange) => ({
  start: `${range.from}T00:00:00.000Z`,
  end: `${addDays(range.to, 1)}T00:00:00.000Z`,
});

type PageOptions = {
  range: DayRange;
  categories: readonly HistoryCategory[] | null;
  cursor: HistoryCursor | null;
  limit?: number;
  /** The reader's language, for the names of cities. */
  locale?: string;
};

/** The query of a page: one row more than the page, to know whether another follows. */
export function historyQuery(db: Db, userId: string, options: PageOptions) {
  const limit = options.limit ?? HISTORY_PAGE_SIZE;
  const { start, end } = bounds(options.range);
  let query = db
    .selectFrom('security_events as e')
    .leftJoin('devices as d', (join) =>
      join.onRef('d.user_id', '=', 'e.user_id').onRef('d.device_key', '=', 'e.device_key'),
    )
    .select(['e.id', 'e.type', 'e.ip', 'e.created_at', 'd.user_agent'])
    .where('e.user_id', '=', userId)
    .where('e.created_at', '>=', start)
    .where('e.created_at', '<', end);
  const categories = options.categories;
  if (categories !== null) {
    const types = categories.flatMap((category) => (category === 'other' ? [] : HISTORY_TYPES[category]));
    const other = categories.includes('other');
    query = query.where((eb) =>
      eb.or([
        ...(types.length > 0 ? [eb('e.type', 'in', types)] : []),
        ...(other ? [eb('e.type', 'not in', [...KNOWN_HISTORY_TYPES])] : []),
      ]),
    );
  }
  const cursor = options.cursor;
  if (cursor) {
    query = query.where((eb) =>
      eb.or([
        eb('e.created_at', '<', cursor.at),
        eb.and([eb('e.created_at', '=', cursor.at), eb('e.id', '<', cursor.id)]),
      ]),
    );
  }
  return query
    .orderBy('e.created_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(limit + 1);
}

/** One page of the account's events. `categories` null: every category; otherwise at least one. */
export async function historyPage(
  db: Db,
  userId: string,
  options: PageOptions,
): Promise<{ data: HistoryEvent[]; next: string | null }> {
  const limit = options.limit ?? HISTORY_PAGE_SIZE;
  const rows = await historyQuery(db, userId, options).execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  // A page's events mostly come from a few devices and addresses: each is described once.
  const agents = new Map<string | null, ReturnType<typeof describeAgent>>();
  const places = new Map<string | null, ReturnType<typeof placeOf>>();
  const once = <K, V>(cache: Map<K, V>, key: K, work: (key: K) => V): V => {
    if (!cache.has(key)) cache.set(key, work(key));
    return cache.get(key)!;
  };
  return {
    data: page.map((row) => {
      const agent = once(agents, row.user_agent, describeAgent);
      return {
        id: row.id,
        at: row.created_at,
        type: row.type,
        category: categoryOf(row.type),
        browser: agent.browser,
        os: agent.os,
        platform: agent.platform,
        ...once(places, row.ip, (ip) => placeOf(ip, options.locale)),
      };
    }),
    next: rows.length > limit && last ? encodeCursor({ at: last.created_at, id: last.id }) : null,
  };
}

/** The account's successful sign-ins on each day of the range (UTC), every day listed, oldest first. */
export async function signInsPerDay(
  db: Db,
  userId: string,
  range: DayRange,
): Promise<Array<{ date: string; sign_ins: number }>> {
  const { start, end } = bounds(range);
  const day = sql<string>`substr(created_at, 1, 10)`;
  const rows = await db
    .selectFrom('security_events')
    .select([day.as('day'), (eb) => eb.fn.countAll().as('count')])
    .where('user_id', '=', userId)
    .where('type', 'in', HISTORY_TYPES.sign_in)
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .groupBy(day)
    .execute();
  const counts = new Map(rows.map((row) => [row.day, Number(row.count)]));
  return daysBetween(range.from, range.to).map((date) => ({ date, sign_ins: counts.get(date) ?? 0 }));
}
