import { describe, expect, it } from 'vitest';
import {
  HISTORY_CATEGORIES,
  HISTORY_TYPES,
  KNOWN_HISTORY_TYPES,
  addDays,
  categoryOf,
  dayToMs,
  daysBetween,
  defaultHistoryRange,
  historyRange,
} from './history.ts';

const NOW = Date.UTC(2026, 10, 24, 23, 30);

describe('history categories', () => {
  it('puts every known type in exactly one category, and anything else under other', () => {
    expect(new Set(KNOWN_HISTORY_TYPES).size).toBe(Object.values(HISTORY_TYPES).flat().length);
    for (const [category, types] of Object.entries(HISTORY_TYPES))
      for (const type of types) expect(categoryOf(type)).toBe(category);
    expect(categoryOf('login_succeeded')).toBe('sign_in');
    expect(categoryOf('something_new')).toBe('other');
    expect(HISTORY_CATEGORIES).toContain('other');
    expect(Object.keys(HISTORY_TYPES).sort()).toEqual(HISTORY_CATEGORIES.filter((c) => c !== 'other').sort());
  });
});

describe('history days', () => {
  it('takes real calendar days only', () => {
    expect(dayToMs('2026-11-24')).toBe(Date.UTC(2026, 10, 24));
    expect(dayToMs('2028-02-29')).not.toBeNull();
    for (const day of [
      '2026-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-11-31',
      '20261124',
      '2026-1-01',
      ' 2026-11-24',
      '',
    ])
      expect(dayToMs(day), day).toBeNull();
  });

  it('counts days across months and years', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(daysBetween('2026-11-29', '2026-12-02')).toEqual(['2026-11-29', '2026-11-30', '2026-12-01', '2026-12-02']);
  });

  it('defaults to the last 30 UTC days, fills a missing end, and refuses a range turned round or longer than a year', () => {
    expect(defaultHistoryRange(NOW)).toEqual({ from: '2026-10-26', to: '2026-11-24' });
    expect(historyRange(undefined, undefined, NOW)).toEqual({ from: '2026-10-26', to: '2026-11-24' });
    expect(historyRange('2026-11-01', undefined, NOW)).toEqual({ from: '2026-11-01', to: '2026-11-24' });
    expect(historyRange(undefined, '2026-06-30', NOW)).toEqual({ from: '2026-06-01', to: '2026-06-30' });
    expect(historyRange('2026-11-24', '2026-11-24', NOW)).toEqual({ from: '2026-11-24', to: '2026-11-24' });
    expect(historyRange('2025-11-24', '2026-11-24', NOW)).toEqual({ from: '2025-11-24', to: '2026-11-24' });
    expect(historyRange('2025-11-23', '2026-11-24', NOW)).toBeNull();
    expect(historyRange('2026-11-25', '2026-11-24', NOW)).toBeNull();
    expect(historyRange('2026-11-31', undefined, NOW)).toBeNull();
    expect(historyRange(undefined, 'today', NOW)).toBeNull();
  });
});
