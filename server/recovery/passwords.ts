// Choosing a new password for an account with a ticket: acceptable and none of the recent ones
// (server/passwords/change.ts). Setting it ends every session of the account.
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { acceptNewPassword, passwordReplaced, replacePassword } from '../passwords/change.ts';
import { peekTicketOf, redeemTicket } from '../sessions/tickets.ts';

/** Sets the password with a ticket that proves the right to (a forgotten or a weak password): the
 * ticket is spent in the same transaction, and only the request that spends it writes anything. */
export async function setNewPassword(
  ctx: AppContext,
  payload: string,
  password: string,
  meta: { ip: string; deviceKey: string },
): Promise<void> {
  // Checked first without spending the ticket, so that a refused password can be corrected.
  const ticket = await peekTicketOf(ctx.db, payload, ['weak_password', 'reset']);
  if (!ticket) throw new ApiError('unauthorized');
  const { userId } = ticket;
  const hash = await acceptNewPassword(ctx, userId, password);
  const ended = await ctx.db.transaction().execute(async (trx) => {
    // Of thirty simultaneous submissions of one ticket, one finds it unused; the others write nothing.
    if (!(await redeemTicket(trx, payload, ticket.kind))) throw new ApiError('unauthorized');
    return replacePassword(ctx, trx, { userId, hash });
  });
  await passwordReplaced(ctx, { userId, ended, kept: false, ...meta });
}
