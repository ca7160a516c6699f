// The dashboard's services card (spec §1): one tile per platform the account belongs to.
import { serviceHost } from '../../contract/constants.ts';
import type { UserProfile } from '../../contract/schemas.ts';

export type Tile = { key: 'client' | 'my' | 'fridom' | 'deals'; href: string };

/** The deals partner platform: one address for every variant that offers it. */
export const DEALS_URL = 'https://deals.partner.example/';

/** Which tiles a user gets: by the platform ids set on the account, deals except in Luxembourg.
 * Tile hosts replace 'account' in this host with client, my or fridom. */
export function tilesFor(
  user: Pick<UserProfile, 'customer_user_id' | 'user_id' | 'fridom_user_id'>,
  host: string,
  protocol: string,
  lu: boolean,
): Tile[] {
  const url = (service: 'client' | 'my' | 'fridom') => `${protocol}//${serviceHost(host, service)}/`;
  const tiles: Tile[] = [];
  if (user.customer_user_id) tiles.push({ key: 'client', href: url('client') });
  if (user.user_id) tiles.push({ key: 'my', href: url('my') });
  if (user.fridom_user_id) tiles.push({ key: 'fridom', href: url('fridom') });
  if (!lu) tiles.push({ key: 'deals', href: DEALS_URL });
  return tiles;
}
