// One-time codes: random digits, stored as an HMAC with the server key (a database leak alone
// does not reveal them), compared in constant time.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { formatPhone } from '../../contract/rules.ts';

export function newCode(digits: number): string {
  return Array.from({ length: digits }, () => randomInt(0, 10)).join('');
}

export function hashCode(secretKey: string, challengeId: string, code: string): string {
  // Bound to the challenge: a code works only for the challenge that sent it.
  return createHmac('sha256', secretKey).update(`${challengeId}:${code}`).digest('base64url');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Shows enough of a destination to recognise it: e***@example.be, +32 ••• •• •• 56 (a number in
 * the groups people read it in, where its country's are known: contract/rules.ts). */
export function maskTarget(target: string): string {
  if (target.includes('@')) {
    const [local, domain] = target.split('@') as [string, string];
    return `${local.slice(0, 1)}***@${domain}`;
  }
  const grouped = formatPhone(target);
  if (grouped === target)
    return `${target.slice(0, 3)}${'•'.repeat(Math.max(0, target.length - 5))}${target.slice(-2)}`;
  // The country code stays, and the last two digits.
  const [country, ...groups] = grouped.split(' ');
  const rest = groups.join(' ');
  const digits = rest.replace(/\D/g, '').length;
  let seen = 0;
  return `${country} ${rest.replace(/\d/g, (digit) => (++seen > digits - 2 ? digit : '•'))}`;
}
