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

/** The user's devices, most recently seen first; a lapsed trust shows as none. */
export async function listDevices(db: Db, userId: string, currentDeviceId: string | null) {
  const rows = await db.selectFrom('devices').select(['id', 'user_agent', 'first_seen_at', 'last_seen_at', 'trusted_until'])
    .where('user_id', '=', userId).orderBy('last_seen_at', 'desc').execute();
  const now = nowIso();
  return rows.map((row) => ({
    ...row,
    trusted_until: row.trusted_until && row.trusted_until > now ? row.trusted_until : null,
    current: row.id === currentDeviceId,
  }));
}

/** Ends a device's trust: it asks for the second factor again. False when the user has no such device. */
export async function untrustDevice(db: Db, userId: string, deviceId: string): Promise<boolean> {
  const done = await db.updateTable('devices').set({ trusted_until: null })
    .where('id', '=', deviceId).where('user_id', '=', userId).executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}
