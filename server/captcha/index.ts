// ALTCHA, self-hosted: the server hands out signed proof-of-work challenges (PBKDF2/SHA-256 in
// altcha-lib's deterministic mode, so that checking a solution costs one HMAC) and checks the
// solutions the forms send back. A solution counts once: its challenge's signature is recorded
// until the challenge expires, in the database every instance shares. The flows that want a robot
// check (sign-in, onboarding, forgotten password and username) share this one; it imports no flow.
//
// A challenge has a level (contract CAPTCHA_LEVELS), signed into its `data`: 0 is the forms' own,
// 1 and 2 are the harder ones an account-wide ceiling of failures asks for (./ceilings.ts). A level
// raises the PBKDF2 rounds of each attempt and keeps the number of attempts: the fixed cost of one
// WebCrypto call, which a browser pays and a native solver hardly does, then weighs less, so a
// harder level costs an attacker more nearly what it costs the person (docs/decisions/throttles.md).
import { createHmac } from 'node:crypto';
import { createChallenge, randomInt, verifySolution, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import * as v from 'valibot';
import { CAPTCHA_LEVELS, CaptchaChallenge, type CaptchaLevel } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { ApiError } from '../http/errors.ts';

const ALGORITHM = 'PBKDF2/SHA-256';

/** The two HMAC keys ALTCHA needs, derived from the server's key. */
function keys(secretKey: string) {
  const derive = (purpose: string) => createHmac('sha256', secretKey).update(`altcha:${purpose}`).digest('base64url');
  return { hmacSignatureSecret: derive('signature'), hmacKeySignatureSecret: derive('key-signature') };
}

/** PBKDF2 rounds per attempt at each level, as multiples of CAPTCHA_COST. With the defaults (100
 * rounds, 600 to 5000 attempts): about 0.5 s, 0.75 s and 4 s in a desktop browser; about 1 s, 2 s
 * and 10 s on a mid-range phone (docs/decisions/throttles.md). */
export const LEVEL_COST_FACTOR: Record<CaptchaLevel, number> = { 0: 1, 1: 8, 2: 70 };

export async function newCaptchaChallenge(ctx: AppContext, level: CaptchaLevel = 0): Promise<Challenge> {
  const { cost, maxCounter, ttlSeconds } = ctx.config.captcha;
  return createChallenge({
    algorithm: ALGORITHM,
    cost: cost * LEVEL_COST_FACTOR[level],
    data: { level },
    // The solver counts up from 0 to this number: between a fifth of the maximum and the maximum.
    counter: randomInt(Math.max(1, Math.floor(maxCounter / 5)), maxCounter),
    deriveKey,
    expiresAt: Math.floor(Date.now() / 1000) + ttlSeconds,
    ...keys(ctx.config.secretKey),
  });
}

/** What the browser sends: base64 of JSON { challenge, solution } (ALTCHA's v2 payload), the challenge
 * as handed out (contract CaptchaChallenge) but made with this algorithm. */
const Payload = v.object({
  challenge: v.object({
    ...CaptchaChallenge.entries,
    parameters: v.object({
      ...CaptchaChallenge.entries.parameters.entries,
      algorithm: v.literal(ALGORITHM),
      // Any data passes here: only the signature makes a level count (levelOf).
      data: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()]))),
    }),
  }),
  solution: v.object({ counter: v.number(), derivedKey: v.string(), time: v.optional(v.number()) }),
});

function decode(payload: string): v.InferOutput<typeof Payload> | null {
  try {
    const parsed = v.safeParse(Payload, JSON.parse(Buffer.from(payload, 'base64').toString('utf8')));
    return parsed.success ? parsed.output : null;
  } catch {
    return null;
  }
}

/** The level a challenge was made for: signed with it, so only the server could have said it. */
function levelOf(challenge: v.InferOutput<typeof Payload>['challenge']): CaptchaLevel {
  const level = challenge.parameters.data?.level;
  return (CAPTCHA_LEVELS as readonly unknown[]).includes(level) ? (level as CaptchaLevel) : 0;
}

/** Refuses a request without a fresh, right and unused solution (when the CAPTCHA is on) of a
 * challenge made for `level` or above. Past level 0 the refusal says which level to solve. */
export async function assertCaptcha(
  ctx: Pick<AppContext, 'config' | 'db'>,
  payload: string | undefined,
  level: CaptchaLevel = 0,
): Promise<void> {
  if (!ctx.config.captcha.enabled) return;
  const refuse = (code: 'captcha_required' | 'captcha_invalid') =>
    new ApiError(code, level > 0 ? { captcha: true, captcha_level: level } : {});
  if (!payload) throw refuse('captcha_required');
  const decoded = decode(payload);
  if (!decoded) throw refuse('captcha_invalid');
  const result = await verifySolution({
    challenge: decoded.challenge,
    solution: decoded.solution,
    deriveKey,
    ...keys(ctx.config.secretKey),
  }).catch(() => ({ verified: false }));
  if (!result.verified) throw refuse('captcha_invalid');
  // Right, but of an easier challenge than this request needs: a harder one is asked for, and this
  // solution is not spent (it still counts where its own level is enough).
  if (levelOf(decoded.challenge) < level) throw refuse('captcha_required');
  // Spent once: the insert of its signature succeeds for exactly one request.
  const now = nowIso();
  await ctx.db.deleteFrom('captcha_spent').where('expires_at', '<', now).execute();
  const expiresAt = nowIso(
    (decoded.challenge.parameters.expiresAt ?? Date.now() / 1000 + ctx.config.captcha.ttlSeconds) * 1000,
  );
  const spent = await ctx.db
    .insertInto('captcha_spent')
    .values({ id: decoded.challenge.signature, expires_at: expiresAt })
    .onConflict((c) => c.column('id').doNothing())
    .executeTakeFirst();
  if (Number(spent.numInsertedOrUpdatedRows ?? 0) === 0) throw new ApiError('captcha_invalid');
}
