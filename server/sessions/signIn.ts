// Completing a sign-in, after the password alone or after the second factor: a session is opened
// and its cookie set. The sign-in's event and device sighting are written after the answer, from
// the session row (records.ts); a device trusted now is written before it, as the trust decides
// the next sign-in.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { publicOriginOf } from '../http/origin.ts';
import { authCookieOptions } from './cookie.ts';
import { touchDevice } from './devices.ts';
import { setupMfaOf, type SetupMfaFacts } from './setupMfa.ts';
import { createSession } from './store.ts';

export async function completeSignIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  input: {
    userId: string;
    clientId: string | null;
    viaMfa: boolean;
    /** How the second factor was given, where OIDC's amr names it (a passkey's 'hwk' or 'swk'). */
    mfaAmr?: string;
    trustDevice?: boolean;
    /** What decides a second factor's set-up, when the caller read it already. */
    enrolment?: SetupMfaFacts;
    /** The first factor was a Microsoft sign-in at this tenant, not a password: the event says so. */
    microsoftTenant?: string;
  },
) {
  const userAgent = request.headers['user-agent']?.slice(0, 512) ?? null;
  let deviceId: string | null = null;
  if (input.trustDevice) {
    deviceId = await touchDevice(ctx.db, input.userId, request.deviceKey, userAgent);
    const until = nowIso(Date.now() + ctx.config.mfa.trustedDeviceDays * 24 * 3600 * 1000);
    await ctx.db.updateTable('devices').set({ trusted_until: until }).where('id', '=', deviceId).execute();
  }
  // A user who must have a second factor and has none gets a session that can only set one up.
  const enrolment = input.viaMfa ? 'none' : await setupMfaOf(ctx.db, input.userId, input.clientId, input.enrolment);
  const { token, expiresIn } = await createSession(ctx.db, {
    userId: input.userId,
    deviceId,
    clientId: input.clientId,
    ip: request.ip,
    ttlDays: ctx.config.sessionTtlDays,
    mfaAt: input.viaMfa ? nowIso() : null,
    mfaAmr: input.viaMfa ? (input.mfaAmr ?? null) : null,
    scope: enrolment === 'required' ? 'enrolment' : null,
    deviceKey: request.deviceKey,
    userAgent,
    // Where it was made: a mail about a new device links back to this variant's configured origin
    // (never to the Host the request named: server/http/origin.ts).
    signInDetail: {
      mfa: input.viaMfa,
      origin: publicOriginOf(ctx.config, request).origin,
      ...(input.microsoftTenant ? { provider: 'microsoft', tenant: input.microsoftTenant } : {}),
    },
  });
  ctx.signInRecords.kick();
  if (input.trustDevice)
    await recordEvent(ctx.db, {
      type: 'device_trusted',
      userId: input.userId,
      ip: request.ip,
      deviceKey: request.deviceKey,
    });
  reply.setCookie(ctx.cookieName, token, authCookieOptions(ctx.config, request.host));
  return {
    access_token: token,
    token_type: 'Bearer' as const,
    expires_in: expiresIn,
    ...(enrolment !== 'none' ? { mfa_enrolment: enrolment } : {}),
  };
}
