// Where a device or an event was, in words: the country's name in the reader's language, and the
// city before it where the server knows it ("Brussels, Belgium").
import { useTranslation } from 'react-i18next';
import { useCountryName } from '../components/useIntl.ts';

export type Place = { country: string | null; city: string | null };

/** Names a place; `unknown` is what an unknown country reads as on this screen. */
export function usePlaceName(unknown: string): (place: Place) => string {
  const { t } = useTranslation();
  const countryName = useCountryName();
  return ({ country, city }) => {
    const name = country ? countryName(country) : unknown;
    return city ? t('security.place', { context: 'city', city, country: name }) : name;
  };
}
