// Which X-Forwarded-For entries to believe. Fastify takes addresses as they are, but ignores a bare
// hop count (it cannot check the peer), so a count becomes a function trusting that many hops.
import type { Config } from '../config/index.ts';

export function proxyTrust(
  trust: Config['trustProxy'],
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  // Hop 0 is the peer; each trusted hop lets the next address to its left stand.
  return (_address, hop) => hop < trust;
}
