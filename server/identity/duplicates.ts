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
 * it, the offer to merge (or decline), with that code kept as its first proof; else null. */
export async function offerAfterCode(
  ctx: AppContext,
  userId: string,
  kind: ContactKind,
  target: string,
): Promise<FuzzionTicket | null> {
  const otherId = await contactOwner(ctx.db, kind, target);
  if (!otherId || otherId === userId) return null;
  const payload = await issueTicket(ctx.db, userId, OFFER_TICKET, ctx.config.mfa.codeTtlSeconds, { kind, target });
  await ctx.db
    .insertInto('fuzzion_proofs')
    .values({ ticket_hash: hashToken(payload), proof: 'code', other_user_id: otherId, proven_at: nowIso() })
    .execute();
  return { payload, kind, target };
}
