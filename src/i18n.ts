// Languages: the variant's offer (spec §1), the browser language's first part, a remembered choice.
// Only the active locale's strings are loaded, so the first screen stays small.
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { VARIANT_LOCALES, type Locale, type Variant } from '../contract/constants.ts';

const STORAGE_KEY = 'language';

const loaders = import.meta.glob<{ default: Record<string, unknown> }>('../locales/*.json');

/** The locale to start with: a remembered choice the variant offers, else the browser's, else the fallback. */
export function chooseLocale(variant: Variant, browserLanguages: readonly string[], stored: string | null): Locale {
  const offer = VARIANT_LOCALES[variant];
  const offered = Object.values(offer.locales);
  if (stored && (offered as string[]).includes(stored)) return stored as Locale;
  const first = browserLanguages[0]?.split(/[-_]/)[0]?.toLowerCase();
  return (first && offer.locales[first]) || offer.fallback;
}

export function storedLocale(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export async function switchLocale(locale: Locale, remember: boolean): Promise<void> {
  if (!i18next.hasResourceBundle(locale, 'translation')) {
    const module = await loaders[`../locales/${locale}.json`]!();
    i18next.addResourceBundle(locale, 'translation', module.default, true, true);
  }
  await i18next.changeLanguage(locale);
  document.documentElement.lang = locale.replace('_', '-');
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, locale);
    } catch {
      // storage unavailable: the choice lasts this visit
    }
  }
}

export async function startI18n(locale: Locale): Promise<void> {
  await i18next.use(initReactI18next).init({
    lng: locale,
    fallbackLng: false,
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
