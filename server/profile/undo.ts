// "This wasn't me" (the link of a contact change's notice): within 7 days it puts the change back,
// ends every session of the account (the partners' too), and locks the password, so that whoever
// made the change cannot sign in with it: the owner chooses a new one through the forgotten
// password, whose code goes to the addresses the undo just gave back.
import type { AppContext } from '../context.ts';
import { lockUser } from '../db/locks.ts';
import { nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { addVerifiedContact, contactTable } from '../identity/accounts.ts';
import { detachContact } from '../identity/contacts.ts';
import { LOCKED_PASSWORD } from '../passwords/hashing.ts';
import { recordPassword } from '../identity/accounts.ts';
import { revokeSessionsOf } from '../sessions/store.ts';
import { hashToken } from '../sessions/tokens.ts';
import type { UndoableChange } from './contacts.ts';

/** Undoes the change of a link once; a spent, expired or unknown link answers the same. */
export async function undoChange(
  ctx: AppContext,
  token: string,
  where: { ip: string | null; deviceKey: string | null },
): Promise<UndoableChange['kind']> {
  const now = nowIso();
  const undone = await ctx.db.transaction().execute(async (trx) => {
    // The first use spends it: of two clicks at once, one undoes.
    const spent = await trx
      .updateTable('account_change_undos')
      .set({ used_at: now })
      .where('token_hash', '=', hashToken(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['user_id', 'change'])
      .executeTakeFirst();
    if (!spent) throw new ApiError('undo_unavailable');
    const userId = spent.user_id;
    await lockUser(trx, userId);
    const change = JSON.parse(spent.change) as UndoableChange;
    const table = contactTable(change.contact.kind);
    if (change.kind === 'added') {
      // The address added goes, with the second factors on it: a primary factor it carried passes
      // to another, and a primary address it became passes back (as any removal does).
      await detachContact(trx, userId, change.contact.kind, change.contact.value);
    } else if (change.kind === 'removed') {
      // Back, verified as it was proven, unless another account took it meanwhile.
      await addVerifiedContact(trx, userId, change.contact.kind, change.contact.value);
    } else {
      const previous = await trx
        .selectFrom(table)
        .select('id')
        .where('user_id', '=', userId)
        .where('value', '=', change.previous)
        .executeTakeFirst();
      if (previous) {
        await trx.updateTable(table).set({ is_default: 0 }).where('user_id', '=', userId).execute();
        await trx.updateTable(table).set({ is_default: 1 }).where('id', '=', previous.id).execute();
      }
    }
    await recordPassword(trx, userId, LOCKED_PASSWORD);
    await revokeSessionsOf(trx, userId, now);
    return { userId, kind: change.kind };
  });
  await ctx.sessionsEnded({ accountId: undone.userId, refreshTokensOf: undone.userId });
  await recordEvent(ctx.db, {
    type: 'change_undone',
    userId: undone.userId,
    ...where,
    detail: { change: undone.kind },
  });
  return undone.kind;
}
