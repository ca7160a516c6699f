import { afterEach, describe, expect, it } from 'vitest';
import { cityOf, countryOf, describeAgent, placeOf, useCityDatabase } from './index.ts';
import { writeCityDatabase } from './mmdb.ts';

describe('describeAgent', () => {
  it('names the browser and the operating system of a desktop agent', () => {
    const agent = describeAgent(
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.85 Safari/537.36',
    );
    expect(agent).toEqual({ browser: 'Chrome 131.0', os: 'Windows 10', platform: 'desktop' });
  });

  it('names a phone', () => {
    const agent = describeAgent(
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    );
    expect(agent.browser).toBe('Safari 18.1');
    expect(agent.os).toMatch(/^iOS 18/);
    expect(agent.platform).toBe('mobile');
  });

  it('says nothing of a missing or meaningless agent', () => {
    expect(describeAgent(null)).toEqual({ browser: null, os: null, platform: null });
    expect(describeAgent('curl-like/0')).toMatchObject({ os: null, platform: null });
  });
});

describe('countryOf', () => {
  it('finds the country of public addresses, IPv4-mapped ones too', () => {
    expect(countryOf('8.8.8.8')).toBe('US');
    expect(countryOf('::ffff:8.8.8.8')).toBe('US');
  });

  it('finds no country for loopback, private, malformed or IPv6 addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.1.1', 'not-an-ip', '2001:db8::1', '', null])
      expect(countryOf(ip)).toBeNull();
  });
});

describe('the city, from a configured city database', () => {
  afterEach(() => useCityDatabase(null));

  it('is unknown without one, and named with one; the country still comes from the shipped table', () => {
    expect(placeOf('81.246.1.2')).toEqual({ country: countryOf('81.246.1.2'), city: null });
    useCityDatabase(
      writeCityDatabase([
        { prefix: '81.246.0.0/16', city: 'Brussels', country: 'BE', names: { fr: 'Bruxelles', de: 'Brüssel' } },
        { prefix: '158.64.0.0/16', city: 'Luxembourg', country: 'LU' },
      ]),
    );
    expect(cityOf('81.246.1.2')).toBe('Brussels');
    // In the reader's language where the database has it, else in English.
    expect(cityOf('81.246.1.2', 'fr_LU')).toBe('Bruxelles');
    expect(cityOf('81.246.1.2', 'de_LU')).toBe('Brüssel');
    expect(cityOf('81.246.1.2', 'nl')).toBe('Brussels');
    expect(cityOf('::ffff:158.64.3.4')).toBe('Luxembourg');
    expect(placeOf('158.64.3.4').city).toBe('Luxembourg');
    // Outside every prefix, IPv6 in an IPv4 file, garbage: unknown, never an error.
    expect(cityOf('8.8.8.8')).toBeNull();
    expect(cityOf('2001:db8::1')).toBeNull();
    expect(cityOf('not an address')).toBeNull();
  });

  it('refuses a file that is not a city database', () => {
    expect(() => useCityDatabase(Buffer.from('not a database'))).toThrow();
  });
});
