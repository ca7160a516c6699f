// ALTCHA, self-hosted: the server hands out signed proof-of-work challenges (PBKDF2/SHA-256 in
// altcha-lib's deterministic mode, so that checking a solution costs one HMAC) and checks the
// solutions the forms send back. A solution counts once: its challenge's signature is recorded
// until the challenge expires, in the database every instance shares. The flows that want a robot
// check (sign-in, onboarding, forgotten password and username) share this one; it imports no flow.
import { createHmac } from 'node:crypto';
import { createChallenge, randomInt, verifySolution, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { ApiError } from '../http/errors.ts';

const ALGORITHM = 'PBKDF2/SHA-256';

/** The two HMAC keys ALTCHA needs, derived from the server's key. */
function keys(secretKey: string) {
  const derive = (purpose: string) => createHmac('sha256', secretKey).update(`altcha:${purpose}`).digest('base64url');
  return { hmacSignatureSecret: derive('signature'), hmacKeySignatureSecret: derive('key-signature') };
}

export async function newCaptchaChallenge(ctx: AppContext): Promise<Challenge> {
  const { cost, maxCounter, ttlSeconds } = ctx.config.captcha;
  return createChallenge({
    algorithm: ALGORITHM,
    cost,
    // The solver counts up from 0 to this number: between a fifth of the maximum and the maximum.
    counter: randomInt(Math.max(1, Math.floor(maxCounter / 5)), maxCounter),
    deriveKey,
    expiresAt: Math.floor(Date.now() / 1000) + ttlSeconds,
    ...keys(ctx.config.secretKey),
  });
}

/** What the browser sends: base64 of JSON { challenge, solution } (ALTCHA's v2 payload). */
const Payload = v.object({
  challenge: v.object({
    parameters: v.object({
      algorithm: v.literal(ALGORITHM), nonce: v.string(), salt: v.string(), cost: v.number(), keyLength: v.number(),
      keyPrefix: v.string(), keySignature: v.optional(v.string()), expiresAt: v.optional(v.number()),
      data: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()]))),
    }),
    signature: v.string(),
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

/** Refuses a request without a fresh, right and unused solution (when the CAPTCHA is on). */
export async function assertCaptcha(ctx: AppContext, payload: string | undefined): Promise<void> {
  if (!ctx.config.captcha.enabled) return;
  if (!payload) throw new ApiError('captcha_required');
  const decoded = decode(payload);
  if (!decoded) throw new ApiError('captcha_invalid');
  const result = await verifySolution({ challenge: decoded.challenge, solution: decoded.solution, deriveKey, ...keys(ctx.config.secretKey) })
    .catch(() => ({ verified: false }));
  if (!result.verified) throw new ApiError('captcha_invalid');
  // Spent once: the insert of its signature succeeds for exactly one request.
  const now = nowIso();
  await ctx.db.deleteFrom('captcha_spent').where('expires_at', '<', now).execute();
  const expiresAt = nowIso((decoded.challenge.parameters.expiresAt ?? Date.now() / 1000 + ctx.config.captcha.ttlSeconds) * 1000);
  const spent = await ctx.db.insertInto('captcha_spent').values({ id: decoded.challenge.signature, expires_at: expiresAt })
    .onConflict((c) => c.column('id').doNothing()).executeTakeFirst();
  if (Number(spent.numInsertedOrUpdatedRows ?? 0) === 0) throw new ApiError('captcha_invalid');
}
