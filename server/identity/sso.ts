// The Microsoft identities linked to accounts (`sso_identities`), keyed by tenant and object id,
// never by email, and the account flags they go with: `has_sso` (the account has one) and
// `sso_only` (set by operators: no password sign-in). The sign-in and the Security screen (server/sso/),
// the merge and the command line change them through here.
import type { Transaction } from 'kysely';
import { nowIso, type Db } from '../db/index.ts';
import { lockUser } from '../db/locks.ts';
import { recordEvent } from '../events/record.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { newId } from '../sessions/tokens.ts';

export type SsoSubject = { provider: 'microsoft'; tenantId: string; objectId: string };
export type SsoIdentity = {
  id: string;
  provider: 'microsoft';
  tenant_id: string;
  email: string | null;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
};

/** The open account an identity is linked to, if any. */
export async function linkedAccount(
  db: Db,
  subject: SsoSubject,
): Promise<{ identityId: string; userId: string } | null> {
  const row = await db
    .selectFrom('sso_identities')
    .innerJoin('users', 'users.id', 'sso_identities.user_id')
    .select(['sso_identities.id as identityId', 'users.id as userId'])
    .where('sso_identities.provider', '=', subject.provider)
    .where('sso_identities.tenant_id', '=', subject.tenantId)
    .where('sso_identities.object_id', '=', subject.objectId)
    .where('users.closed_at', 'is', null)
    .executeTakeFirst();
  return row ?? null;
}

export async function touchIdentity(db: Db, identityId: string): Promise<void> {
  await db.updateTable('sso_identities').set({ last_used_at: nowIso() }).where('id', '=', identityId).execute();
}

/** Links an identity to an account in the caller's transaction and sets `has_sso`. An identity is
 * one account's: the unique index decides between parallel links (`sso_identity_taken`). */
export async function linkIdentity(
  trx: Transaction<Database>,
  userId: string,
  subject: SsoSubject & { email: string | null; name: string | null },
): Promise<string> {
  const id = newId();
  const now = nowIso();
  const inserted = await trx
    .insertInto('sso_identities')
    .values({
      id,
      user_id: userId,
      provider: subject.provider,
      tenant_id: subject.tenantId,
      object_id: subject.objectId,
      email: subject.email,
      name: subject.name,
      created_at: now,
      // A link follows a sign-in with that identity a moment ago (the ticket it brought).
      last_used_at: now,
    })
    .onConflict((c) => c.columns(['provider', 'tenant_id', 'object_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) throw new ApiError('sso_identity_taken');
  await trx.updateTable('users').set({ has_sso: 1, updated_at: now }).where('id', '=', userId).execute();
  return id;
}

/** An account's linked identities, oldest first. */
export async function identitiesOf(db: Db, userId: string): Promise<SsoIdentity[]> {
  return db
    .selectFrom('sso_identities')
    .select(['id', 'provider', 'tenant_id', 'email', 'name', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Notes that the account has a linked identity (`has_sso`): a merge brought it one. */
export async function markHasSso(trx: Db, userId: string): Promise<void> {
  await trx.updateTable('users').set({ has_sso: 1 }).where('id', '=', userId).execute();
}

/** Whether the account may sign in only through Microsoft (`sso_only`). */
export async function isSsoOnly(db: Db, userId: string): Promise<boolean> {
  const user = await db.selectFrom('users').select('sso_only').where('id', '=', userId).executeTakeFirstOrThrow();
  return user.sso_only === 1;
}

/** Unlinks one of an account's identities. An `sso_only` account keeps its last one
 * (`sso_last_identity`): the account's row is locked while they are counted, so two unlinks at once
 * cannot both leave it none. `has_sso` follows. False: no such identity of this account. */
export async function unlinkIdentity(
  db: Db,
  userId: string,
  identityId: string,
): Promise<{ tenant_id: string } | null> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockUser(trx, userId))) return null;
    const user = await trx.selectFrom('users').select('sso_only').where('id', '=', userId).executeTakeFirstOrThrow();
    const identities = await trx
      .selectFrom('sso_identities')
      .select(['id', 'tenant_id'])
      .where('user_id', '=', userId)
      .execute();
    const identity = identities.find((row) => row.id === identityId);
    if (!identity) return null;
    if (user.sso_only === 1 && identities.length === 1) throw new ApiError('sso_last_identity');
    await trx.deleteFrom('sso_identities').where('id', '=', identityId).where('user_id', '=', userId).execute();
    await trx
      .updateTable('users')
      .set({ has_sso: identities.length > 1 ? 1 : 0, updated_at: nowIso() })
      .where('id', '=', userId)
      .execute();
    return { tenant_id: identity.tenant_id };
  });
}

/** Turns `sso_only` on or off for the account of a login email (operators, through the CLI). On
 * needs a linked identity: an account that can sign in neither way would be locked out. */
export async function setSsoOnly(
  db: Db,
  email: string,
  on: boolean,
): Promise<{ userId: string; changed: boolean } | 'unknown' | 'no_identity'> {
  return db.transaction().execute(async (trx) => {
    const owner = await trx
      .selectFrom('user_emails')
      .innerJoin('users', 'users.id', 'user_emails.user_id')
      .select(['users.id', 'users.sso_only'])
      .where('user_emails.value', '=', email.trim().toLowerCase())
      .where('users.closed_at', 'is', null)
      .executeTakeFirst();
    if (!owner) return 'unknown';
    await lockUser(trx, owner.id);
    if (on) {
      const linked = await trx
        .selectFrom('sso_identities')
        .select('id')
        .where('user_id', '=', owner.id)
        .limit(1)
        .executeTakeFirst();
      if (!linked) return 'no_identity';
    }
    // Read again under the lock: another operator may have just changed it.
    const { sso_only: current } = await trx
      .selectFrom('users')
      .select('sso_only')
      .where('id', '=', owner.id)
      .executeTakeFirstOrThrow();
    const changed = (current === 1) !== on;
    if (changed) {
      await trx
        .updateTable('users')
        .set({ sso_only: on ? 1 : 0, updated_at: nowIso() })
        .where('id', '=', owner.id)
        .execute();
      // The account's history says so (an operator's change: no address or device of the person).
      await recordEvent(trx, {
        type: on ? 'sso_only_on' : 'sso_only_off',
        userId: owner.id,
        ip: null,
        deviceKey: null,
        detail: { by: 'operator' },
      });
    }
    return { userId: owner.id, changed };
  });
}
