// The account's cards with their voucher products, and a product switched on or off (spec §4
// "Product card toggle: active or inactive"). A product without a stored state is active.
import { CARD_PRODUCTS, maskCardNumber, type AccountCard, type CardProduct } from '../../contract/profile.ts';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';

/** The account's activated cards, oldest first, each with every product and its state. */
export async function cardsOf(db: Db, userId: string): Promise<AccountCard[]> {
  const cards = await db
    .selectFrom('cards')
    .select(['id', 'number'])
    .where('user_id', '=', userId)
    .where('activated_at', 'is not', null)
    .orderBy('activated_at')
    .orderBy('id')
    .execute();
  if (cards.length === 0) return [];
  const states = await db
    .selectFrom('card_product_states')
    .select(['card_id', 'product', 'active'])
    .where(
      'card_id',
      'in',
      cards.map((c) => c.id),
    )
    .execute();
  return cards.map((card) => ({
    id: card.id,
    number: maskCardNumber(card.number),
    products: CARD_PRODUCTS.map((product) => ({
      product,
      active: states.find((s) => s.card_id === card.id && s.product === product)?.active !== 0,
    })),
  }));
}

/** Switches one product of one of the account's cards; the same answer whatever the order of
 * simultaneous switches (one statement, the last one written stays). */
export async function setProduct(
  ctx: AppContext,
  userId: string,
  cardId: string,
  product: CardProduct,
  active: boolean,
  where: { ip: string | null; deviceKey: string | null },
): Promise<AccountCard> {
  const card = await ctx.db
    .selectFrom('cards')
    .select('id')
    .where('id', '=', cardId)
    .where('user_id', '=', userId)
    .where('activated_at', 'is not', null)
    .executeTakeFirst();
  // Another account's card, or none: the same answer, so that ids say nothing.
  if (!card) throw new ApiError('not_found');
  await ctx.db
    .insertInto('card_product_states')
    .values({ card_id: cardId, product, active: active ? 1 : 0, updated_at: nowIso() })
    .onConflict((c) => c.columns(['card_id', 'product']).doUpdateSet({ active: active ? 1 : 0, updated_at: nowIso() }))
    .execute();
  await recordEvent(ctx.db, {
    type: 'card_product_changed',
    userId,
    ...where,
    detail: { card: cardId, product, active },
  });
  return (await cardsOf(ctx.db, userId)).find((c) => c.id === cardId)!;
}
