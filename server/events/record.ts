// Security events: what happened to an account, when, from where. Never holds secrets. Each one is
// a row, and one structured log line (`audit: true`) for whoever watches the logs.
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';

export type SecurityEventType =
  | 'login_succeeded'
  | 'login_failed'
  | 'login_throttled'
  | 'login_weak_password'
  | 'logout'
  | 'password_changed'
  | 'password_change_failed'
  | 'mfa_failed'
  | 'mfa_step_up'
  | 'mfa_method_added'
  | 'mfa_method_replaced'
  | 'mfa_method_removed'
  | 'mfa_primary_changed'
  | 'recovery_key_used'
  | 'recovery_keys_regenerated'
  | 'passkey_used'
  | 'passkey_renamed'
  | 'passkey_counter_regressed'
  | 'device_trusted'
  | 'device_trust_revoked'
  | 'device_logged_out'
  | 'logout_others'
  | 'logout_everywhere'
  | 'new_device_alert'
  | 'new_device_rejected'
  | 'account_created'
  | 'card_activated'
  | 'card_activation_failed'
  | 'partner_consent_given'
  | 'partner_consent_refused'
  | 'partner_access_revoked'
  | 'partner_access_requested'
  | 'profile_updated'
  | 'iban_changed'
  | 'card_product_changed'
  | 'data_exported'
  | 'picture_changed'
  | 'change_undone'
  | 'accounts_merged'
  | 'account_merged_away'
  | 'sso_sign_in'
  | 'sso_linked'
  | 'sso_unlinked'
  | 'sso_only_on'
  | 'sso_only_off'
  | `${'email' | 'phone'}_${'added' | 'removed' | 'primary_changed'}`;

type AuditLogger = Pick<FastifyBaseLogger, 'info'>;

// The app's logger, by the app's database handle: several apps may share a process (tests), and
// every caller already passes the handle. A transaction is a handle of its own: it gets the last
// logger set.
const loggers = new WeakMap<Db, AuditLogger>();
let lastLogger: AuditLogger | null = null;

/** Who hears of recorded events, by the app's database handle (partners' security events). */
const listeners = new WeakMap<Db, (events: SecurityEvent[]) => Promise<void>>();

/** `listener` hears every event recorded through this handle, once written; its failure is logged,
 * never the recording's. */
export function onSecurityEvents(db: Db, listener: (events: SecurityEvent[]) => Promise<void>): void {
  listeners.set(db, listener);
}

export function setAuditLogger(db: Db, logger: AuditLogger): void {
  loggers.set(db, logger);
  lastLogger = logger;
}

/** A device id lets a trusted device skip the second factor: the log gets a fingerprint of it only. */
function fingerprint(deviceKey: string | null): string | null {
  return deviceKey === null ? null : createHash('sha256').update(deviceKey).digest('base64url').slice(0, 16);
}

export type SecurityEvent = {
  type: SecurityEventType;
  userId: string | null;
  ip: string | null;
  deviceKey: string | null;
  detail?: Record<string, unknown>;
  /** When it happened, if not now (a sign-in's event is written after its answer). */
  at?: string;
};

export async function recordEvent(db: Db, event: SecurityEvent): Promise<void> {
  // Logged first: the line stays even when the database cannot take the row.
  logEvent(db, event);
  await writeEvents(db, [event]);
}

/** The event's audit log line. */
export function logEvent(db: Db, event: SecurityEvent): void {
  (loggers.get(db) ?? lastLogger)?.info(
    {
      audit: true,
      event: event.type,
      user_id: event.userId,
      ip: event.ip,
      device: fingerprint(event.deviceKey),
      detail: event.detail ?? null,
    },
    'security event',
  );
}

/** The events' rows, in one statement. */
export async function writeEvents(db: Db, events: SecurityEvent[]): Promise<void> {
  if (events.length === 0) return;
  const now = nowIso();
  await db
    .insertInto('security_events')
    .values(
      events.map((event) => ({
        id: newId(),
        user_id: event.userId,
        type: event.type,
        ip: event.ip,
        device_key: event.deviceKey,
        detail: event.detail ? JSON.stringify(event.detail) : null,
        created_at: event.at ?? now,
      })),
    )
    .execute();
  await listeners
    .get(db)?.(events)
    .catch((error: unknown) =>
      (loggers.get(db) ?? lastLogger)?.info({ err: error }, 'security events could not be queued for partners'),
    );
}
