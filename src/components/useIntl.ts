// Dates and countries as the reader's language writes them. i18next names a language with an
// underscore (fr_LU), Intl with a hyphen.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

/** A language as Intl names it. The portal's English is read in Belgium and Luxembourg: its dates
 * go day first, on a 24-hour clock, as British English writes them (Intl's bare `en` is American,
 * and it has no `en-LU`). */
export function intlLocale(language: string): string {
  return language === 'en' || language === 'en_LU' ? 'en-GB' : language.replace('_', '-');
}

/** The reader's language, as Intl names it. */
export function useIntlLocale(): string {
  const { i18n } = useTranslation();
  return intlLocale(i18n.language);
}

/** Writes a moment (an ISO string) in the reader's language, in the styles given. */
export function useDateFormat(
  dateStyle: Intl.DateTimeFormatOptions['dateStyle'],
  timeStyle?: Intl.DateTimeFormatOptions['timeStyle'],
): (iso: string) => string {
  const locale = useIntlLocale();
  return useMemo(() => {
    const format = new Intl.DateTimeFormat(locale, { dateStyle, timeStyle });
    return (iso: string) => format.format(new Date(iso));
  }, [locale, dateStyle, timeStyle]);
}

/** Names a country (its ISO code) in the reader's language; a code Intl does not know stays as it is. */
export function useCountryName(): (code: string) => string {
  const locale = useIntlLocale();
  return useMemo(() => {
    const names = new Intl.DisplayNames([locale], { type: 'region' });
    return (code: string) => names.of(code) ?? code;
  }, [locale]);
}
