// Languages: the variant's offer (spec §1), the browser language's first part, a remembered choice.
// Only the active locale's strings are loaded (with its base, for an overlay such as en_LU), so the
// first screen stays small.
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGE_COOKIE, type Locale } from '../contract/constants.ts';
import { FALLBACK_LOCALES, localeChain } from '../locales/fallbacks.ts';

const STORAGE_KEY = 'language';

const loaders = import.meta.glob<{ default: Record<string, unknown> }>('../locales/*.json');

export function storedLocale(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Loads a locale's strings once, with those it falls back on (the first screen's locale also comes
 * preloaded with the page). */
export async function loadStrings(locale: Locale): Promise<void> {
  await Promise.all(
    localeChain(locale).map(async (code) => {
      if (i18next.hasResourceBundle(code, 'translation')) return;
      const module = await loaders[`../locales/${code}.json`]!();
      i18next.addResourceBundle(code, 'translation', module.default, true, true);
    }),
  );
}

/** The language asked for last: strings that arrive after a later choice do not undo it. */
let latest: Locale | null = null;

export async function switchLocale(locale: Locale, remember: boolean): Promise<void> {
  latest = locale;
  await loadStrings(locale);
  if (latest !== locale) return;
  await i18next.changeLanguage(locale);
  document.documentElement.lang = locale.replace('_', '-');
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, locale);
    } catch {
      // storage unavailable: the choice lasts this visit
    }
    // The server draws the next visit's first screen in it too (a year, like the stored choice).
    document.cookie = `${LANGUAGE_COOKIE}=${locale}; path=/; max-age=31536000; samesite=lax`;
  }
}

export async function startI18n(locale: Locale): Promise<void> {
  await i18next.use(initReactI18next).init({
    lng: locale,
    fallbackLng: FALLBACK_LOCALES,
    resources: {},
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
  });
  await switchLocale(locale, false);
}

/** Whether a name starts with a vowel sound, so French elides the word before it ("d'Atelier", not
 * "de Atelier"): the sentence takes the `_elided` context; the languages that do not elide say it the same way. */
export function elidedBefore(name: string): boolean {
  return /^[aeiouyhàâäæéèêëîïôöœùûü]/i.test(name.trim());
}
