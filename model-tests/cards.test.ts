import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { AccountCard } from '../contract/profile.ts';
import { cardsMachine } from '../machines/cards.ts';
import { report, walkFrom } from './coverage.ts';
import { card, cardsModel } from './cards.model.ts';
import { settle } from './events.ts';

const activeOf = (cards: AccountCard[], product: string) =>
  cards[0]!.products.find((p) => p.product === product)!.active;

describe('cards machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(cardsModel);
    console.info(report('cards', result));
    expect(result.missing).toEqual([]);
  });
});

describe('cards machine: behaviour', () => {
  it('shows a switch at once, keeps what the server answers, and puts a refused one back', async () => {
    let refuse = false;
    const sent: unknown[] = [];
    const actor = createActor(
      cardsMachine.provide({
        actors: {
          listCards: fromPromise(async () => [card]),
          setProduct: fromPromise(async ({ input }) => {
            sent.push(input);
            if (refuse) throw apiFailure(503, { code: 'database_unavailable' } as never);
            return {
              ...card,
              products: card.products.map((p) =>
                p.product === input.product ? { product: p.product, active: input.active } : p,
              ),
            };
          }),
        },
      }),
    ).start();
    await settle();
    actor.send({ type: 'TOGGLE', cardId: 'c1', product: 'gift' });
    expect(activeOf(actor.getSnapshot().context.cards, 'gift')).toBe(true);
    await settle();
    expect(sent).toEqual([{ cardId: 'c1', product: 'gift', active: true }]);
    expect(actor.getSnapshot().value).toBe('ready');
    refuse = true;
    actor.send({ type: 'TOGGLE', cardId: 'c1', product: 'emv' });
    expect(activeOf(actor.getSnapshot().context.cards, 'emv')).toBe(false);
    await settle();
    expect(activeOf(actor.getSnapshot().context.cards, 'emv')).toBe(true);
    expect(actor.getSnapshot().context.error).toBe('database_unavailable');
  });
});
