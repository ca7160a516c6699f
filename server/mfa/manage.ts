// The signed-in user's second factors: what they are, whether the session passed one recently,
// and the changes to them (primary, removal, new recovery keys, "not now" to the set-up offer).
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import {
  addable,
  methodOf,
  methodsOf,
  removeMethod,
  renamePasskey,
  summary,
  switchPrimary,
} from '../identity/second-factors.ts';
import { regenerateRecoveryKeys, unusedRecoveryKeys } from '../methods/recovery-key.ts';
import { setupMfaOf, isMfaForced, offerLater } from '../sessions/setupMfa.ts';
import { hasRecentMfa } from '../sessions/stepup.ts';
import { clientOfSession, type SessionInfo } from '../sessions/store.ts';

/** Who makes a change, as its event records it. */
export type Actor = { userId: string; ip: string; deviceKey: string };

export function recordMfaEvent(
  db: Db,
  actor: Actor,
  type: Parameters<typeof recordEvent>[1]['type'],
  detail?: Record<string, unknown>,
) {
  return recordEvent(db, {
    type,
    userId: actor.userId,
    ip: actor.ip,
    deviceKey: actor.deviceKey,
    ...(detail ? { detail } : {}),
  });
}

/** The methods (the recovery keys with how many are left); with includeAll, the kinds that can be added. */
export async function listMethods(db: Db, userId: string, includeAll: boolean) {
  const methods = await methodsOf(db, userId);
  const data = await Promise.all(
    methods.map(async (m) =>
      m.method === 'totpRecovery'
        ? { ...summary(m), recovery_keys_left: await unusedRecoveryKeys(db, userId) }
        : summary(m),
    ),
  );
  return { data, ...(includeAll ? { available: addable(methods) } : {}) };
}

/** Whether the session passed MFA recently, and whether the account must (or may) set up a second factor. */
export async function mfaStatusOf(ctx: AppContext, session: Pick<SessionInfo, 'userId' | 'sessionId' | 'mfaAt'>) {
  const methods = (await methodsOf(ctx.db, session.userId)).filter((m) => m.method !== 'totpRecovery');
  return {
    sudo: hasRecentMfa(session.mfaAt, ctx.config),
    single: methods.length === 1,
    // need_card: the card is the only way this account can pass a second factor.
    need_card: methods.length > 0 && methods.every((m) => m.method === 'card'),
    enrolment: await setupMfaOf(ctx.db, session.userId, await clientOfSession(ctx.db, session.sessionId)),
    passkey_offer: !methods.some((m) => m.method === 'passkey') && (await passkeyOfferOpen(ctx.db, session.userId)),
  };
}

/** Whether the account has not said "not now" to a passkey offered after a password sign-in. */
async function passkeyOfferOpen(db: Db, userId: string): Promise<boolean> {
  const user = await db
    .selectFrom('users')
    .select('passkey_offer_later_at')
    .where('id', '=', userId)
    .executeTakeFirst();
  return user?.passkey_offer_later_at === null;
}

/** "Not now" to the set-up offer; a forced account may not say it. */
export async function postponeSetupMfa(db: Db, userId: string): Promise<void> {
  if (!(await offerLater(db, userId))) throw new ApiError('forbidden');
}

export async function makePrimary(db: Db, actor: Actor, id: number): Promise<void> {
  const method = await methodOf(db, actor.userId, id);
  if (!method || method.method === 'totpRecovery') throw new ApiError('not_found');
  await switchPrimary(db, actor.userId, method.id);
  await recordMfaEvent(db, actor, 'mfa_primary_changed', { method: method.method, id: method.id });
}

/** Removes a method (never the last email or SMS one); the optional target becomes primary. */
export async function deleteMethod(db: Db, actor: Actor, id: number, target: number | undefined): Promise<void> {
  const removed = await removeMethod(db, {
    userId: actor.userId,
    id,
    forced: await isMfaForced(db, actor.userId),
    ...(target !== undefined ? { newPrimary: target } : {}),
  });
  await recordMfaEvent(db, actor, 'mfa_method_removed', { method: removed.method, id: removed.id });
}

/** Names a passkey (trimmed; the schema bounds its length). */
export async function renameMethod(db: Db, actor: Actor, id: number, name: string): Promise<void> {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new ApiError('validation_failed', { fields: [{ field: 'name', code: 'required' }] });
  // Found among the account's own methods first: an id that names none (or is out of any column's
  // range) is simply not found.
  const method = await methodOf(db, actor.userId, id);
  if (method?.method !== 'passkey' || !(await renamePasskey(db, actor.userId, method.id, trimmed))) {
    throw new ApiError('not_found');
  }
  await recordMfaEvent(db, actor, 'passkey_renamed', { id });
}

/** New recovery keys for an account with an authenticator; the old ones stop working. */
export async function renewRecoveryKeys(ctx: AppContext, actor: Actor) {
  if (!(await methodsOf(ctx.db, actor.userId)).some((m) => m.method === 'totp')) throw new ApiError('not_found');
  const keys = await regenerateRecoveryKeys(ctx, actor.userId);
  await recordMfaEvent(ctx.db, actor, 'recovery_keys_regenerated');
  return { recovery_keys: keys };
}
