import { describe, expect, it } from 'vitest';
import { intlLocale } from './useIntl.ts';

describe('dates in the reader language', () => {
  it("write the portal's English day first on a 24-hour clock, and the others as their country does", () => {
    const moment = new Date('2026-11-27T15:20:00Z');
    const written = (language: string) =>
      new Intl.DateTimeFormat(intlLocale(language), {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: 'UTC',
      }).format(moment);
    expect(written('en')).toBe('27 Nov 2026, 15:20');
    expect(written('en_LU')).toBe('27 Nov 2026, 15:20');
    expect(written('fr_LU')).toBe('27 nov. 2026, 15:20');
    expect(written('de_LU')).toBe('27.11.2026, 15:20');
    expect(written('nl')).toBe('27 nov 2026, 15:20');
  });
});
