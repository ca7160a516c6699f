// The account's cards on the dashboard (spec §4 "Product card toggle"): the list, and a voucher
// product switched on or off. A switch shows at once and is sent; a refusal puts it back and says so.
// A list that could not load offers to try again.
import { assign, fromPromise, setup } from 'xstate';
import type { AccountCard, CardProduct } from '../contract/profile.ts';
import { problemCodeOf, type ProblemCode } from './failures.ts';

type Switch = { cardId: string; product: CardProduct; active: boolean };

type Context = {
  cards: AccountCard[];
  error: ProblemCode | null;
  /** The switch on its way to the server. */
  pending: Switch | null;
};

/** The cards with one product set as the switch says. */
const applied = (cards: AccountCard[], { cardId, product, active }: Switch) =>
  cards.map((card) =>
    card.id !== cardId
      ? card
      : {
          ...card,
          products: card.products.map((p) => (p.product === product ? { product, active } : p)),
        },
  );

export const cardsMachine = setup({
  types: {
    context: {} as Context,
    events: {} as { type: 'TOGGLE'; cardId: string; product: CardProduct } | { type: 'RETRY' } | { type: 'DISMISS' },
  },
  actors: {
    listCards: fromPromise<AccountCard[]>(async () => {
      throw new Error('listCards is provided by the app');
    }),
    setProduct: fromPromise<AccountCard, Switch>(async () => {
      throw new Error('setProduct is provided by the app');
    }),
  },
  guards: {
    knownProduct: ({ context, event }) =>
      event.type === 'TOGGLE' &&
      context.cards.some((c) => c.id === event.cardId && c.products.some((p) => p.product === event.product)),
  },
}).createMachine({
  id: 'cards',
  context: { cards: [], error: null, pending: null },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'listCards',
        src: 'listCards',
        onDone: { target: 'ready', actions: assign({ cards: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    failed: { on: { RETRY: { target: 'loading', actions: assign({ error: null }) } } },
    ready: {
      on: {
        TOGGLE: {
          guard: 'knownProduct',
          target: 'switching',
          actions: assign(({ context, event }) => {
            const now = context.cards
              .find((c) => c.id === event.cardId)!
              .products.find((p) => p.product === event.product)!.active;
            const pending = { cardId: event.cardId, product: event.product, active: !now };
            return { pending, cards: applied(context.cards, pending), error: null };
          }),
        },
        DISMISS: { actions: assign({ error: null }) },
      },
    },
    switching: {
      invoke: {
        id: 'setProduct',
        src: 'setProduct',
        input: ({ context }) => context.pending!,
        onDone: {
          target: 'ready',
          actions: assign({
            cards: ({ context, event }) => context.cards.map((c) => (c.id === event.output.id ? event.output : c)),
            pending: null,
          }),
        },
        onError: {
          target: 'ready',
          actions: assign({
            cards: ({ context }) => applied(context.cards, { ...context.pending!, active: !context.pending!.active }),
            error: ({ event }) => problemCodeOf(event),
            pending: null,
          }),
        },
      },
    },
  },
});
