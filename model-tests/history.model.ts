// The history's model: what its test walks and the testers' paths follow.
import type { HistoryEvent, HistoryPage, HistorySummary } from '../contract/schemas.ts';
import { historyMachine, type HistoryFilters } from '../machines/history.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';

const event = (id: string): HistoryEvent => ({
  id,
  at: '2026-11-20T10:00:00.000Z',
  type: 'login_succeeded',
  category: 'sign_in',
  browser: 'Firefox 128.0',
  os: 'Linux',
  platform: 'desktop',
  country: null,
  city: null,
});
export const pageOf = (ids: string[], next: string | null): HistoryPage => ({
  data: ids.map(event),
  next,
  from: '2026-10-26',
  to: '2026-11-24',
});
export const summary: HistorySummary = {
  from: '2026-10-26',
  to: '2026-11-24',
  days: [{ date: '2026-11-24', sign_ins: 2 }],
};

export const historyModel: Model = {
  machine: historyMachine,
  starts: [{ name: 'the history' }],
  events: () => [
    { type: 'FILTER', categories: ['sign_in'] },
    { type: 'FILTER', categories: [] },
    { type: 'FILTER', from: '2026-11-30', to: '2026-11-01' },
    { type: 'MORE' },
    { type: 'RETRY' },
    { type: 'DISMISS' },
    done('recall', null),
    done('recall', { from: '2026-11-20', to: '2026-11-21', categories: ['sign_in'] }),
    fail('recall', 500, 'internal_error'),
    done('loadHistory', { page: pageOf(['a', 'b'], 'cursor-1'), summary }),
    done('loadHistory', { page: pageOf([], null), summary }),
    fail('loadHistory', 503, 'database_unavailable'),
    done('loadPage', pageOf(['c'], null)),
    fail('loadPage', 500, 'internal_error'),
  ],
  serializeState: ({ value, context }) => {
    const c = context as { filters: HistoryFilters; events: unknown[]; next: unknown; error: unknown };
    return JSON.stringify([value, c.filters, c.events.length, c.next, c.error]);
  },
};
