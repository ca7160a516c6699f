// The server's own i18next, with the app's fallbacks: the app's strings (locales/*.json) and the
// texts only the server sends (locales/server/*.json: mails, SMS, calls), which are kept apart so
// that the app's bundle does not carry them. Loaded at start, so every text is ready at once.
import i18next, { type Resource, type TFunction } from 'i18next';
import { LOCALES, type Locale } from '../../contract/constants.ts';
import deLU from '../../locales/de_LU.json' with { type: 'json' };
import en from '../../locales/en.json' with { type: 'json' };
import enLU from '../../locales/en_LU.json' with { type: 'json' };
import { FALLBACK_LOCALES } from '../../locales/fallbacks.ts';
import fr from '../../locales/fr.json' with { type: 'json' };
import frLU from '../../locales/fr_LU.json' with { type: 'json' };
import nl from '../../locales/nl.json' with { type: 'json' };
import serverDeLU from '../../locales/server/de_LU.json' with { type: 'json' };
import serverEn from '../../locales/server/en.json' with { type: 'json' };
import serverEnLU from '../../locales/server/en_LU.json' with { type: 'json' };
import serverFr from '../../locales/server/fr.json' with { type: 'json' };
import serverFrLU from '../../locales/server/fr_LU.json' with { type: 'json' };
import serverNl from '../../locales/server/nl.json' with { type: 'json' };

const STRINGS: Record<Locale, [object, object]> = {
  en: [en, serverEn],
  en_LU: [enLU, serverEnLU],
  fr: [fr, serverFr],
  fr_LU: [frLU, serverFrLU],
  nl: [nl, serverNl],
  de_LU: [deLU, serverDeLU],
};

// The two sets share no top-level key (locales/locales.test.ts checks it).
const resources: Resource = Object.fromEntries(
  LOCALES.map((locale) => [locale, { translation: { ...STRINGS[locale][0], ...STRINGS[locale][1] } }]),
);

const i18n = i18next.createInstance();
void i18n.init({
  resources,
  lng: 'en',
  fallbackLng: FALLBACK_LOCALES,
  initAsync: false,
  // Plain text: mails and messages are not HTML.
  interpolation: { escapeValue: false },
});

/** The locale of a language: itself when it is one, else the first locale of its language ("de"
 * reads de_LU, "fr-BE" fr), else English. */
export function localeOf(language: string): Locale {
  const code = language.replace('-', '_');
  if ((LOCALES as readonly string[]).includes(code)) return code as Locale;
  const base = code.split('_')[0]!.toLowerCase();
  return LOCALES.find((locale) => locale.split('_')[0] === base) ?? 'en';
}

/** The texts in a language (any tag: see localeOf), through the locales' fallbacks. */
export function textsIn(language: string): TFunction {
  return i18n.getFixedT(localeOf(language));
}
