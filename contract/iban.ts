// The IBAN check, apart from the profile's other rules: it brings ibantools' country table, which
// only the screen that edits the bank account and the server need.
import { electronicFormatIBAN, extractIBAN, isValidIBAN } from 'ibantools';
import { isIbanCountry } from './profile.ts';

/** The IBAN as stored (no spaces, upper case) when it is valid for the country chosen: its
 * checksum, its country's length and pattern, and its country code the one chosen; else null. */
export function ibanFor(country: string, typed: string): string | null {
  if (!isIbanCountry(country)) return null;
  const iban = electronicFormatIBAN(typed);
  if (!iban || !isValidIBAN(iban)) return null;
  return extractIBAN(iban).countryCode === country ? iban : null;
}
