import { useTranslation } from 'react-i18next';
import { VARIANT_LOCALES, type Locale } from '../../contract/constants.ts';
import { switchLocale } from '../i18n.ts';
import { variant } from '../variant.ts';

/** Names of the languages in themselves, so everyone finds their own. */
export const NATIVE: Record<Locale, string> = {
  en: 'English',
  en_LU: 'English',
  fr: 'Français',
  fr_LU: 'Français',
  nl: 'Nederlands',
  de_LU: 'Deutsch',
};

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const locales = Object.values(VARIANT_LOCALES[variant].locales);
  return (
    <label className="flex items-center gap-2 text-sm">
      {/* On a phone the header is one row: the word goes, the select (and its label for screen readers) stays. */}
      <span className="sr-only sm:not-sr-only">{t('topbar.language')}</span>
      <select
        name="language"
        className="rounded border border-slate-400 bg-white px-2 py-1 text-slate-900"
        value={i18n.language}
        onChange={(event) => void switchLocale(event.target.value as Locale, true)}
      >
        {locales.map((locale) => (
          <option key={locale} value={locale} lang={locale.slice(0, 2)}>
            {NATIVE[locale]}
          </option>
        ))}
      </select>
    </label>
  );
}
