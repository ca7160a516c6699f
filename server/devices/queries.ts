// Devices: the browser's random device id, per user, with first and last sighting. A sign-in
// remembers its device (server/sessions/devices.ts); here the user lists theirs, with the sessions
// each holds and the services it signed in to, ends a trust, and signs devices out.
import type { Device, DeviceService } from '../../contract/schemas.ts';
import { describeAgent, placeOf } from '../clientinfo/index.ts';
import { clientNameIn, jsonColumn } from '../db/columns.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';

type SessionRow = {
  id: string;
  device_key: string | null;
  client_id: string | null;
  ip: string | null;
  last_used_at: string;
  revoked_at: string | null;
  expires_at: string;
};

/** The clients of an authorisation server session (its payload's `authorizations`, by client id). */
function clientsOfProviderSession(payload: string): string[] {
  const authorizations = jsonColumn<{ authorizations?: unknown }>(payload, {}).authorizations;
  return authorizations && typeof authorizations === 'object' ? Object.keys(authorizations) : [];
}

/** The user's devices, most recently seen first; a lapsed trust shows as none. The current one is
 * the device the caller's session was opened on. Each carries its live sessions, the country of its
 * latest session's address, and the services its sessions signed in to: the platform a sign-in was
 * for (sessions.client_id) and the applications the authorisation server signed it in to
 * (oidc_session_links). */
export async function listDevices(
  db: Db,
  userId: string,
  currentDeviceKey: string | null,
  locale: string,
): Promise<Device[]> {
  const [rows, sessions, links] = await Promise.all([
    db
      .selectFrom('devices')
      .select(['id', 'device_key', 'user_agent', 'first_seen_at', 'last_seen_at', 'trusted_until'])
      .where('user_id', '=', userId)
      .orderBy('last_seen_at', 'desc')
      .execute(),
    db
      .selectFrom('sessions')
      .select(['id', 'device_key', 'client_id', 'ip', 'last_used_at', 'revoked_at', 'expires_at'])
      .where('user_id', '=', userId)
      .where('device_key', 'is not', null)
      .execute() as Promise<SessionRow[]>,
    db
      .selectFrom('oidc_session_links')
      .innerJoin('oidc_models', (join) =>
        join
          .onRef('oidc_models.id', '=', 'oidc_session_links.provider_session_id')
          .on('oidc_models.model', '=', 'Session'),
      )
      .select(['oidc_session_links.session_id', 'oidc_models.payload'])
      .where('oidc_session_links.account_id', '=', userId)
      .execute(),
  ]);
  const now = nowIso();
  const byDevice = new Map<string, SessionRow[]>();
  for (const session of sessions)
    byDevice.set(session.device_key!, [...(byDevice.get(session.device_key!) ?? []), session]);
  const clientsBySession = new Map<string, string[]>();
  for (const link of links)
    clientsBySession.set(link.session_id, [
      ...(clientsBySession.get(link.session_id) ?? []),
      ...clientsOfProviderSession(link.payload),
    ]);

  const clientIds = new Set<string>();
  const servicesOf = (own: SessionRow[]) => {
    const ids = new Set<string>();
    for (const session of own) {
      if (session.client_id) ids.add(session.client_id);
      for (const clientId of clientsBySession.get(session.id) ?? []) ids.add(clientId);
    }
    for (const id of ids) clientIds.add(id);
    return [...ids];
  };
  const devices = rows.map(({ device_key: key, ...row }) => {
    const own = (byDevice.get(key) ?? []).sort((a, b) => b.last_used_at.localeCompare(a.last_used_at));
    const live = own.filter((s) => s.revoked_at === null && s.expires_at > now).length;
    const agent = describeAgent(row.user_agent);
    const latest = own[0];
    return {
      ...row,
      ...agent,
      ...placeOf(latest?.ip, locale),
      last_seen_at: latest && latest.last_used_at > row.last_seen_at ? latest.last_used_at : row.last_seen_at,
      trusted_until: row.trusted_until && row.trusted_until > now ? row.trusted_until : null,
      current: key === currentDeviceKey,
      status: live > 0 ? ('active' as const) : ('signed_out' as const),
      sessions: live,
      clientIds: servicesOf(own),
    };
  });
  const names = new Map<string, string>();
  if (clientIds.size > 0) {
    const clients = await db
      .selectFrom('oauth_clients')
      .select(['client_id', 'name', 'names'])
      .where('client_id', 'in', [...clientIds])
      .execute();
    for (const client of clients) names.set(client.client_id, clientNameIn(client, locale));
  }
  return devices.map(({ clientIds: ids, ...device }) => ({
    ...device,
    // A client no longer registered is still a service the device used: it shows by its id.
    services: ids
      .map((id): DeviceService => ({ client_id: id, name: names.get(id) ?? id }))
      .sort((a, b) => a.name.localeCompare(b.name, locale.replace('_', '-'))),
  }));
}

/** Ends a device's trust: it asks for the second factor again. False when the user has no such device. */
export async function untrustDevice(db: Db, userId: string, deviceId: string): Promise<boolean> {
  const done = await db
    .updateTable('devices')
    .set({ trusted_until: null })
    .where('id', '=', deviceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/** Signs one of the user's devices out: every live session opened on it is revoked, in one
 * statement. Null when the user has no such device; otherwise the sessions this call revoked. Of
 * parallel calls, exactly one revokes them (the conditional update decides: on PostgreSQL the others
 * wait on the rows, then find them revoked) and the others get an empty list. */
export async function signOutDevice(db: Db, userId: string, deviceId: string): Promise<string[] | null> {
  const device = await db
    .selectFrom('devices')
    .select('device_key')
    .where('id', '=', deviceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!device) return null;
  const now = nowIso();
  const revoked = await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('device_key', '=', device.device_key)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .execute();
  return revoked.map((row) => row.id);
}

/** Revokes the user's live sessions but `keep` (null: every one); gives those this call revoked. */
export async function signOutSessions(db: Db, userId: string, keep: string | null): Promise<string[]> {
  const now = nowIso();
  let update = db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);
  if (keep) update = update.where('id', '!=', keep);
  return (await update.returning('id').execute()).map((row) => row.id);
}

/** Revokes one of the user's sessions if it is live; true when this call revoked it. */
export async function signOutSessionById(db: Db, userId: string, sessionId: string): Promise<boolean> {
  const now = nowIso();
  const done = await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}
