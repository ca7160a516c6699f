// Phone numbers are stored and compared in E.164. Kept apart from rules.ts so the browser bundle
// only pulls libphonenumber-js where it needs it.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/** Any common format ("0470 12 34 56", "+32 470/12.34.56", "0032470123456") to E.164, or null. */
export function normalisePhone(value: string, defaultCountry: CountryCode = 'BE'): string | null {
  const cleaned = value.trim().replace(/^00/, '+');
  if (!/^[+\d\s()./-]{6,32}$/.test(cleaned)) return null;
  const parsed = parsePhoneNumberFromString(cleaned, defaultCountry);
  if (!parsed || !parsed.isValid()) return null;
  return parsed.number;
}
