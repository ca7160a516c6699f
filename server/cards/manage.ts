// What an operator does to one card (`npm run cli -- cards block|unblock`): a blocked card (lost,
// stolen, withdrawn) can no longer be activated; unblocking makes it 'issued' again.
import { normaliseCardNumber } from '../../contract/rules.ts';
import type { Db } from '../db/index.ts';

export const CARD_STATUSES = ['issued', 'blocked'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

/** Sets the status of the card with this number (spaces allowed). Gives the status it had before,
 * or null when no card has that number. */
export async function setCardStatus(db: Db, number: string, status: CardStatus): Promise<{ previous: string } | null> {
  const normalised = normaliseCardNumber(number);
  return db.transaction().execute(async (trx) => {
    const card = await trx
      .selectFrom('cards')
      .select(['id', 'status'])
      .where('number', '=', normalised)
      .executeTakeFirst();
    if (!card) return null;
    if (card.status !== status) await trx.updateTable('cards').set({ status }).where('id', '=', card.id).execute();
    return { previous: card.status };
  });
}
