// The device a sign-in comes from: the browser's random device id, per user, with first and last
// sighting. Every sign-in remembers it, and one the user chose to trust skips the second factor
// until its trust expires. The user's own list of devices is server/devices.
import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from './tokens.ts';

/** A device seen at `at` (and first at `firstAt`, when several sightings are written as one). */
export type Sighting = { userId: string; deviceKey: string; userAgent: string | null; at: string; firstAt?: string };

/** Returns the device row id for (user, device key), creating it on first sight. */
export async function touchDevice(
  db: Db,
  userId: string,
  deviceKey: string,
  userAgent: string | null,
): Promise<string> {
  const [row] = await touchDevices(db, [{ userId, deviceKey, userAgent, at: nowIso() }]);
  return row!.id;
}

/** Remembers sightings, at most one per (user, device key), in one statement whether the devices
 * are new or known; returns their row ids. A sighting written late (server/sessions/records.ts)
 * never moves a device's last sighting back, nor its first one forward. */
export async function touchDevices(
  db: Db,
  sightings: Sighting[],
): Promise<Array<{ id: string; user_id: string; device_key: string }>> {
  if (sightings.length === 0) return [];
  const newer = sql<boolean>`excluded.last_seen_at >= devices.last_seen_at`;
  return db
    .insertInto('devices')
    .values(
      sightings.map((s) => ({
        id: newId(),
        user_id: s.userId,
        device_key: s.deviceKey,
        user_agent: s.userAgent,
        first_seen_at: s.firstAt ?? s.at,
        last_seen_at: s.at,
        trusted_until: null,
      })),
    )
    .onConflict((c) =>
      c.columns(['user_id', 'device_key']).doUpdateSet({
        last_seen_at: sql`case when ${newer} then excluded.last_seen_at else devices.last_seen_at end`,
        user_agent: sql`case when ${newer} then excluded.user_agent else devices.user_agent end`,
        first_seen_at: sql`case when excluded.first_seen_at < devices.first_seen_at then excluded.first_seen_at else devices.first_seen_at end`,
      }),
    )
    .returning(['id', 'user_id', 'device_key'])
    .execute();
}

/** A device the user chose to trust skips MFA at sign-in until its trust expires. */
export async function isTrustedDevice(db: Db, userId: string, deviceKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('devices')
    .select('trusted_until')
    .where('user_id', '=', userId)
    .where('device_key', '=', deviceKey)
    .executeTakeFirst();
  return !!row?.trusted_until && row.trusted_until > nowIso();
}
