import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { addDays, defaultHistoryRange } from '../contract/history.ts';
import type { HistoryPage, HistorySummary } from '../contract/schemas.ts';
import { historyMachine, type HistoryFilters } from '../machines/history.ts';
import { report, walkFrom } from './coverage.ts';
import { failingOnce, refuses, settle } from './events.ts';
import { historyModel, pageOf, summary } from './history.model.ts';

const { from: FROM, to: TO } = defaultHistoryRange();

describe('history machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(historyModel);
    console.info(report('history', result));
    expect(result.missing).toEqual([]);
  });
});

describe('history machine: behaviour', () => {
  async function start(
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
    await settle();
    return { actor, calls };
  }

  it('loads the last 30 days in every category, then appends the next page until the last', async () => {
    const { actor, calls } = await start();
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
    const { actor, calls } = await start();
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
    const { actor } = await start({
      load: failingOnce({ page: pageOf(['a'], 'cursor-1'), summary }),
      more: refuses(500, { code: 'internal_error' }),
    });
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
