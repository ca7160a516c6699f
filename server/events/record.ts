// Security events: what happened to an account, when, from where. Never holds secrets.
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';

export type SecurityEventType = 'login_succeeded' | 'login_failed' | 'login_throttled' | 'login_weak_password' | 'logout' | 'password_changed'
  | 'mfa_failed' | 'mfa_step_up' | 'mfa_method_added' | 'mfa_method_replaced' | 'mfa_method_removed' | 'mfa_primary_changed'
  | 'recovery_key_used' | 'recovery_keys_regenerated' | 'device_trusted' | 'device_trust_revoked'
  | 'account_created' | 'card_activated' | 'card_activation_failed';

export async function recordEvent(db: Db, event: {
  type: SecurityEventType; userId: string | null; ip: string | null; deviceKey: string | null; detail?: Record<string, unknown>;
}): Promise<void> {
  await db.insertInto('security_events').values({
    id: newId(),
    user_id: event.userId,
    type: event.type,
    ip: event.ip,
    device_key: event.deviceKey,
    detail: event.detail ? JSON.stringify(event.detail) : null,
    created_at: nowIso(),
  }).execute();
}
