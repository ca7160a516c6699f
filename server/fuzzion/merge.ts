// The merge of two accounts of one person (spec §4 "Duplicate-account merge (fuzzion)";
// docs/decisions/account-merge.md): the survivor, the account the person is signed in to, takes over what the other
// account has, and the other is closed. All of it is one transaction: of merges racing for one
// pair, one moves everything and the others find an account closed and write nothing.
//
// What moves to the survivor, by the tables that name an account (the migrations' user_id and
// account_id columns):
//   - user_emails, user_phones: every contact, verified flags kept (addresses are unique across
//     accounts, so none is the survivor's already); the survivor's primary ones stay primary.
//   - users.user_id, customer_user_id, fridom_user_id (and national_register_number): where the
//     survivor has none. A platform id the survivor has another of becomes an alias instead.
//   - cards (and card_product_states with them, keyed by card).
//   - mfa_methods: but one per method and target (the survivor's stays), and one authenticator:
//     the other's goes only where the survivor has none, with its recovery keys (recovery_keys) and
//     its totpRecovery entry; otherwise they are deleted.
//   - security_events: the history reads as one account's.
//   - consent_answers: the record of what the person answered partners goes with the history.
//   - oidc_models of model Grant: the consents partners hold (their payload names the account);
//     the other's tokens and codes are deleted instead.
//   - account_change_undos: a notice's "this wasn't me" link still puts back the addresses it
//     names, which now live on the survivor.
//   - user_pictures: where the survivor has none.
//   - sso_identities: the other's Microsoft identities sign in to the survivor (has_sso follows;
//     sso_only stays the survivor's own, as operators set it). Left on a closed account, an identity
//     could never be linked again: (tenant, object id) is unique.
//   - account_aliases: those leading to the other lead to the survivor (one hop always).
// What does not move, and why:
//   - passwords: the survivor's password is the only valid one (spec §4).
//   - sessions: revoked; oidc_session_links: their provider sessions end after the commit
//     (ctx.sessionsEnded), with the back-channel logout that needs.
//   - devices: trust was given to the other account's sign-ins, never to the survivor's.
//   - tickets, login_tickets: spent; mfa_challenges: open ones expire. A sign-in or change under
//     way on the other account ends there.
//   - consents: the survivor's own terms and marketing choices stand; the other's stay on record.
//   - partner_access_requests: a mail already sent about the other account to a partner's admin.
//   - invitations.used_by, onboarding_flows.user_id: how the other account was made.
//   - the rest of `users`: names, birth date, gender, language, bank account, password status and
//     marketing choices are the survivor's, the account the person chose to keep and signs in to;
//     only mfa_forced and mfa_customer are taken where the other had them (see above).
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { lockUser } from '../db/locks.ts';
import type { Database } from '../db/schema.ts';
import { noticeMessage } from '../delivery/notices.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import {
  accountsToMerge,
  clearIdentifiers,
  closeAccount,
  firstEmailOf,
  rankedContacts,
  setIdentifiers,
  setSecondFactorRules,
  type PlatformIdColumn,
} from '../identity/accounts.ts';
import { methodsOf, type MfaMethodRow } from '../identity/second-factors.ts';
import { markHasSso } from '../identity/sso.ts';
import { revokeSessionsOf } from '../sessions/store.ts';

/** Notices of a merge stay worth sending for a day, as a change's do. */
const NOTICE_TTL_S = 24 * 3600;
const PLATFORM_IDS: readonly PlatformIdColumn[] = ['user_id', 'customer_user_id', 'fridom_user_id'];

export type MergeRequest = {
  /** The account the person is signed in to: it stays, with its password. */
  survivorId: string;
  /** The account merged into it, then closed. */
  otherId: string;
  /** Where the request came from, for the security event. */
  ip?: string | null;
  deviceKey?: string | null;
};

type Account = Pick<
  Database['users'],
  'id' | 'language' | 'closed_at' | 'national_register_number' | 'mfa_forced' | 'mfa_customer' | PlatformIdColumn
>;

/** Merges `otherId` into `survivorId`, or throws merge_unavailable (both accounts must exist, be
 * open and differ) having written nothing. */
export async function mergeAccounts(ctx: AppContext, request: MergeRequest): Promise<void> {
  const { survivorId, otherId } = request;
  if (survivorId === otherId) throw new ApiError('merge_unavailable');
  await ctx.db.transaction().execute(async (trx) => {
    // A fixed order (ids ascending): two merges of one pair in opposite directions wait for each
    // other instead of each holding one row the other needs. SQLite runs one transaction at a time.
    for (const id of [survivorId, otherId].toSorted()) {
      if (!(await lockUser(trx, id))) throw new ApiError('merge_unavailable');
    }
    // Read under the locks: a merge that waited sees what the one before it wrote.
    const accounts = await accountsToMerge(trx, [survivorId, otherId]);
    const survivor = accounts.find((a) => a.id === survivorId);
    const other = accounts.find((a) => a.id === otherId);
    if (!survivor || !other || survivor.closed_at !== null || other.closed_at !== null)
      throw new ApiError('merge_unavailable');

    // Read before the contacts move: the survivor hears of it at its primary email; the account
    // merged away at every email and phone it held, so that an owner who did not do this learns it
    // wherever they can be reached.
    const survivorEmail = await firstEmailOf(trx, survivorId);
    const notices: Array<{
      account: Account;
      kind: 'accounts_merged' | 'account_merged_away';
      channel: 'email' | 'sms';
      to: string;
    }> = [
      ...(survivorEmail
        ? [{ account: survivor, kind: 'accounts_merged' as const, channel: 'email' as const, to: survivorEmail }]
        : []),
      ...(await contactsOf(trx, otherId)).map((contact) => ({
        account: other,
        kind: 'account_merged_away' as const,
        ...contact,
      })),
    ];

    const now = nowIso();
    await takeIdentifiers(trx, survivor, other, now);
    // A second factor one of them had to have (or was offered, as a company customer) the merged
    // account has to have too: the cards and platform ids that made it so now live there.
    if ((other.mfa_forced && !survivor.mfa_forced) || (other.mfa_customer && !survivor.mfa_customer)) {
      await setSecondFactorRules(trx, survivorId, {
        mfa_forced: survivor.mfa_forced || other.mfa_forced,
        mfa_customer: survivor.mfa_customer || other.mfa_customer,
      });
    }
    await moveContacts(trx, survivorId, otherId);
    await moveMethods(trx, survivorId, otherId);
    await trx.updateTable('cards').set({ user_id: survivorId }).where('user_id', '=', otherId).execute();
    await trx.updateTable('security_events').set({ user_id: survivorId }).where('user_id', '=', otherId).execute();
    await trx.updateTable('consent_answers').set({ user_id: survivorId }).where('user_id', '=', otherId).execute();
    await trx.updateTable('account_change_undos').set({ user_id: survivorId }).where('user_id', '=', otherId).execute();
    if (
      !(await trx.selectFrom('user_pictures').select('user_id').where('user_id', '=', survivorId).executeTakeFirst())
    ) {
      await trx.updateTable('user_pictures').set({ user_id: survivorId }).where('user_id', '=', otherId).execute();
    }
    await moveGrants(trx, survivorId, otherId);
    const identities = await trx
      .updateTable('sso_identities')
      .set({ user_id: survivorId })
      .where('user_id', '=', otherId)
      .executeTakeFirst();
    if (Number(identities.numUpdatedRows) > 0) await markHasSso(trx, survivorId);

    // The other account is closed: nothing signs in to it, and nothing under way on it goes on.
    await closeAccount(trx, otherId, now);
    await revokeSessionsOf(trx, otherId, now);
    for (const tickets of ['tickets', 'login_tickets'] as const) {
      await trx
        .updateTable(tickets)
        .set({ used_at: now })
        .where('user_id', '=', otherId)
        .where('used_at', 'is', null)
        .execute();
    }
    await trx
      .updateTable('mfa_challenges')
      .set({ expires_at: now })
      .where('user_id', '=', otherId)
      .where('completed_at', 'is', null)
      .where('expires_at', '>', now)
      .execute();
    // Partners lose what they hold for the other account (tokens, codes); its grants moved above,
    // and its provider sessions end after the commit.
    await trx
      .deleteFrom('oidc_models')
      .where('account_id', '=', otherId)
      .where('model', 'not in', ['Grant', 'Session'])
      .execute();

    for (const notice of notices) {
      await ctx.outbox.enqueue(trx, {
        channel: notice.channel,
        to: notice.to,
        ...noticeMessage(notice.account.language, notice.kind, {}, notice.channel),
        ttlSeconds: NOTICE_TTL_S,
      });
    }
  });
  ctx.outbox.kick();
  await ctx.sessionsEnded({ accountId: otherId, refreshTokensOf: otherId });
  // Both histories hold it: the survivor's (with the other's history, moved above) and the closed
  // account's own, for an operator reading it later.
  const where = { ip: request.ip ?? null, deviceKey: request.deviceKey ?? null };
  await recordEvent(ctx.db, {
    type: 'accounts_merged',
    userId: survivorId,
    ...where,
    detail: { merged_account: otherId },
  });
  await recordEvent(ctx.db, {
    type: 'account_merged_away',
    userId: otherId,
    ...where,
    detail: { survivor_account: survivorId },
  });
}

/** Every email and phone of an account, as the channels a notice takes to reach them. */
async function contactsOf(
  trx: Transaction<Database>,
  userId: string,
): Promise<Array<{ channel: 'email' | 'sms'; to: string }>> {
  const [emails, phones] = await Promise.all([
    rankedContacts(trx, userId, 'email').execute(),
    rankedContacts(trx, userId, 'phone').execute(),
  ]);
  return [
    ...emails.map((e) => ({ channel: 'email' as const, to: e.value })),
    ...phones.map((p) => ({ channel: 'sms' as const, to: p.value })),
  ];
}

/** Platform ids and the national register number go to the survivor where it has none; a platform
 * id it has another of becomes an alias, as does the other account's id (its OIDC `sub`). The other
 * account keeps none: each value is unique, and a closed account must not answer for one. */
async function takeIdentifiers(
  trx: Transaction<Database>,
  survivor: Account,
  other: Account,
  now: string,
): Promise<void> {
  const taken: Partial<Record<PlatformIdColumn | 'national_register_number', string>> = {};
  const aliases: Array<{ kind: string; value: string }> = [{ kind: 'sub', value: other.id }];
  for (const column of PLATFORM_IDS) {
    const value = other[column];
    if (value === null) continue;
    if (survivor[column] === null) taken[column] = value;
    else aliases.push({ kind: column, value });
  }
  if (other.national_register_number !== null && survivor.national_register_number === null)
    taken.national_register_number = other.national_register_number;
  // Cleared first: the columns are unique, and PostgreSQL checks each statement.
  await clearIdentifiers(trx, other.id);
  if (Object.keys(taken).length > 0) await setIdentifiers(trx, survivor.id, taken, now);
  // Aliases that led to the other account lead on to the survivor; an alias already taken keeps its
  // account (a value never leads to two).
  await trx.updateTable('account_aliases').set({ user_id: survivor.id }).where('user_id', '=', other.id).execute();
  await trx
    .insertInto('account_aliases')
    .values(aliases.map((alias) => ({ ...alias, user_id: survivor.id, created_at: now })))
    .onConflict((c) => c.columns(['kind', 'value']).doNothing())
    .execute();
}

/** Every email and phone moves, verified or not as it was; a primary one stays primary only where
 * the survivor has none of its kind. */
async function moveContacts(trx: Transaction<Database>, survivorId: string, otherId: string): Promise<void> {
  for (const table of ['user_emails', 'user_phones'] as const) {
    const hasPrimary = await trx
      .selectFrom(table)
      .select('id')
      .where('user_id', '=', survivorId)
      .where('is_default', '=', 1)
      .executeTakeFirst();
    await trx
      .updateTable(table)
      .set({ user_id: survivorId, ...(hasPrimary ? { is_default: 0 as const } : {}) })
      .where('user_id', '=', otherId)
      .execute();
  }
}

/** Two methods alike: the same kind to the same destination. Passkeys are each their own (a credential
 * is one account's), so every one of the other account's moves. */
const sameMethod = (a: MfaMethodRow, b: MfaMethodRow) =>
  a.method !== 'passkey' && a.method === b.method && a.target === b.target;

/** Second factors move unless the survivor has the same (method and target), and the survivor's
 * primary stays the primary. One authenticator per account: the other's goes only where the
 * survivor has none, with its recovery keys. */
async function moveMethods(trx: Transaction<Database>, survivorId: string, otherId: string): Promise<void> {
  const mine = await methodsOf(trx, survivorId);
  const theirs = await methodsOf(trx, otherId);
  const keepPrimary = mine.some((m) => m.is_primary === 1);
  const authenticatorMoves = !mine.some((m) => m.method === 'totp') && theirs.some((m) => m.method === 'totp');
  const moving = theirs.filter((m) =>
    m.method === 'totp' || m.method === 'totpRecovery'
      ? authenticatorMoves && !mine.some((n) => n.method === m.method)
      : !mine.some((n) => sameMethod(n, m)),
  );
  if (moving.length > 0) {
    await trx
      .updateTable('mfa_methods')
      .set({ user_id: survivorId, ...(keepPrimary ? { is_primary: 0 as const } : {}) })
      .where(
        'id',
        'in',
        moving.map((m) => m.id),
      )
      .execute();
  }
  // What did not move duplicates what the survivor has.
  await trx.deleteFrom('mfa_methods').where('user_id', '=', otherId).execute();
  if (authenticatorMoves)
    await trx.updateTable('recovery_keys').set({ user_id: survivorId }).where('user_id', '=', otherId).execute();
  else await trx.deleteFrom('recovery_keys').where('user_id', '=', otherId).execute();
}

/** The grants partners hold for the other account now name the survivor, in their column and in
 * the provider's payload alike. */
async function moveGrants(trx: Transaction<Database>, survivorId: string, otherId: string): Promise<void> {
  const grants = await trx
    .selectFrom('oidc_models')
    .select(['id', 'payload'])
    .where('model', '=', 'Grant')
    .where('account_id', '=', otherId)
    .execute();
  for (const grant of grants) {
    const payload = { ...(JSON.parse(grant.payload) as Record<string, unknown>), accountId: survivorId };
    await trx
      .updateTable('oidc_models')
      .set({ account_id: survivorId, payload: JSON.stringify(payload) })
      .where('model', '=', 'Grant')
      .where('id', '=', grant.id)
      .execute();
  }
}
