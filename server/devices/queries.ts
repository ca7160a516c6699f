// Devices: the browser's random device id, per user, with first and last sighting.
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';

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
