// Password sign-in. An unknown account and a wrong password give the same answer after the same
// work (a dummy Argon2id verification). Failures are throttled per account+IP (short block) and per
// IP; per account across all IPs they reach a ceiling (NIST's 100) that never blocks: past it every
// sign-in to the account needs a harder proof of work (server/captcha/ceilings.ts), so a stranger
// cannot lock the owner out at all.
import type { Variant } from '../../contract/constants.ts';
import type { Db } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import type { PasswordHasher } from '../passwords/hashing.ts';
import { ceilingCounts, countFailure, levelOfStandings } from '../captcha/ceilings.ts';
import type { CaptchaLevel } from '../../contract/schemas.ts';
import { forget, spend, standings } from '../ratelimit/index.ts';
import type { Limiters } from '../ratelimit/limiters.ts';
import { issueTicket } from '../sessions/tickets.ts';
import { findByLoginName, type LoginCandidate } from '../identity/accounts.ts';
import { loginName } from '../identity/usernames.ts';
import { password } from '../methods/password.ts';

export type LoginOutcome =
  | { kind: 'success'; userId: string; secondFactor: LoginCandidate['secondFactor'] }
  | { kind: 'weak_password'; userId: string; payload: string };

export const WEAK_PASSWORD_TICKET_SECONDS = 900;

export async function authenticate(
  deps: {
    db: Db;
    hasher: PasswordHasher;
    limiters: Limiters;
    /** Whether the CAPTCHA is on; then a solution is checked once this account failed `afterFailures`
     * times from this address (0: never), and past the account's ceiling at the level it needs. */
    captcha: {
      enabled: boolean;
      afterFailures: number;
      assert(payload: string | undefined, level: CaptchaLevel): Promise<void>;
    };
  },
  input: {
    username: string;
    password: string;
    variant: Variant;
    ip: string;
    deviceKey: string;
    captcha?: string;
  },
): Promise<LoginOutcome> {
  const { db, hasher, limiters } = deps;
  const name = loginName(input.username, input.variant);
  // Known or not, the name is looked up first: the same work either way. A known account is counted
  // by its id, so failures by email and by phone add up (NIST counts per account).
  const candidate = name ? await findByLoginName(db, name.kind, name.value) : null;
  const accountKey = candidate
    ? `user:${candidate.userId}`
    : name
      ? `${name.kind}:${name.value}`
      : `raw:${input.username.trim().toLowerCase()}`;
  const userIpKey = `${accountKey}|${input.ip}`;

  // Every counter the attempt is judged by, read in one statement where the store allows: this
  // account from this address, this address, and (with the CAPTCHA on) the account's ceiling.
  const { enabled, afterFailures } = deps.captcha;
  const read = await standings([
    [limiters.userIp, userIpKey],
    [limiters.ip, input.ip],
    ...(enabled ? ceilingCounts(limiters, 'account', accountKey) : []),
  ]);
  const counts = read.slice(0, 2);
  const blocked = Math.max(...counts.map((c) => c.wait));
  if (blocked > 0) {
    throw ApiError.tooMany(blocked);
  }
  // After repeated failures from this address a robot check comes before any password check, and
  // past the account's ceiling a harder one from any address; unknown accounts alike.
  const needsCaptcha = (failures: number) => enabled && afterFailures > 0 && failures >= afterFailures;
  const level = enabled ? levelOfStandings(limiters, 'account', read.slice(2)) : 0;
  if (level > 0 || needsCaptcha(counts[0]!.failures)) {
    await deps.captcha.assert(input.captcha, level).catch((error: unknown) => {
      if (error instanceof ApiError) throw new ApiError(error.code, { ...error.extra, captcha: true });
      throw error;
    });
  }

  const { right: ok } = await password.verify(
    { hasher },
    { passwordHash: candidate?.passwordHash ?? null },
    input.password,
  );

  if (!ok || !candidate) {
    const [pairWait, ipWait, next] = await Promise.all([
      spend(limiters.userIp, userIpKey),
      spend(limiters.ip, input.ip),
      countFailure(limiters, 'account', accountKey),
    ]);
    await recordEvent(db, {
      type: 'login_failed',
      userId: candidate?.userId ?? null,
      ip: input.ip,
      deviceKey: input.deviceKey,
    });
    const wait = Math.max(pairWait, ipWait);
    if (wait > 0) throw ApiError.tooMany(wait);
    const nextLevel = enabled ? next : 0;
    // Said before the last try, not after it: the next wrong password here pauses sign-in from this
    // address. Unknown accounts are counted by the name typed, so they are warned alike.
    const lastTry = counts[0]!.failures + 1 >= limiters.userIp.points;
    throw new ApiError('invalid_credentials', {
      ...(nextLevel > 0 || needsCaptcha(counts[0]!.failures + 1) ? { captcha: true } : {}),
      ...(nextLevel > 0 ? { captcha_level: nextLevel } : {}),
      ...(lastTry ? { last_attempt: true } : {}),
    });
  }

  // The owner got in from here: forget this pair's failures (the account-wide count stays).
  if (counts[0]!.failures > 0) await forget(limiters.userIp, userIpKey);

  // An account operators keep to Microsoft sign-in: said only to whoever typed its right password,
  // so a stranger learns nothing a wrong password would not tell.
  if (candidate.ssoOnly) {
    await recordEvent(db, {
      type: 'login_failed',
      userId: candidate.userId,
      ip: input.ip,
      deviceKey: input.deviceKey,
      detail: { reason: 'sso_required' },
    });
    throw new ApiError('sso_required');
  }
  if (candidate.passwordStatus === 1 || candidate.passwordStatus === 2) {
    const payload = await issueTicket(db, candidate.userId, 'weak_password', WEAK_PASSWORD_TICKET_SECONDS);
    await recordEvent(db, {
      type: 'login_weak_password',
      userId: candidate.userId,
      ip: input.ip,
      deviceKey: input.deviceKey,
    });
    return { kind: 'weak_password', userId: candidate.userId, payload };
  }
  return { kind: 'success', userId: candidate.userId, secondFactor: candidate.secondFactor };
}
