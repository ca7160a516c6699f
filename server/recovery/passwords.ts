// Choosing a new password for an account: acceptable (server/passwords/policy.ts) and none of the
// recent ones (PASSWORD_HISTORY). Setting it ends every session of the account.
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { assertNotRecent, recordPassword } from '../identity/accounts.ts';
import { assertAcceptablePassword } from '../passwords/policy.ts';
import { peekTicketOf, redeemTicket } from '../sessions/tickets.ts';

/** Sets the password with a ticket that proves the right to (a forgotten or a weak password): the
 * ticket is spent in the same transaction, and only the request that spends it writes anything. */
export async function setNewPassword(ctx: AppContext, payload: string, password: string, meta: { ip: string; deviceKey: string }): Promise<void> {
  // Checked first without spending the ticket, so that a refused password can be corrected.
  const ticket = await peekTicketOf(ctx.db, payload, ['weak_password', 'reset']);
  if (!ticket) throw new ApiError('unauthorized');
  const { userId } = ticket;
  assertAcceptablePassword(password, ctx.config.passwordPolicy);
  await assertNotRecent(ctx, userId, password);
  const hash = await ctx.hasher.hash(password);
  const now = nowIso();
  await ctx.db.transaction().execute(async (trx) => {
    // Of thirty simultaneous submissions of one ticket, one finds it unused; the others write nothing.
    if (!(await redeemTicket(trx, payload, ticket.kind))) throw new ApiError('unauthorized');
    await recordPassword(trx, userId, hash, now);
    // A new password ends every session: whoever knew the old one is out.
    await trx.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
  });
  await ctx.sessionsEnded({ accountId: userId });
  await recordEvent(ctx.db, { type: 'password_changed', userId, ip: meta.ip, deviceKey: meta.deviceKey });
}
