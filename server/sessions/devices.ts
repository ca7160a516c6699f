// The device a sign-in comes from: the browser's random device id, per user, with first and last
// sighting. Every sign-in remembers it, and one the user chose to trust skips the second factor
// until its trust expires. The user's own list of devices is server/devices.
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from './tokens.ts';

/** Returns the device row id for (user, device key), creating it on first sight. */
export async function touchDevice(db: Db, userId: string, deviceKey: string, userAgent: string | null): Promise<string> {
  const now = nowIso();
  // One statement whether the device is new or known.
  const row = await db.insertInto('devices').values({
    id: newId(), user_id: userId, device_key: deviceKey, user_agent: userAgent, first_seen_at: now, last_seen_at: now, trusted_until: null,
  }).onConflict((c) => c.columns(['user_id', 'device_key']).doUpdateSet({ last_seen_at: now, user_agent: userAgent }))
    .returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** A device the user chose to trust skips MFA at sign-in until its trust expires. */
export async function isTrustedDevice(db: Db, userId: string, deviceKey: string): Promise<boolean> {
  const row = await db.selectFrom('devices').select('trusted_until')
    .where('user_id', '=', userId).where('device_key', '=', deviceKey).executeTakeFirst();
  return !!row?.trusted_until && row.trusted_until > nowIso();
}
