// Linking the Microsoft identity a link ticket names to a signed-in account: the ticket is spent,
// its tenant checked and the account's row locked in one transaction with the link.
import type { Db } from '../db/index.ts';
import { lockUser } from '../db/locks.ts';
import { ApiError } from '../http/errors.ts';
import { linkIdentity } from '../identity/sso.ts';
import { spendLinkTicket } from './requests.ts';

/** Links the ticket's identity to the account; answers the new link's id and what it names. */
export async function linkByTicket(
  db: Db,
  input: { browser: string; ticket: string; userId: string; tenantAllowed: (tenantId: string) => boolean },
) {
  return db.transaction().execute(async (trx) => {
    const ticket = await spendLinkTicket(trx, input.browser, input.ticket);
    if (!ticket) throw new ApiError('sso_ticket_invalid');
    if (!input.tenantAllowed(ticket.tenantId)) throw new ApiError('sso_tenant_not_allowed');
    if (!(await lockUser(trx, input.userId))) throw new ApiError('unauthorized');
    const subject = {
      provider: 'microsoft' as const,
      tenantId: ticket.tenantId,
      objectId: ticket.objectId,
      email: ticket.email,
      name: ticket.name,
    };
    const id = await linkIdentity(trx, input.userId, subject);
    return { id, ...subject };
  });
}
