// The security history (/security/history, spec §2): the account's security events within a range
// of days and of categories, a page at a time, with the sign-ins per day for the graph. Changing a
// filter reloads from the first page (a change while a load runs replaces it); "more" appends the
// next page. A first load that fails offers to try again; a further page that fails keeps what is
// shown and says so. A range turned round, or no category selected, is refused here, before any call.
// The filters last as long as the tab: a reload recalls the ones last loaded.
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { historyRange, defaultHistoryRange, type HistoryCategory } from '../contract/history.ts';
import type { HistoryEvent, HistoryPage, HistorySummary } from '../contract/schemas.ts';
import { problemCodeOf, type ProblemCode } from './failures.ts';

/** What the person filters by: the days (YYYY-MM-DD, both included) and the categories (null: all). */
export type HistoryFilters = { from: string; to: string; categories: HistoryCategory[] | null };

type Context = {
  filters: HistoryFilters;
  events: HistoryEvent[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
  days: HistorySummary['days'];
  /** The stable code of the last failure, or the filter's own refusal `no_category` (the screen
   * words it, history.error.<code> before errors.<code>). */
  error: ProblemCode | 'no_category' | null;
};

type FilterEvent = { type: 'FILTER' } & Partial<HistoryFilters>;

export const historyMachine = setup({
  types: {
    context: {} as Context,
    events: {} as
      | FilterEvent
      | { type: 'MORE' }
      | { type: 'RETRY' }
      | { type: 'DISMISS' }
      | DoneActorEvent<HistoryFilters | null, 'recall'>,
  },
  actors: {
    /** The filters this tab last loaded, if any (the app keeps them as it loads). */
    recall: fromPromise<HistoryFilters | null>(async () => null),
    /** The first page and the per-day counts of the filters. */
    loadHistory: fromPromise<{ page: HistoryPage; summary: HistorySummary }, HistoryFilters>(async () => {
      throw new Error('loadHistory is provided by the app');
    }),
    /** A further page. */
    loadPage: fromPromise<HistoryPage, HistoryFilters & { cursor: string }>(async () => {
      throw new Error('loadPage is provided by the app');
    }),
  },
  guards: {
    /** The days the FILTER asks for make a range the server takes. */
    validRange: ({ context, event }) =>
      event.type === 'FILTER' &&
      historyRange(event.from ?? context.filters.from, event.to ?? context.filters.to) !== null,
    /** "Selected" with nothing selected: there is nothing to ask for. */
    noCategory: ({ event }) => event.type === 'FILTER' && event.categories?.length === 0,
    hasMore: ({ context }) => context.next !== null,
    /** Filters recalled from before a reload, still a range the server takes. */
    recalled: ({ event }) => {
      const filters = event.type === 'xstate.done.actor.recall' ? event.output : null;
      return !!filters && historyRange(filters.from, filters.to) !== null && filters.categories?.length !== 0;
    },
  },
  actions: {
    setFilters: assign({
      filters: ({ context, event }) => {
        if (event.type !== 'FILTER') return context.filters;
        const { type: _type, ...change } = event;
        return { ...context.filters, ...change };
      },
      error: null,
    }),
    refuseRange: assign({ error: 'invalid_date_range' }),
    refuseCategories: assign({ error: 'no_category' }),
  },
}).createMachine({
  id: 'history',
  context: () => ({
    filters: { ...defaultHistoryRange(), categories: null },
    events: [],
    next: null,
    days: [],
    error: null,
  }),
  initial: 'recalling',
  on: {
    FILTER: [
      { guard: 'noCategory', actions: 'refuseCategories' },
      { guard: 'validRange', target: '.loading', reenter: true, actions: 'setFilters' },
      { actions: 'refuseRange' },
    ],
  },
  states: {
    recalling: {
      invoke: {
        id: 'recall',
        src: 'recall',
        onDone: [
          { guard: 'recalled', target: 'loading', actions: assign({ filters: ({ event }) => event.output! }) },
          { target: 'loading' },
        ],
        onError: { target: 'loading' },
      },
    },
    loading: {
      invoke: {
        id: 'loadHistory',
        src: 'loadHistory',
        input: ({ context }) => context.filters,
        onDone: {
          target: 'ready',
          actions: assign({
            events: ({ event }) => event.output.page.data,
            next: ({ event }) => event.output.page.next,
            days: ({ event }) => event.output.summary.days,
          }),
        },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => problemCodeOf(event), events: [], next: null, days: [] }),
        },
      },
    },
    /** Nothing could be read: the failure and a way to try again. */
    failed: {
      on: { RETRY: { target: 'loading', actions: assign({ error: null }) } },
    },
    ready: {
      on: {
        MORE: { guard: 'hasMore', target: 'loadingMore', actions: assign({ error: null }) },
        DISMISS: { actions: assign({ error: null }) },
      },
    },
    loadingMore: {
      invoke: {
        id: 'loadPage',
        src: 'loadPage',
        input: ({ context }) => ({ ...context.filters, cursor: context.next! }),
        onDone: {
          target: 'ready',
          actions: assign({
            events: ({ context, event }) => [...context.events, ...event.output.data],
            next: ({ event }) => event.output.next,
          }),
        },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
  },
});
