import { describe, expect, it } from 'vitest';
import { DEALS_URL, tilesFor } from './tiles.ts';

const none = { customer_user_id: null, user_id: null, fridom_user_id: null };

describe('dashboard tiles', () => {
  it('gives the Belgian card holder client area, consumer platform, fridom and deals on derived hosts', () => {
    const tiles = tilesFor(
      { customer_user_id: 'c1', user_id: 'u1', fridom_user_id: 'f1' },
      'account.localhost:3000',
      'http:',
      false,
    );
    expect(tiles).toEqual([
      { key: 'client', href: 'http://client.localhost:3000/' },
      { key: 'my', href: 'http://my.localhost:3000/' },
      { key: 'fridom', href: 'http://fridom.localhost:3000/' },
      { key: 'deals', href: DEALS_URL },
    ]);
  });

  it('gives a company customer only the client area and deals', () => {
    expect(
      tilesFor({ ...none, customer_user_id: 'c1' }, 'account.tessera.be', 'https:', false).map((t) => t.key),
    ).toEqual(['client', 'deals']);
  });

  it('never offers deals in the Luxembourg variant', () => {
    const tiles = tilesFor(
      { ...none, user_id: 'u1', fridom_user_id: 'f1' },
      'account.lu.localhost:3000',
      'http:',
      true,
    );
    expect(tiles).toEqual([
      { key: 'my', href: 'http://my.lu.localhost:3000/' },
      { key: 'fridom', href: 'http://fridom.lu.localhost:3000/' },
    ]);
  });

  it('shows no platform tile for an account without ids', () => {
    expect(tilesFor(none, 'account.tessera.be', 'https:', false).map((t) => t.key)).toEqual(['deals']);
    expect(tilesFor(none, 'account.tessera.lu', 'https:', true)).toEqual([]);
  });
});
