// Sign-in with a passkey alone: a passkey that verified its user (fingerprint, face, PIN) is both
// factors at once, so no password and no further code. The browser asks for a challenge first (no
// one is known yet): it is held by an HttpOnly, SameSite=Strict challenge cookie, lives 5 minutes,
// and the answer spends it by a conditional delete whose row count decides.
// - Throttles: the requester's address is counted before the assertion, the resolved account's
//   sign-in limits after it, as a wrong password counts.
// - An unknown credential answers as a wrong signature does (same status, after the same work: a
//   verification against a dummy key), with its own code, `passkey_unknown`, so the browser can tell
//   the password manager (signalUnknownCredential). Credential ids are random and tied to no
//   identifier: the code tells no account apart.
import { generateKeyPairSync } from 'node:crypto';
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PasskeyCredential, PasskeyOptions } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { hashCode, sameHash } from '../methods/codes.ts';
import { PASSKEY_TTL_SECONDS, checkAssertion, relyingParty, userHandle, type HeldPasskey } from '../methods/passkey.ts';
import { forget, spend, standing } from '../ratelimit/index.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { hashToken, newToken } from '../sessions/tokens.ts';

/** The challenge cookie: sent only to the passkey calls, only by this site's own pages. */
export const PASSKEY_COOKIE = 'tessera_passkey';
const COOKIE_PATH = '/api/passkey';

/** A key nobody holds: an unknown credential's assertion is checked against it, so that it costs
 * the work a known one's does, and never holds. */
const DUMMY: HeldPasskey = (() => {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const cose = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(jwk.x!, 'base64url')],
    [-3, Buffer.from(jwk.y!, 'base64url')],
  ]);
  return {
    credential_id: '',
    public_key: Buffer.from(isoCBOR.encode(cose)).toString('base64url'),
    counter: 0,
    transports: null,
    synced: 0,
    userId: '',
    methodId: 0,
  };
})();

/** POST /passkey/options: a sign-in challenge for any of this site's passkeys (the browser shows
 * the person's own), its cookie set on the reply. */
export async function passkeySignInOptions(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const blocked = (await standing(ctx.limiters.ip, request.ip)).wait;
  if (blocked > 0) throw ApiError.tooMany(blocked);
  // Each challenge is a row until it expires: one address's share of them is bounded.
  const flood = await spend(ctx.limiters.passkeyChallenges, request.ip);
  if (flood > 0) throw ApiError.tooMany(flood);
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx.config).id,
    userVerification: 'required',
    timeout: PASSKEY_TTL_SECONDS * 1000,
  });
  const cookie = newToken();
  const now = Date.now();
  // Expired challenges go as new ones come.
  await ctx.db.deleteFrom('passkey_sign_ins').where('expires_at', '<', nowIso(now)).execute();
  await ctx.db
    .insertInto('passkey_sign_ins')
    .values({
      cookie_hash: hashToken(cookie),
      challenge_hash: hashCode(ctx.config.secretKey, 'passkey-sign-in', options.challenge),
      expires_at: nowIso(now + PASSKEY_TTL_SECONDS * 1000),
    })
    .execute();
  reply.setCookie(PASSKEY_COOKIE, cookie, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.config.env === 'production',
    maxAge: PASSKEY_TTL_SECONDS,
  });
  return options as PasskeyOptions;
}

/** The passkey of a credential id, with its account; null for an unknown one or a closed account. */
async function heldPasskey(
  ctx: AppContext,
  credentialId: string,
): Promise<(HeldPasskey & { ssoOnly: boolean }) | null> {
  const row = await ctx.db
    .selectFrom('passkeys')
    .innerJoin('mfa_methods', 'mfa_methods.id', 'passkeys.method_id')
    .innerJoin('users', 'users.id', 'mfa_methods.user_id')
    .select([
      'passkeys.credential_id',
      'passkeys.public_key',
      'passkeys.counter',
      'passkeys.transports',
      'passkeys.synced',
      'passkeys.method_id',
      'mfa_methods.user_id',
      'users.sso_only',
    ])
    .where('passkeys.credential_id', '=', credentialId)
    .where('users.closed_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  return {
    credential_id: row.credential_id,
    public_key: row.public_key,
    counter: row.counter,
    transports: row.transports,
    synced: Number(row.synced),
    userId: row.user_id,
    methodId: Number(row.method_id),
    ssoOnly: Number(row.sso_only) === 1,
  };
}

/** POST /passkey/sign-in: the assertion, with the challenge cookie; a session on success. */
export async function signInWithPasskey(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { credential: PasskeyCredential; client_id?: string | undefined; isTrustedDevice?: boolean | undefined },
) {
  const { limiters } = ctx;
  const ip = request.ip;
  // The requester first: a flood of assertions from one address stops before any is checked.
  const blocked = (await standing(limiters.ip, ip)).wait;
  if (blocked > 0) throw ApiError.tooMany(blocked);

  // The challenge is spent whatever follows: one answer per challenge, decided by the row count.
  const cookie = request.cookies[PASSKEY_COOKIE];
  reply.clearCookie(PASSKEY_COOKIE, { path: COOKIE_PATH });
  const spent = cookie
    ? await ctx.db
        .deleteFrom('passkey_sign_ins')
        .where('cookie_hash', '=', hashToken(cookie))
        .where('expires_at', '>', nowIso())
        .returning('challenge_hash')
        .executeTakeFirst()
    : undefined;
  if (!spent) throw new ApiError('challenge_closed');

  const held = await heldPasskey(ctx, input.credential.id);
  const expectedChallenge = (challenge: string) =>
    sameHash(spent.challenge_hash, hashCode(ctx.config.secretKey, 'passkey-sign-in', challenge));
  // An unknown credential is checked against the dummy key: the same work, and never right.
  const verdict = await checkAssertion(ctx, held ?? DUMMY, input.credential, { expectedChallenge, userVerified: true });
  const handle = input.credential.response.userHandle;
  const sameUser =
    held !== null &&
    (handle === undefined ||
      handle === Buffer.from(userHandle(ctx.config.secretKey, held.userId)).toString('base64url'));

  const userIpKey = held ? `user:${held.userId}|${ip}` : null;
  const refuse = async (code: 'passkey_refused' | 'passkey_unknown'): Promise<never> => {
    const waits = await Promise.all([
      spend(limiters.ip, ip),
      ...(userIpKey ? [spend(limiters.userIp, userIpKey)] : []),
    ]);
    await recordEvent(ctx.db, {
      type: 'login_failed',
      userId: held?.userId ?? null,
      ip,
      deviceKey: request.deviceKey,
      detail: { via: 'passkey' },
    });
    const wait = Math.max(...waits);
    if (wait > 0) throw ApiError.tooMany(wait);
    throw new ApiError(code);
  };
  if (!held) return refuse('passkey_unknown');
  if (!verdict.right || !sameUser) return refuse('passkey_refused');
  // The account's own sign-in limits: a passkey is no way around them.
  const accountWait = (await standing(limiters.userIp, userIpKey!)).wait;
  if (accountWait > 0) throw ApiError.tooMany(accountWait);
  if (held.ssoOnly) throw new ApiError('sso_required');
  if (verdict.spend && !(await ctx.db.transaction().execute((trx) => verdict.spend!(trx)))) {
    return refuse('passkey_refused');
  }
  await forget(limiters.userIp, userIpKey!);
  await recordEvent(ctx.db, {
    type: 'passkey_used',
    userId: held.userId,
    ip,
    deviceKey: request.deviceKey,
    detail: { id: held.methodId, purpose: 'sign_in' },
  });
  return completeSignIn(ctx, request, reply, {
    userId: held.userId,
    clientId: input.client_id ?? null,
    viaMfa: true,
    // RFC 8176: the key, the user it verified, and so more than one factor; no password.
    mfaAmr: `${verdict.amr} user`,
    trustDevice: input.isTrustedDevice === true,
  });
}

/** POST /passkey/offer/later: "not now" to the passkey offered after a password sign-in. */
export async function declinePasskeyOffer(ctx: AppContext, userId: string): Promise<void> {
  await ctx.db.updateTable('users').set({ passkey_offer_later_at: nowIso() }).where('id', '=', userId).execute();
}
