// The IBAN check, apart from the profile's other rules: it brings ibantools' country table, which
// only the screen that edits the bank account and the server need.
import { electronicFormatIBAN, extractIBAN, isValidIBAN } from 'ibantools';
import { isIbanCountry, type IbanCountry } from './profile.ts';

/** A typed IBAN, checked against the country chosen (if any): as stored (no spaces, upper case) with
 * its country, or why not. An IBAN names its own country, so one left unset is the IBAN's; one
 * chosen that differs is said as such, not as an invalid IBAN. */
export type IbanCheck =
  | { ok: true; iban: string; country: IbanCountry }
  | { ok: false; code: 'iban_invalid' }
  | { ok: false; code: 'iban_country_mismatch'; country: IbanCountry; chosen: IbanCountry };

/** The listed country an IBAN's first two letters name, as soon as they are typed; else null. */
export function ibanCountryOf(typed: string): IbanCountry | null {
  const prefix = typed
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 2)
    .toUpperCase();
  return isIbanCountry(prefix) ? prefix : null;
}

/** Checks an IBAN: its checksum, its country's length and pattern, its country one of the list,
 * and the same as the one chosen (empty or absent: none chosen). */
export function checkIban(chosen: string | undefined, typed: string): IbanCheck {
  const iban = electronicFormatIBAN(typed);
  if (!iban || !isValidIBAN(iban)) return { ok: false, code: 'iban_invalid' };
  const country = extractIBAN(iban).countryCode ?? '';
  if (!isIbanCountry(country)) return { ok: false, code: 'iban_invalid' };
  if (!chosen || chosen === country) return { ok: true, iban, country };
  return isIbanCountry(chosen)
    ? { ok: false, code: 'iban_country_mismatch', country, chosen }
    : { ok: false, code: 'iban_invalid' };
}
