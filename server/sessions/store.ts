// Sessions: one row per issued token, looked up by the token's hash, revocable, expiring.
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { hashToken, newId, newToken } from './tokens.ts';

export type SessionInfo = { sessionId: string; userId: string; deviceId: string | null };

/** last_used_at is refreshed at most this often, so that reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

export async function createSession(db: Db, input: {
  userId: string; deviceId: string | null; clientId: string | null; ip: string | null; ttlDays: number;
}): Promise<{ token: string; expiresIn: number }> {
  const token = newToken();
  const now = Date.now();
  const expiresIn = input.ttlDays * 24 * 60 * 60;
  await db.insertInto('sessions').values({
    id: newId(),
    user_id: input.userId,
    token_hash: hashToken(token),
    device_id: input.deviceId,
    client_id: input.clientId,
    ip: input.ip,
    created_at: nowIso(now),
    last_used_at: nowIso(now),
    expires_at: nowIso(now + expiresIn * 1000),
    revoked_at: null,
  }).execute();
  return { token, expiresIn };
}

export async function findSession(db: Db, token: string): Promise<SessionInfo | null> {
  const now = Date.now();
  const row = await db.selectFrom('sessions')
    .select(['id', 'user_id', 'device_id', 'last_used_at'])
    .where('token_hash', '=', hashToken(token))
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso(now))
    .executeTakeFirst();
  if (!row) return null;
  if (now - Date.parse(row.last_used_at) > TOUCH_INTERVAL_MS) {
    await db.updateTable('sessions').set({ last_used_at: nowIso(now) }).where('id', '=', row.id).execute();
  }
  return { sessionId: row.id, userId: row.user_id, deviceId: row.device_id };
}

export async function revokeSession(db: Db, sessionId: string): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: nowIso() })
    .where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
}
