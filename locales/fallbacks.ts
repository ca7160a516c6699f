// How the locales fall back on each other, for the app and the server alike. i18next reads en_LU as
// one code, not as en-LU, so an underscored locale falls back only where this says so.
import type { Locale } from '../contract/constants.ts';

/** The locales written as overlays: their file holds only what differs from the base. */
export const OVERLAY_BASES = { en_LU: 'en', fr_LU: 'fr' } as const satisfies Partial<Record<Locale, Locale>>;

/** i18next's `fallbackLng`. de_LU is a full German translation: what it may lack reads in French,
 * Luxembourg's other language. Anything else reads in English. */
export const FALLBACK_LOCALES = {
  en_LU: [OVERLAY_BASES.en_LU],
  fr_LU: [OVERLAY_BASES.fr_LU],
  de_LU: ['fr'],
  default: ['en'],
} as const satisfies Partial<Record<Locale | 'default', readonly Locale[]>>;

/** The files a locale's texts come from, in order: an overlay's own, then its base's. A full
 * locale (de_LU included) is one file that holds every text (the locale check says so), so its
 * visitors load nothing more. */
export function localeChain(locale: Locale): Locale[] {
  const bases: Partial<Record<Locale, Locale>> = OVERLAY_BASES;
  const base = bases[locale];
  return base ? [locale, base] : [locale];
}
