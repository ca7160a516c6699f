// Where a device or an event was, in words: the country's name in the reader's language, and the
// city before it where the server knows it ("Brussels, Belgium").
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

export type Place = { country: string | null; city: string | null };

/** Names a place; `unknown` is what an unknown country reads as on this screen. */
export function usePlaceName(unknown: string): (place: Place) => string {
  const { t, i18n } = useTranslation();
  const locale = i18n.language.replace('_', '-');
  const regions = useMemo(() => new Intl.DisplayNames([locale], { type: 'region' }), [locale]);
  return ({ country, city }) => {
    const name = country ? (regions.of(country) ?? country) : unknown;
    return city ? t('security.place', { context: 'city', city, country: name }) : name;
  };
}
