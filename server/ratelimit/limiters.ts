// Every throttle of the server, in one table. The requester is the client address as resolved
// through the trusted proxies (never the device id, which the client chooses). A rule that protects
// an account counts per requester first, tightly (a block: that address's own limit), and per
// account only as a loose ceiling that never blocks: past it every attempt on the account needs a
// harder proof of work, and past `ceilingDay` the hardest (server/captcha/ceilings.ts). A stranger
// can make the owner solve a puzzle, never wait (NIST SP 800-63B; docs/decisions/throttles.md).
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config/index.ts';
import type { DatabaseHandle } from '../db/index.ts';
import { createLimiter, type LimiterSpec } from './index.ts';

const HOUR = 3600;

function specs(config: Config) {
  const { login, mfa } = config;
  return {
    /** Failed sign-ins for one account from one address. */
    userIp: { points: login.maxFailsPerUserIp, duration: login.windowSeconds, blockDuration: login.blockSeconds },
    /** Ceiling: failed sign-ins for one account from anywhere, whichever identifier was typed (NIST's 100). */
    account: { points: login.maxFailsPerAccount, duration: HOUR, blockDuration: 0 },
    /** Failures of any kind from one address: sign-ins, look-ups, reset and onboarding requests. */
    ip: { points: login.maxFailsPerIp, duration: HOUR, blockDuration: HOUR },
    /** Codes one address asks to send to one destination: the lowest sending budget, so it bites first. */
    codeRequester: { points: mfa.sendsPerRequester, duration: HOUR, blockDuration: 0 },
    /** Codes sent to one destination (email or phone), and for one account. */
    codeDestination: { points: mfa.sendsPerDestination, duration: HOUR, blockDuration: 0 },
    codeAccount: { points: mfa.sendsPerAccount, duration: HOUR, blockDuration: 0 },
    /** Wrong second-factor answers for one account from one address (a password holder guessing
     * authenticator codes), then a ceiling per account from anywhere. */
    mfaFailuresUserIp: { points: mfa.maxFailsPerAccount, duration: HOUR, blockDuration: mfa.failBlockSeconds },
    mfaFailures: { points: mfa.maxFailsPerAccount, duration: HOUR, blockDuration: 0 },
    /** A forgotten-password request from one address for one name: the resend wait, the same for
     * real and unknown accounts. */
    resetRequests: { points: 1, duration: mfa.resendFirstWaitSeconds, blockDuration: 0 },
    /** Wrong forgotten-password codes: per account and address, then a loose ceiling per name typed. */
    resetFailuresUserIp: { points: mfa.maxFailsPerAccount, duration: HOUR, blockDuration: HOUR },
    resetFailuresAccount: { points: 100, duration: HOUR, blockDuration: 0 },
    /** Activation targets looked up per account: whether an address belongs to another account is not free. */
    targetLookups: { points: 30, duration: HOUR, blockDuration: 0 },
    /** Wrong activation codes for one card number from one address, then a loose ceiling per card
     * number (activation codes are short): known and unknown numbers alike. */
    activationIpCard: { points: 5, duration: HOUR, blockDuration: HOUR },
    activationCard: { points: 20, duration: HOUR, blockDuration: 0 },
    /** Passkey sign-in challenges one address asks for (each is a row for five minutes): far more
     * than sign-in screens behind one address open, far fewer than a flood writes. */
    passkeyChallenges: { points: 1000, duration: 300, blockDuration: 0 },
    /** Every ceiling's failures over a day, keyed `ceiling|key`: past NIST's 100, the top level. */
    ceilingDay: { points: 100, duration: 24 * HOUR, blockDuration: 0 },
  } satisfies Record<string, Omit<LimiterSpec, 'keyPrefix'>>;
}

export type LimiterName = keyof ReturnType<typeof specs>;
export type Limiters = Record<LimiterName, RateLimiterAbstract>;

export async function createLimiters(
  config: Config,
  store: { database: DatabaseHandle; redis: Redis | null },
): Promise<Limiters> {
  const limiters: Partial<Limiters> = {};
  // One after another: each PostgreSQL store creates the shared table if missing, and two
  // `create table if not exists` at once can collide.
  for (const [name, spec] of Object.entries(specs(config))) {
    limiters[name as LimiterName] = await createLimiter({ keyPrefix: name, ...spec }, store);
  }
  return limiters as Limiters;
}
