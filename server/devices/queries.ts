// Devices: the browser's random device id, per user, with first and last sighting. A sign-in
// remembers its device (server/sessions/devices.ts); here the user lists theirs and ends a trust.
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';

/** The user's devices, most recently seen first; a lapsed trust shows as none. The current one is
 * the device the caller's session was opened on. */
export async function listDevices(db: Db, userId: string, currentDeviceKey: string | null) {
  const rows = await db.selectFrom('devices').select(['id', 'device_key', 'user_agent', 'first_seen_at', 'last_seen_at', 'trusted_until'])
    .where('user_id', '=', userId).orderBy('last_seen_at', 'desc').execute();
  const now = nowIso();
  return rows.map(({ device_key: key, ...row }) => ({
    ...row,
    trusted_until: row.trusted_until && row.trusted_until > now ? row.trusted_until : null,
    current: key === currentDeviceKey,
  }));
}

/** Ends a device's trust: it asks for the second factor again. False when the user has no such device. */
export async function untrustDevice(db: Db, userId: string, deviceId: string): Promise<boolean> {
  const done = await db.updateTable('devices').set({ trusted_until: null })
    .where('id', '=', deviceId).where('user_id', '=', userId).executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}
