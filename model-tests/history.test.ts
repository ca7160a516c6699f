import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { addDays, defaultHistoryRange } from '../contract/history.ts';
import type { HistoryEvent, HistoryPage, HistorySummary } from '../contract/schemas.ts';
import { historyMachine, type HistoryFilters } from '../machines/history.ts';
import { report, walk } from './coverage.ts';
import { done, fail, failingOnce, settle } from './events.ts';

const { from: FROM, to: TO } = defaultHistoryRange();
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
const pageOf = (ids: string[], next: string | null): HistoryPage => ({
  data: ids.map(event),
  next,
  from: '2026-10-26',
  to: '2026-11-24',
});
const summary: HistorySummary = { from: '2026-10-26', to: '2026-11-24', days: [{ date: '2026-11-24', sign_ins: 2 }] };

describe('history machine: model', () => {
  it('takes every declared transition', () => {
    const result = walk(historyMachine, {
      events: () =>
        [
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
        ] as never,
      serializeState: ({ value, context }) => {
        const c = context as { filters: HistoryFilters; events: unknown[]; next: unknown; error: unknown };
        return JSON.stringify([value, c.filters, c.events.length, c.next, c.error]);
      },
    });
    console.info(report('history', result));
    expect(result.missing).toEqual([]);
  });
});

describe('history machine: behaviour', () => {
  function start(
    options: {
      load?: (filters: HistoryFilters) => Promise<{ page: HistoryPage; summary: HistorySummary }>;
      more?: () => Promise<HistoryPage>;
    } = {},
  ) {
    const calls: string[] = [];
    const actor = createActor(
      historyMachine.provide({
        actors: {
          loadHistory: fromPromise(async ({ input }) => {
            calls.push(`load ${input.from}..${input.to} ${input.categories?.join(',') ?? 'all'}`);
            return options.load ? options.load(input) : { page: pageOf(['a', 'b'], 'cursor-1'), summary };
          }),
          loadPage: fromPromise(async ({ input }) => {
            calls.push(`page ${input.cursor}`);
            return options.more ? options.more() : pageOf(['c'], null);
          }),
        },
      }),
    ).start();
    return { actor, calls };
  }

  it('loads the last 30 days in every category, then appends the next page until the last', async () => {
    const { actor, calls } = start();
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context.days).toEqual(summary.days);
    actor.send({ type: 'MORE' });
    expect(actor.getSnapshot().value).toBe('loadingMore');
    await settle();
    expect(actor.getSnapshot().context.events.map((e) => e.id)).toEqual(['a', 'b', 'c']);
    expect(actor.getSnapshot().context.next).toBeNull();
    actor.send({ type: 'MORE' });
    expect(actor.getSnapshot().value).toBe('ready');
    expect(calls).toEqual([`load ${FROM}..${TO} all`, 'page cursor-1']);
  });

  it('reloads from the first page when a filter changes, and refuses a range turned round or no category', async () => {
    const { actor, calls } = start();
    await settle();
    actor.send({ type: 'MORE' });
    await settle();
    const from = addDays(TO, -3);
    actor.send({ type: 'FILTER', from, categories: ['sign_in', 'other'] });
    await settle();
    expect(actor.getSnapshot().context.events.map((e) => e.id)).toEqual(['a', 'b']);
    expect(actor.getSnapshot().context.filters).toEqual({ from, to: TO, categories: ['sign_in', 'other'] });
    actor.send({ type: 'FILTER', to: addDays(TO, -10) });
    expect(actor.getSnapshot().context.error).toBe('invalid_date_range');
    actor.send({ type: 'FILTER', categories: [] });
    expect(actor.getSnapshot().context.error).toBe('no_category');
    expect(actor.getSnapshot().value).toBe('ready');
    actor.send({ type: 'DISMISS' });
    expect(actor.getSnapshot().context.error).toBeNull();
    expect(calls).toEqual([`load ${FROM}..${TO} all`, 'page cursor-1', `load ${from}..${TO} sign_in,other`]);
  });

  it('keeps what is shown when a further page fails, and offers to try again when nothing loads', async () => {
    const { actor } = start({
      load: failingOnce({ page: pageOf(['a'], 'cursor-1'), summary }),
      more: async () => {
        throw apiFailure(500, { code: 'internal_error' });
      },
    });
    await settle();
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe('database_unavailable');
    actor.send({ type: 'RETRY' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
    actor.send({ type: 'MORE' });
    await settle();
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({ error: 'internal_error', next: 'cursor-1' });
    expect(actor.getSnapshot().context.events).toHaveLength(1);
  });
});
