// An address or number being added that another account holds (spec §4 "Duplicate-account merge"):
// once the code sent to it came back, the person is offered the merge. Contacts and second factors
// both add addresses, and the merge (server/merge) takes the offer from there.
import type { FuzzionTicket } from '../../contract/fuzzion.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { issueTicket } from '../sessions/tickets.ts';
import { hashToken } from '../sessions/tokens.ts';
import { contactOwner, type ContactKind } from './accounts.ts';

/** The kind of ticket an offer is. */
export const OFFER_TICKET = 'fuzzion';

/** After the code sent to an address or number being added came back: where another account holds
 * it, the offer to merge (or decline), with that code kept as its first proof; else null. The
 * session it came in is now in the middle of that merge (spec §6 "duplicated-logged"), until the
 * offer is spent, cancelled or expired. */
export async function offerAfterCode(
  ctx: AppContext,
  caller: { userId: string; sessionId: string },
  kind: ContactKind,
  target: string,
): Promise<FuzzionTicket | null> {
  const otherId = await contactOwner(ctx.db, kind, target);
  if (!otherId || otherId === caller.userId) return null;
  const payload = await issueTicket(ctx.db, caller.userId, OFFER_TICKET, ctx.config.mfa.codeTtlSeconds, {
    kind,
    target,
  });
  const ticketHash = hashToken(payload);
  await ctx.db
    .insertInto('fuzzion_proofs')
    .values({ ticket_hash: ticketHash, proof: 'code', other_user_id: otherId, proven_at: nowIso() })
    .execute();
  await ctx.db.updateTable('sessions').set({ fuzzion_hash: ticketHash }).where('id', '=', caller.sessionId).execute();
  return { payload, kind, target };
}

/** Cancels the merge the session has open ("use another address"): its offer is spent, so that no
 * step of it can be taken any more, and the session is out of the merge. Nothing open: nothing to do. */
export async function cancelOpenOffer(ctx: AppContext, sessionId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const session = await trx
      .selectFrom('sessions')
      .select('fuzzion_hash')
      .where('id', '=', sessionId)
      .executeTakeFirst();
    if (!session?.fuzzion_hash) return;
    await trx
      .updateTable('tickets')
      .set({ used_at: nowIso() })
      .where('ticket_hash', '=', session.fuzzion_hash)
      .where('kind', '=', OFFER_TICKET)
      .where('used_at', 'is', null)
      .execute();
    await trx.updateTable('sessions').set({ fuzzion_hash: null }).where('id', '=', sessionId).execute();
  });
}
