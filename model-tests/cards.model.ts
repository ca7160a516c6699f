// The cards' model: what its test walks and the testers' paths follow.
import type { AccountCard } from '../contract/profile.ts';
import { cardsMachine } from '../machines/cards.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';

export const card: AccountCard = {
  id: 'c1',
  number: '•••• •••• •••• 0002',
  products: [
    { product: 'emv', active: true },
    { product: 'eco', active: true },
    { product: 'gift', active: false },
    { product: 'activ', active: true },
  ],
};

export const cardsModel: Model = {
  machine: cardsMachine,
  starts: [{ name: 'the list' }],
  events: () => [
    { type: 'TOGGLE', cardId: 'c1', product: 'gift' },
    { type: 'TOGGLE', cardId: 'other', product: 'gift' },
    { type: 'RETRY' },
    { type: 'DISMISS' },
    done('listCards', [card]),
    fail('listCards', 503, 'database_unavailable'),
    done('setProduct', { ...card, products: card.products.map((p) => ({ ...p, active: true })) }),
    fail('setProduct', 404, 'not_found'),
  ],
  serializeState: ({ value, context }) => JSON.stringify([value, context]),
};
