// The user's devices and sessions (spec §2 /security "devices and sessions, global logout", §3
// "Session/device"): the list, trust withdrawn (a trusted device skips the second factor at sign-in
// until its trust expires), and signing out one device, every other one, or everywhere.
//
// Signing out is protective: it only takes access away, so it asks for no recent second factor (a
// person who fears a stolen session must be able to end it at once, without the code that may be
// on the lost phone). Withdrawing trust is a security change of its own and asks for one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DeviceList, NotMeRequest } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { localeOfRequest } from '../http/locale.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { authCookieOptions } from '../sessions/cookie.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';
import { hashToken } from '../sessions/tokens.ts';
import { redeemTicketHash } from '../sessions/tickets.ts';
import { NOT_ME_TICKET } from './alerts.ts';
import { listDevices, signOutDevice, signOutSessionById, signOutSessions, untrustDevice } from './queries.ts';

const idParam = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' } },
  required: ['id'],
  additionalProperties: false,
};

export async function deviceRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);
  /** The caller's event of a sign-out, when it ended sessions (asking again ends none, records nothing).
   * Recorded before the applications' sessions end: the partners that held them hear of it
   * (server/oidc/securityEvents.ts). */
  const recordSignOut = async (
    request: FastifyRequest,
    type: 'device_logged_out' | 'logout_others' | 'logout_everywhere',
    revoked: string[],
    detail: Record<string, unknown> = {},
  ) => {
    if (revoked.length === 0) return;
    await recordEvent(ctx.db, {
      type,
      userId: request.session!.userId,
      ip: request.ip,
      deviceKey: request.deviceKey,
      detail: { ...detail, sessions: revoked.length },
    });
  };

  app.get(
    '/devices',
    {
      schema: {
        tags: ['devices'],
        summary: "The signed-in user's devices: browser, system, country, sessions, services, trust",
        response: responses({ 200: DeviceList }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      // Sign-ins whose sighting is still to be written are written first.
      await ctx.signInRecords.settle(request.session!.userId);
      reply.header('cache-control', 'no-store');
      return {
        data: await listDevices(ctx.db, request.session!.userId, request.session!.deviceKey, localeOfRequest(request)),
      };
    },
  );

  // Withdrawing trust is a security change: it needs a recent second-factor check.
  app.delete<{ Params: { id: string } }>(
    '/devices/:id/trust',
    {
      schema: {
        tags: ['devices'],
        summary: 'Stop trusting a device: it asks for the second factor again',
        params: idParam,
        response: responses({ 204: null }, [400, 401, 403, 404, 503]),
      },
      preHandler: [signedIn, requireRecentMfa(ctx.config)],
    },
    async (request, reply) => {
      if (!(await untrustDevice(ctx.db, request.session!.userId, request.params.id))) throw new ApiError('not_found');
      await recordEvent(ctx.db, {
        type: 'device_trust_revoked',
        userId: request.session!.userId,
        ip: request.ip,
        deviceKey: request.deviceKey,
        detail: { device: request.params.id },
      });
      return reply.code(204).send();
    },
  );

  // One device signed out: all its live sessions at once, and the applications they signed in to.
  // Asking again is no error (the device is already out); only the call that revoked records it.
  app.delete<{ Params: { id: string } }>(
    '/devices/:id/sessions',
    {
      schema: {
        tags: ['devices'],
        summary: 'Sign a device out: every live session opened on it is revoked',
        params: idParam,
        response: responses({ 204: null }, [400, 401, 403, 404, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      const session = request.session!;
      const revoked = await signOutDevice(ctx.db, session.userId, request.params.id);
      if (revoked === null) throw new ApiError('not_found');
      await recordSignOut(request, 'device_logged_out', revoked, { device: request.params.id });
      if (revoked.length > 0) await ctx.sessionsEnded({ sessionIds: revoked });
      return reply.code(204).send();
    },
  );

  // Every session of the account but the caller's.
  app.delete(
    '/sessions/others',
    {
      schema: {
        tags: ['devices'],
        summary: 'Sign out everywhere else: every session of the account but this one is revoked',
        response: responses({ 204: null }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      const session = request.session!;
      const revoked = await signOutSessions(ctx.db, session.userId, session.sessionId);
      await recordSignOut(request, 'logout_others', revoked);
      if (revoked.length > 0) await ctx.sessionsEnded({ sessionIds: revoked });
      return reply.code(204).send();
    },
  );

  // Global logout: every session, this one included, and every application's hold on the account
  // (their provider sessions and refresh tokens); the cookie is cleared.
  app.delete(
    '/sessions',
    {
      schema: {
        tags: ['devices'],
        summary: "Sign out everywhere: every session, this one included, and the applications' refresh tokens",
        response: responses({ 204: null }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      const session = request.session!;
      const revoked = await signOutSessions(ctx.db, session.userId, null);
      await recordSignOut(request, 'logout_everywhere', revoked);
      await ctx.sessionsEnded({ accountId: session.userId, refreshTokensOf: session.userId });
      const { maxAge: _drop, ...options } = authCookieOptions(ctx.config, request.host);
      reply.clearCookie(ctx.cookieName, options);
      return reply.code(204).send();
    },
  );

  // The new-device mail's "this wasn't me" (./alerts.ts): its link opens a page of the app
  // (NOT_ME_PATH, the ticket in the hash, so that it reaches no server log and no Referer), which
  // posts the ticket here, then shows the choice of a new password. The sign-in the mail told of
  // ends. A ticket already used or expired changes nothing (its session was ended the first time,
  // or has lapsed): a new password is what is needed either way, so the answer is the same.
  // Nothing signed in is asked: whoever holds the mail's link may end the sign-in it tells of.
  app.post<{ Body: NotMeRequest }>(
    '/devices/not-me',
    {
      schema: {
        tags: ['devices'],
        summary:
          "A sign-in from a new device was not the account's owner (the ticket of its mail's link): it is signed out, and so is this browser, to choose a new password",
        body: jsonSchema(NotMeRequest),
        response: responses({ 204: null }, [400, 503]),
      },
    },
    async (request, reply) => {
      const detail = await redeemTicketHash(ctx.db, hashToken(request.body.ticket), NOT_ME_TICKET);
      if (detail && typeof detail.session === 'string' && typeof detail.user === 'string') {
        const revoked = await signOutSessionById(ctx.db, detail.user, detail.session);
        if (revoked) await ctx.sessionsEnded({ sessionIds: [detail.session] });
        await recordEvent(ctx.db, {
          type: 'new_device_rejected',
          userId: detail.user,
          ip: request.ip,
          deviceKey: request.deviceKey,
          detail: { session: detail.session, ended: revoked },
        });
      }
      // This browser, signed in or not, goes on to the forgotten-password screen (a signed-in one would
      // be sent home): its cookie goes; the new password ends every session anyway.
      const { maxAge: _drop, ...options } = authCookieOptions(ctx.config, request.host);
      reply.clearCookie(ctx.cookieName, options);
      return reply.code(204).send();
    },
  );
}
