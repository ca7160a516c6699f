import { describe, expect, it } from 'vitest';
import { chooseLocale } from '../contract/constants.ts';
import { FALLBACK_LOCALES } from '../locales/fallbacks.ts';
import { elidedBefore, loadStrings } from './i18n.ts';

describe('locale choice (spec §1)', () => {
  it('Belgian variant: a browser language among en, fr and nl picks it; any other falls back to en', () => {
    expect(chooseLocale('be', ['nl-BE', 'fr'], null)).toBe('nl');
    expect(chooseLocale('be', ['fr-FR'], null)).toBe('fr');
    expect(chooseLocale('be', ['en-GB'], null)).toBe('en');
    expect(chooseLocale('be', ['de-DE', 'nl'], null)).toBe('en');
    expect(chooseLocale('be', [], null)).toBe('en');
  });

  it('Luxembourg variant: fr and en pick fr_LU and en_LU; any other falls back to fr_LU', () => {
    expect(chooseLocale('lu', ['fr-LU'], null)).toBe('fr_LU');
    expect(chooseLocale('lu', ['en-US'], null)).toBe('en_LU');
    expect(chooseLocale('lu', ['de-LU'], null)).toBe('fr_LU');
    expect(chooseLocale('lu', ['nl'], null)).toBe('fr_LU');
  });

  it('a stored choice wins when the variant offers it, and is ignored otherwise', () => {
    expect(chooseLocale('be', ['en'], 'nl')).toBe('nl');
    expect(chooseLocale('lu', ['fr'], 'en_LU')).toBe('en_LU');
    expect(chooseLocale('be', ['fr'], 'fr_LU')).toBe('fr');
    expect(chooseLocale('lu', ['en'], 'nl')).toBe('en_LU');
    expect(chooseLocale('be', ['nl'], 'garbage')).toBe('nl');
  });
});

describe('French elision (the grammar holds, no concatenation)', () => {
  it('elides before a vowel or an h, in French only; other languages keep their sentence', async () => {
    const { createInstance } = await import('i18next');
    const fr = (await import('../locales/fr.json')).default;
    const en = (await import('../locales/en.json')).default;
    const i18n = createInstance();
    await i18n.init({ lng: 'fr', resources: { fr: { translation: fr }, en: { translation: en } } });
    const card = (lng: string, company: string) =>
      i18n.t('onboarding.welcome.card', { lng, company, context: elidedBefore(company) ? 'elided' : undefined });
    expect(card('fr', 'Atelier Lambert')).toBe("Votre carte d'Atelier Lambert est prête à être activée.");
    expect(card('fr', 'Hôtel du Lac')).toBe("Votre carte d'Hôtel du Lac est prête à être activée.");
    expect(card('fr', 'Brasserie De Smet')).toBe('Votre carte de Brasserie De Smet est prête à être activée.');
    expect(card('en', 'Atelier Lambert')).toBe('Your card from Atelier Lambert is ready to be activated.');
  });
});

describe('overlays (en_LU, fr_LU hold only what differs from en, fr)', () => {
  it('loads an overlay with its base and reads its own strings first; a full locale loads alone', async () => {
    const { default: i18next } = await import('i18next');
    const fr = (await import('../locales/fr.json')).default;
    await i18next.init({ lng: 'fr_LU', fallbackLng: FALLBACK_LOCALES, resources: {} });
    await loadStrings('fr_LU');
    expect(i18next.t('brochure.title')).toBe('Des chèques-repas pour votre entreprise au Luxembourg');
    expect(i18next.t('login.subtitle')).toBe(fr.login.subtitle);
    await loadStrings('nl');
    expect(i18next.hasResourceBundle('nl', 'translation')).toBe(true);
    expect(i18next.hasResourceBundle('en', 'translation')).toBe(false);
  });
});
