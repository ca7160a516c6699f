// The card challenge: the number of one of the user's activated cards.
import { describeRow, type ChallengeMethod } from './method.ts';

export const cardNumber: ChallengeMethod = {
  kind: 'card',
  async verify({ db }, held, answer) {
    const card = await db
      .selectFrom('cards')
      .select('id')
      .where('user_id', '=', held.userId ?? '')
      .where('number', '=', answer.replace(/\s+/g, ''))
      .where('activated_at', 'is not', null)
      .executeTakeFirst();
    return { right: card !== undefined };
  },
  // Which card: its last four digits (of each activated card, newest first).
  describe: (row) => ({ ...describeRow(row), ...(row.card_endings?.length ? { card_endings: row.card_endings } : {}) }),
};
