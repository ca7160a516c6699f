// The account-wide ceilings (docs/decisions/throttles.md). Every rule that
// protects an account counts per address first, tightly: that address is refused for a while (its
// own limit). Counted from every address, an account, a card number or a name typed is never
// refused: past its ceiling each attempt on it needs a solved ALTCHA of a raised level, and past
// 100 failures in a day one of the top level. A stranger can make the owner solve a puzzle, not wait;
// a right answer with a solved puzzle always passes. One table says what each ceiling counts
// (server/ratelimit/limiters.ts); here is the one rule they share. docs/decisions/throttles.md
// gives the guessing rate this leaves.
import type { CaptchaLevel } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { count, standings, type Standing } from '../ratelimit/index.ts';
import type { Limiters } from '../ratelimit/limiters.ts';
import { carriedCaptcha } from './carried.ts';
import { assertCaptcha } from './index.ts';

/** The account-wide ceilings, by their limiter's name. */
export type Ceiling = 'account' | 'mfaFailures' | 'resetFailuresAccount' | 'activationCard';

function levelOf(limiters: Limiters, ceiling: Ceiling, window: number, day: number): CaptchaLevel {
  if (day >= limiters.ceilingDay.points) return 2;
  return window >= limiters[ceiling].points ? 1 : 0;
}

const dayKey = (ceiling: Ceiling, key: string) => `${ceiling}|${key}`;

/** The two counts a ceiling's level is read from, its window's and its day's: for `standings`,
 * alone or with others a request reads anyway. */
export function ceilingCounts(
  limiters: Limiters,
  ceiling: Ceiling,
  key: string,
): [[RateLimiterAbstract, string], [RateLimiterAbstract, string]] {
  return [
    [limiters[ceiling], key],
    [limiters.ceilingDay, dayKey(ceiling, key)],
  ];
}

/** The level the standings of `ceilingCounts` ask for. */
export function levelOfStandings(limiters: Limiters, ceiling: Ceiling, [window, day]: Standing[]): CaptchaLevel {
  return levelOf(limiters, ceiling, window!.failures, day!.failures);
}

/** The proof of work an attempt on this key needs now: 0 none beyond the form's own, 1 raised (past
 * the ceiling's points in its window), 2 the top (past 100 failures in a day). */
export async function proofLevel(limiters: Limiters, ceiling: Ceiling, key: string): Promise<CaptchaLevel> {
  return levelOfStandings(limiters, ceiling, await standings(ceilingCounts(limiters, ceiling, key)));
}

/** Counts a failure against the ceiling, never refusing; says the level the next attempt needs. */
export async function countFailure(limiters: Limiters, ceiling: Ceiling, key: string): Promise<CaptchaLevel> {
  const [window, day] = await Promise.all([
    count(limiters[ceiling], key),
    count(limiters.ceilingDay, dayKey(ceiling, key)),
  ]);
  return levelOf(limiters, ceiling, window, day);
}

/** Lets an attempt on the key through its ceiling: past it, only with a solved challenge of the
 * level it needs, from `payload` (a form's field) or the request's X-Captcha header. The refusal,
 * `captcha_required` or `captcha_invalid`, carries `captcha: true` and `captcha_level`. */
export async function passCeiling(
  ctx: Pick<AppContext, 'config' | 'db' | 'limiters'>,
  ceiling: Ceiling,
  key: string,
  payload?: string,
): Promise<CaptchaLevel> {
  const level = await proofLevel(ctx.limiters, ceiling, key);
  if (level > 0) await assertCaptcha(ctx, payload ?? carriedCaptcha(), level);
  return level;
}
