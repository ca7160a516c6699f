// Setting a new password on an account, whoever sets it: the person signed in (server/profile), or
// the holder of a forgotten- or weak-password ticket (server/recovery). The new password is checked
// first (policy, common list, the account's recent ones) and hashed outside any transaction; then,
// in the caller's transaction, it becomes the current one, the other sessions end and the account
// is told by email; after the commit the partner applications hear of it and the event is written.
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { revokeSessionsOf } from '../sessions/store.ts';
import { passwordChangedMessage } from '../delivery/messages.ts';
import { recordEvent } from '../events/record.ts';
import { assertNotRecent, firstEmailOf, languageOf, recordPassword } from '../identity/accounts.ts';
import { assertAcceptablePassword } from './policy.ts';

/** The notice lives a week in the outbox: past that, it is no news. */
const NOTICE_TTL_S = 7 * 24 * 3600;

/** Refuses a password the account may not take (weak_new_password, common_password,
 * password_reused); gives the accepted one's hash. Writes nothing. */
export async function acceptNewPassword(ctx: AppContext, userId: string, password: string): Promise<string> {
  assertAcceptablePassword(password, ctx.config.passwordPolicy);
  await assertNotRecent(ctx, userId, password);
  return ctx.hasher.hash(password);
}

/** In the caller's transaction: the hash becomes the current password (kept in the history, the
 * account's password good again), every session of the account but `keep` ends, and the notice to
 * its default email is queued. Gives the sessions it ended. */
export async function replacePassword(
  ctx: AppContext,
  trx: Db,
  change: { userId: string; hash: string; keep?: string | null },
): Promise<string[]> {
  const { userId, hash } = change;
  const now = nowIso();
  await recordPassword(trx, userId, hash, now);
  // A new password ends the sessions: whoever knew the old one is out.
  const ended = await revokeSessionsOf(trx, userId, now, change.keep);
  const language = await languageOf(trx, userId);
  const email = await firstEmailOf(trx, userId);
  if (email)
    await ctx.outbox.enqueue(trx, {
      channel: 'email',
      to: email,
      ...passwordChangedMessage(language),
      ttlSeconds: NOTICE_TTL_S,
    });
  return ended.map((session) => session.id);
}

/** After the commit: the applications the ended sessions signed in to hear it, the partners lose
 * the tokens they held for the account (they must sign the person in again), the notice leaves,
 * and the event is recorded. */
export async function passwordReplaced(
  ctx: AppContext,
  change: { userId: string; ended: string[]; kept: boolean; ip: string; deviceKey: string },
): Promise<void> {
  ctx.outbox.kick();
  // Every session of the account when none was kept; otherwise the ones that ended, not this one.
  await ctx.sessionsEnded({
    ...(change.kept ? { sessionIds: change.ended } : { accountId: change.userId }),
    refreshTokensOf: change.userId,
  });
  await recordEvent(ctx.db, {
    type: 'password_changed',
    userId: change.userId,
    ip: change.ip,
    deviceKey: change.deviceKey,
  });
}
