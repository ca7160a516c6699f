// The shared calendar (spec §2 "Shared UI"): a field that shows its day and opens a month grid to
// pick another. The grid is a table of day buttons, one of them in the tab order; the arrow keys
// move by a day or a week, Home and End to the week's ends, Page Up and Page Down by a month, Enter
// or Space picks, Escape closes and gives focus back to the field; a press outside closes it. Days are UTC calendar days
// (YYYY-MM-DD); weeks start on Monday. No date library: Intl words the months and weekdays.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { addDays, dayToMs } from '../../contract/history.ts';
import { intlLocale } from './useIntl.ts';

/** The day a month later or earlier, kept within that month (31 January + 1 month: 28 or 29 February). */
function addMonths(day: string, months: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const first = new Date(Date.UTC(year, month - 1 + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(date, last)))
    .toISOString()
    .slice(0, 10);
}

/** Monday = 0 … Sunday = 6. */
const weekdayOf = (day: string) => (new Date(dayToMs(day)!).getUTCDay() + 6) % 7;

/** The weeks shown for a day's month: Monday to Sunday, null outside the month. */
function weeksOf(day: string): Array<Array<string | null>> {
  const first = `${day.slice(0, 7)}-01`;
  const weeks: Array<Array<string | null>> = [];
  let week: Array<string | null> = Array.from({ length: weekdayOf(first) }, () => null);
  for (let current = first; current.slice(0, 7) === first.slice(0, 7); current = addDays(current, 1)) {
    week.push(current);
    if (week.length === 7) {
      weeks.push(week);
      week = [];
    }
  }
  if (week.length > 0) weeks.push([...week, ...Array.from({ length: 7 - week.length }, () => null)]);
  return weeks;
}

const clamp = (day: string, min?: string, max?: string) => (min && day < min ? min : max && day > max ? max : day);

/** A labelled day field with its calendar. `min` and `max` bound the days that can be picked. */
export function DateField({
  label,
  value,
  min,
  max,
  onChange,
  testId,
}: {
  label: string;
  value: string;
  min?: string;
  max?: string;
  onChange: (day: string) => void;
  testId?: string;
}) {
  const { t, i18n } = useTranslation();
  const id = useId();
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const long = useMemo(
    () => new Intl.DateTimeFormat(intlLocale(i18n.language), { dateStyle: 'long', timeZone: 'UTC' }),
    [i18n.language],
  );
  const box = useRef<HTMLDivElement>(null);
  const close = () => {
    setOpen(false);
    trigger.current?.focus();
  };
  // A press anywhere else closes it, as a picked day would (focus stays where the press put it).
  useEffect(() => {
    if (!open) return undefined;
    const outside = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [open]);
  return (
    <div ref={box} className="relative" data-testid={testId}>
      <span id={`${id}-label`} className="block text-sm font-medium">
        {label}
      </span>
      <button
        ref={trigger}
        type="button"
        id={`${id}-value`}
        aria-labelledby={`${id}-label ${id}-value`}
        aria-expanded={open}
        aria-controls={open ? `${id}-calendar` : undefined}
        aria-haspopup="dialog"
        onClick={() => setOpen((was) => !was)}
        className="mt-1 inline-flex min-h-11 w-full items-center justify-between gap-2 rounded border border-slate-400 bg-white px-3 py-2 text-left focus-visible:outline-3 focus-visible:outline-offset-2 focus-visible:outline-blue-700"
      >
        <span>{long.format(new Date(dayToMs(value)!))}</span>
        <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div
          id={`${id}-calendar`}
          role="dialog"
          aria-modal="false"
          aria-label={t('calendar.dialog', { label })}
          className="absolute left-0 z-20 mt-1 w-72 max-w-[calc(100vw-2rem)] rounded-lg border border-slate-300 bg-white p-3 shadow-lg"
        >
          <Calendar
            value={value}
            min={min}
            max={max}
            onPick={(day) => {
              onChange(day);
              close();
            }}
            onClose={close}
          />
        </div>
      )}
    </div>
  );
}

/** The month grid. Focus comes to the chosen day when it opens. */
export function Calendar({
  value,
  min,
  max,
  onPick,
  onClose,
}: {
  value: string;
  min?: string;
  max?: string;
  onPick: (day: string) => void;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const locale = intlLocale(i18n.language);
  const [focused, setFocused] = useState(() => clamp(value, min, max));
  const grid = useRef<HTMLTableElement>(null);
  const formats = useMemo(
    () => ({
      month: new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }),
      day: new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeZone: 'UTC' }),
      weekdayShort: new Intl.DateTimeFormat(locale, { weekday: 'short', timeZone: 'UTC' }),
      weekdayLong: new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' }),
    }),
    [locale],
  );
  // 1 January 2024 was a Monday.
  const weekdays = Array.from({ length: 7 }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)));
  const weeks = weeksOf(focused);
  const month = formats.month.format(new Date(dayToMs(focused)!));
  const captionId = useId();
  // Focus follows the day when it opens and when the keys move it; the month buttons keep theirs.
  const focusDay = useRef(true);

  useEffect(() => {
    if (!focusDay.current) return;
    grid.current?.querySelector<HTMLButtonElement>(`[data-day="${focused}"]`)?.focus();
  }, [focused]);

  const move = (day: string, byKeys = true) => {
    focusDay.current = byKeys;
    setFocused(clamp(day, min, max));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, () => string> = {
      ArrowLeft: () => addDays(focused, -1),
      ArrowRight: () => addDays(focused, 1),
      ArrowUp: () => addDays(focused, -7),
      ArrowDown: () => addDays(focused, 7),
      Home: () => addDays(focused, -weekdayOf(focused)),
      End: () => addDays(focused, 6 - weekdayOf(focused)),
      PageUp: () => addMonths(focused, -1),
      PageDown: () => addMonths(focused, 1),
    };
    const next = moves[event.key];
    if (!next) return;
    event.preventDefault();
    move(next());
  };
  const previous = addMonths(focused, -1);
  const following = addMonths(focused, 1);
  const monthOutOfRange = (day: string, direction: -1 | 1) =>
    direction < 0
      ? Boolean(min && day.slice(0, 7) < min.slice(0, 7))
      : Boolean(max && day.slice(0, 7) > max.slice(0, 7));
  return (
    <div
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onClose();
        }
      }}
    >
      <div className="flex items-center justify-between gap-2">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={t('calendar.previous')}
          disabled={monthOutOfRange(previous, -1)}
          onClick={() => move(previous, false)}
        >
          <span aria-hidden="true">‹</span>
        </button>
        <h3 id={captionId} aria-live="polite" className="text-sm font-semibold">
          {month}
        </h3>
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={t('calendar.next')}
          disabled={monthOutOfRange(following, 1)}
          onClick={() => move(following, false)}
        >
          <span aria-hidden="true">›</span>
        </button>
      </div>
      <table
        ref={grid}
        aria-labelledby={captionId}
        className="mt-2 w-full table-fixed text-center text-sm"
        onKeyDown={onKeyDown}
      >
        <thead>
          <tr>
            {weekdays.map((day) => (
              <th
                key={day.getTime()}
                scope="col"
                abbr={formats.weekdayLong.format(day)}
                className="py-1 font-medium text-slate-700"
              >
                {formats.weekdayShort.format(day)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {weeks.map((week) => (
            <tr key={week.find(Boolean)}>
              {week.map((day, index) => (
                <td key={day ?? `empty-${index}`} className="p-0.5">
                  {day && (
                    <button
                      type="button"
                      data-day={day}
                      tabIndex={day === focused ? 0 : -1}
                      aria-label={formats.day.format(new Date(dayToMs(day)!))}
                      aria-pressed={day === value}
                      disabled={(min !== undefined && day < min) || (max !== undefined && day > max)}
                      onClick={() => onPick(day)}
                      onFocus={() => {
                        if (day !== focused) move(day);
                      }}
                      className={`h-9 w-full rounded focus-visible:outline-3 focus-visible:outline-offset-1 focus-visible:outline-blue-700 disabled:text-slate-500 disabled:line-through ${day === value ? 'bg-brand font-semibold text-white' : 'hover:bg-slate-100'}`}
                    >
                      {Number(day.slice(8))}
                    </button>
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
