// Sessions: one row per issued token, looked up by the token's hash, revocable, expiring.
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { perDatabase, prepared } from '../db/prepared.ts';
import { hashToken, newId, newToken } from './tokens.ts';

export type SessionInfo = {
  sessionId: string;
  userId: string;
  /** The device id header the session was opened with. */
  deviceKey: string | null;
  mfaAt: string | null;
  /** How that second factor was given, where OIDC's amr names it ('hwk', 'swk': a passkey). */
  mfaAmr: string | null;
  scope: string | null;
  /** When the sign-in behind it proved the password. */
  signedInAt: string;
};

/** last_used_at is refreshed at most this often, so that reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

/** The insert, compiled once per database: every sign-in runs it. */
function compileInsert(db: Db) {
  type Value = string | null;
  return prepared(
    db,
    (
      q,
      id: Value,
      userId: Value,
      tokenHash: Value,
      deviceId: Value,
      clientId: Value,
      ip: Value,
      now: Value,
      expiresAt: Value,
      mfaAt: Value,
      scope: Value,
      deviceKey: Value,
      userAgent: Value,
      pending: Value,
      mfaAmr: Value,
    ) =>
      q.insertInto('sessions').values({
        id: id!,
        user_id: userId!,
        token_hash: tokenHash!,
        device_id: deviceId,
        client_id: clientId,
        ip,
        created_at: now!,
        last_used_at: now!,
        expires_at: expiresAt!,
        revoked_at: null,
        mfa_at: mfaAt,
        scope,
        device_key: deviceKey,
        user_agent: userAgent,
        pending_record: pending,
        mfa_amr: mfaAmr,
      }),
    14,
  );
}
const insertOf = perDatabase(compileInsert);

export async function createSession(
  db: Db,
  input: {
    userId: string;
    deviceId: string | null;
    clientId: string | null;
    ip: string | null;
    ttlDays: number;
    deviceKey?: string | null;
    userAgent?: string | null;
    /** Set when the sign-in passed a second factor. */
    mfaAt?: string | null;
    /** How it was given, where OIDC's amr names it. */
    mfaAmr?: string | null;
    scope?: string | null;
    /** The sign-in event's detail: its event and device sighting are written after the answer (records.ts). */
    signInDetail?: Record<string, unknown>;
  },
): Promise<{ token: string; expiresIn: number }> {
  const token = newToken();
  const now = Date.now();
  const expiresIn = input.ttlDays * 24 * 60 * 60;
  await insertOf(db)(
    newId(),
    input.userId,
    hashToken(token),
    input.deviceId,
    input.clientId,
    input.ip,
    nowIso(now),
    nowIso(now + expiresIn * 1000),
    input.mfaAt ?? null,
    input.scope ?? null,
    input.deviceKey ?? null,
    input.userAgent ?? null,
    input.signInDetail ? JSON.stringify(input.signInDetail) : null,
    input.mfaAmr ?? null,
  );
  return { token, expiresIn };
}

/** A session as every lookup reads it; aliased, so that a lookup may join other tables. */
const SESSION_COLUMNS = [
  'sessions.id as session_id',
  'sessions.user_id as session_user_id',
  'sessions.device_key as session_device_key',
  'sessions.created_at as session_created_at',
  'sessions.last_used_at as session_last_used_at',
  'sessions.mfa_at as session_mfa_at',
  'sessions.mfa_amr as session_mfa_amr',
  'sessions.scope as session_scope',
] as const;
export type SessionRow = {
  session_id: string;
  session_user_id: string;
  session_device_key: string | null;
  session_created_at: string;
  session_last_used_at: string;
  session_mfa_at: string | null;
  session_mfa_amr: string | null;
  session_scope: string | null;
};

/** The live session of a token's hash (not revoked, not expired, of an open account), with its
 * columns; a caller may select more of `users` (GET /user reads the account in the same statement).
 * An account closed by a merge has no live session, even one whose sign-in raced the merge's commit. */
export function liveSession(q: Db, tokenHash: string, now: string) {
  return q
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(SESSION_COLUMNS)
    .where('sessions.token_hash', '=', tokenHash)
    .where('users.closed_at', 'is', null)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now);
}

/** The session a lookup found, its last use refreshed when stale. */
export async function sessionOf(db: Db, row: SessionRow, now: number): Promise<SessionInfo> {
  if (now - Date.parse(row.session_last_used_at) > TOUCH_INTERVAL_MS) {
    await db
      .updateTable('sessions')
      .set({ last_used_at: nowIso(now) })
      .where('id', '=', row.session_id)
      .execute();
  }
  return {
    sessionId: row.session_id,
    userId: row.session_user_id,
    deviceKey: row.session_device_key,
    mfaAt: row.session_mfa_at,
    mfaAmr: row.session_mfa_amr,
    scope: row.session_scope,
    signedInAt: row.session_created_at,
  };
}

const lookupOf = perDatabase((db) => prepared(db, liveSession, 2));

/** The session of a token, if it is live. Compiled once per database: every authenticated call runs it. */
export async function findSession(db: Db, token: string): Promise<SessionInfo | null> {
  const now = Date.now();
  const [row] = await lookupOf(db)(hashToken(token), nowIso(now));
  return row ? sessionOf(db, row, now) : null;
}

export async function revokeSession(db: Db, sessionId: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: nowIso() })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Ends every session of the account not ended yet, but `keep`; gives the ones it ended. */
export async function revokeSessionsOf(db: Db, userId: string, now: string, keep: string | null = null) {
  let sessions = db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keep) sessions = sessions.where('id', '!=', keep);
  return sessions.returning('id').execute();
}

/** The OAuth client a session was opened for, if any. */
export async function clientOfSession(db: Db, sessionId: string): Promise<string | null> {
  const row = await db.selectFrom('sessions').select('client_id').where('id', '=', sessionId).executeTakeFirst();
  return row?.client_id ?? null;
}

/** Records a passed MFA check on a session (step-up, or a first factor set up: the session becomes a full one). */
export async function markMfa(db: Db, sessionId: string, amr: string | null = null): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ mfa_at: nowIso(), mfa_amr: amr, scope: null })
    .where('id', '=', sessionId)
    .execute();
}
