// Microsoft sign-in (docs/architecture.md "Microsoft sign-in"): the browser's start and callback
// (outside /api: they are navigations), and the API around them: what a link ticket names, the
// second factors of a sign-in waiting for one, the link itself, and the Security screen's list and
// unlink. Without MICROSOFT_CLIENT_ID every one of them answers 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as oidcClient from 'openid-client';
import { messageOf, type ErrorCode } from '../../contract/errors.ts';
import {
  LinkAccountAnswer,
  LinkAccountRequest,
  SSO_CALLBACK_PATH,
  SSO_ERROR_PATH,
  SSO_LINK_PATH,
  SSO_LOGIN_PATH,
  SSO_MFA_PATH,
  SsoIdentityList,
  SsoMfaAnswer,
  SsoMfaRequest,
  SsoTicketAnswer,
  SsoTicketRequest,
} from '../../contract/sso.ts';
import { isDeviceId } from '../../contract/rules.ts';
import type { MicrosoftConfig } from '../config/index.ts';
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError, sendError } from '../http/errors.ts';
import { publicOriginOf } from '../http/origin.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { methodsOf, summary } from '../identity/second-factors.ts';
import {
  identitiesOf,
  isSsoOnly,
  linkedAccount,
  touchIdentity,
  unlinkIdentity,
  type SsoIdentity,
} from '../identity/sso.ts';
import { isTrustedDevice } from '../sessions/devices.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { hasRecentMfa, requireRecentMfa } from '../sessions/stepup.ts';
import { issueTicket, peekTicket } from '../sessions/tickets.ts';
import { newToken } from '../sessions/tokens.ts';
import { microsoftClient, SsoRefused, type MicrosoftClient } from './microsoft.ts';
import {
  issueLinkTicket,
  LINK_TICKET_SECONDS,
  peekLinkTicket,
  purgeExpiredSso,
  saveRequest,
  spendRequest,
} from './requests.ts';
import { linkByTicket } from './link.ts';

/** The cookie that binds a sign-in under way, and the link ticket it ends with, to one browser. */
const browserCookie = (ctx: AppContext) => (ctx.config.env === 'production' ? '__Host-tessera_sso' : 'tessera_sso');
const BROWSER_VALUE = /^[A-Za-z0-9_-]{43}$/;
/** A target after the sign-in: one of our own paths, never another site. */
const TARGET = /^\/(?![/\\])[\x21-\x7e]{0,511}$/;

const PURGE_EVERY_MS = 10 * 60 * 1000;

/** The relying party of a configuration, made once (its tenants' discovery documents are cached). */
const clients = new WeakMap<MicrosoftConfig, MicrosoftClient>();
function microsoftOf(ctx: AppContext): { settings: MicrosoftConfig; microsoft: MicrosoftClient } {
  const settings = ctx.config.microsoft;
  if (!settings) throw new ApiError('sso_unavailable');
  let microsoft = clients.get(settings);
  if (!microsoft) {
    microsoft = microsoftClient(settings);
    clients.set(settings, microsoft);
  }
  return { settings, microsoft };
}

const browserOf = (ctx: AppContext, request: FastifyRequest): string | null => {
  const value = request.cookies?.[browserCookie(ctx)];
  return value && BROWSER_VALUE.test(value) ? value : null;
};

/** The browser's navigations: the start and Microsoft's callback. */
export async function ssoBrowserRoutes(app: FastifyInstance, ctx: AppContext) {
  const settings = ctx.config.microsoft;
  const on = () => microsoftOf(ctx);
  const cookieName = browserCookie(ctx);
  // The configured origin of the request's variant, never its Host (server/http/origin.ts).
  const origin = (request: FastifyRequest) => publicOriginOf(ctx.config, request).origin;
  // As a URL writes it (no default port): openid-client sends the callback's address without its query.
  const callbackUri = (request: FastifyRequest) => new URL(SSO_CALLBACK_PATH, origin(request)).href;
  const failed = (reply: FastifyReply, code: ErrorCode) =>
    reply.code(303).header('location', `${SSO_ERROR_PATH}?sso_error=${code}`).send();

  if (settings) {
    const timer = setInterval(() => {
      purgeExpiredSso(ctx.db).catch((error: unknown) =>
        app.log.warn({ err: error }, 'expired Microsoft sign-ins could not be purged'),
      );
    }, PURGE_EVERY_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  }

  // ---- The browser's navigations ----------------------------------------------------------------

  app.get<{ Querystring: { tenant?: string; redirect?: string; device?: string } }>(
    SSO_LOGIN_PATH,
    {
      schema: {
        tags: ['sso'],
        summary: "Start a Microsoft sign-in: to the tenant's authorize endpoint (PKCE S256, state, nonce)",
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            tenant: { type: 'string', maxLength: 64 },
            redirect: { type: 'string', maxLength: 512 },
            device: { type: 'string', maxLength: 128 },
          },
        },
        response: responses({ 303: null }, [400, 404, 503]),
      },
    },
    async (request, reply) => {
      if (ctx.config.maintenance) return sendError(reply, 'maintenance');
      const { settings, microsoft } = on();
      const asked = request.query.tenant?.toLowerCase();
      const tenantId = asked ?? (settings.tenants.length === 1 ? settings.tenants[0]!.id : undefined);
      if (!tenantId) throw new ApiError('invalid_request', { field: 'tenant' });
      if (!microsoft.allowed(tenantId)) return failed(reply, 'sso_tenant_not_allowed');
      const browser = browserOf(ctx, request) ?? newToken();
      const state = newToken();
      const nonce = newToken();
      const codeVerifier = oidcClient.randomPKCECodeVerifier();
      const { redirect, device } = request.query;
      let location: string;
      try {
        location = await microsoft.authorizeUrl({
          tenantId,
          redirectUri: callbackUri(request),
          state,
          nonce,
          codeVerifier,
        });
      } catch (error) {
        request.log.warn({ err: error, tenant: tenantId }, 'Microsoft sign-in could not start');
        return failed(reply, 'sso_failed');
      }
      await saveRequest(ctx.db, browser, state, {
        tenantId,
        nonce,
        codeVerifier,
        deviceKey: isDeviceId(device) ? device : null,
        target: redirect && TARGET.test(redirect) ? redirect : null,
      });
      reply.setCookie(cookieName, browser, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.config.env === 'production',
        // Long enough for the sign-in and then the link a ticket leads to.
        maxAge: LINK_TICKET_SECONDS + 600,
      });
      return reply.code(303).header('location', location).send();
    },
  );

  app.get<{ Querystring: Record<string, string> }>(
    SSO_CALLBACK_PATH,
    {
      schema: {
        tags: ['sso'],
        summary:
          'Microsoft sends the browser back here: the code is exchanged and the ID token checked, then a sign-in, a second factor or the link screen',
        querystring: { type: 'object', additionalProperties: { type: 'string', maxLength: 4096 } },
        response: responses({ 303: null }, [400, 404, 503]),
      },
    },
    async (request, reply) => {
      if (ctx.config.maintenance) return sendError(reply, 'maintenance');
      const { microsoft } = on();
      const browser = browserOf(ctx, request);
      const state = request.query.state;
      // The state must be one this browser started and has not used: anything else (another browser's
      // callback, a replay, a forged state) signs nobody in.
      const pending = browser && state ? await spendRequest(ctx.db, browser, state) : null;
      if (!pending || !browser) {
        request.log.info('Microsoft callback refused: unknown, spent or foreign state');
        return failed(reply, 'sso_failed');
      }
      if (request.query.error) {
        request.log.info({ error: request.query.error }, 'Microsoft sign-in refused by the identity provider');
        return failed(reply, 'sso_failed');
      }
      const callbackUrl = new URL(callbackUri(request));
      callbackUrl.search = new URL(request.url, 'http://callback').search;
      let identity;
      try {
        identity = await microsoft.finish({
          tenantId: pending.tenantId,
          callbackUrl,
          state,
          nonce: pending.nonce,
          codeVerifier: pending.codeVerifier,
        });
      } catch (error) {
        if (!(error instanceof SsoRefused)) throw error;
        request.log.info({ err: error }, 'Microsoft sign-in refused');
        return failed(reply, error.reason === 'tenant' ? 'sso_tenant_not_allowed' : 'sso_failed');
      }

      const linked = await linkedAccount(ctx.db, {
        provider: 'microsoft',
        tenantId: identity.tenantId,
        objectId: identity.objectId,
      });
      if (!linked) {
        // Never an account by email: the identity is offered a link (or a card's activation).
        const ticket = await issueLinkTicket(ctx.db, browser, identity);
        return reply.code(303).header('location', `${SSO_LINK_PATH}?ticket=${ticket}`).send();
      }
      await touchIdentity(ctx.db, linked.identityId);
      const deviceKey = pending.deviceKey ?? '';
      request.deviceKey = deviceKey;
      const methods = await methodsOf(ctx.db, linked.userId);
      const needsSecondFactor =
        methods.length > 0 && !(deviceKey && (await isTrustedDevice(ctx.db, linked.userId, deviceKey)));
      if (needsSecondFactor) {
        // As a password sign-in: the payload goes on to the second factor (GET/POST /api/mfa/sudo).
        // Where it goes afterwards, the tab that started it keeps (src/app/actor.ts).
        // Its event is written with the session, once the second factor is passed (mfa/routes.ts).
        const payload = await issueTicket(ctx.db, linked.userId, 'mfa_login', ctx.config.mfa.codeTtlSeconds, {
          microsoft_tenant: identity.tenantId,
        });
        return reply
          .code(303)
          .header('location', `${SSO_MFA_PATH}#${new URLSearchParams({ mfa: payload })}`)
          .send();
      }
      await completeSignIn(ctx, request, reply, {
        userId: linked.userId,
        clientId: null,
        viaMfa: false,
        microsoftTenant: identity.tenantId,
      });
      return reply
        .code(303)
        .header('location', pending.target ?? '/')
        .send();
    },
  );
}

/** The API around the sign-in: /api/sso/microsoft/*, /api/user/link-account, /api/user/sso. */
export async function ssoApiRoutes(api: FastifyInstance, ctx: AppContext) {
  const settings = ctx.config.microsoft;
  const on = () => microsoftOf(ctx);
  // Off, every call is a 404, before anything else is asked of it.
  const available = async () => {
    on();
  };
  const signedIn = requireSession(ctx.db, ctx.cookieName);
  const recentMfa = requireRecentMfa(ctx.config);
  const tenantName = (id: string) => settings?.tenants.find((tenant) => tenant.id === id)?.name ?? null;
  const described = (row: SsoIdentity) => ({
    id: row.id,
    provider: row.provider,
    tenant: { id: row.tenant_id, name: tenantName(row.tenant_id) },
    email: row.email,
    name: row.name,
    linked_at: row.created_at,
    last_used_at: row.last_used_at,
  });

  api.post<{ Body: SsoTicketRequest }>(
    '/sso/microsoft/ticket',
    {
      schema: {
        tags: ['sso'],
        summary:
          'What a link ticket names (the Microsoft identity, for display), in the browser that signed in with it',
        body: jsonSchema(SsoTicketRequest),
        response: responses({ 200: SsoTicketAnswer }, [400, 404, 410, 503]),
      },
      onRequest: available,
    },
    async (request) => {
      const browser = browserOf(ctx, request);
      const ticket = browser ? await peekLinkTicket(ctx.db, browser, request.body.ticket) : null;
      if (!ticket) throw new ApiError('sso_ticket_invalid');
      return {
        provider: 'microsoft' as const,
        tenant: { id: ticket.tenantId, name: tenantName(ticket.tenantId) },
        email: ticket.email,
        name: ticket.name,
        expires_at: ticket.expiresAt,
      };
    },
  );

  api.post<{ Body: SsoMfaRequest }>(
    '/sso/microsoft/mfa',
    {
      schema: {
        tags: ['sso'],
        summary:
          "The second factors a Microsoft sign-in waiting for one can go on with (the password sign-in's 401 body, as a 200)",
        body: jsonSchema(SsoMfaRequest),
        response: responses({ 200: SsoMfaAnswer }, [400, 404, 410, 503]),
      },
      onRequest: available,
    },
    async (request) => {
      const userId = await peekTicket(ctx.db, request.body.payload, 'mfa_login');
      // Spent, expired or made up: the Microsoft sign-in starts again.
      if (!userId) throw new ApiError('sso_ticket_invalid');
      const methods = await methodsOf(ctx.db, userId);
      return {
        code: 'mfa_required' as const,
        message: messageOf('mfa_required'),
        mfa: { payload: request.body.payload, methods: methods.map(summary) },
      };
    },
  );

  api.post<{ Body: LinkAccountRequest }>(
    '/user/link-account',
    {
      schema: {
        tags: ['sso'],
        summary:
          'Link the Microsoft identity of a link ticket to the signed-in account (signed in recently, with its second factor where it has one)',
        body: jsonSchema(LinkAccountRequest),
        response: responses({ 200: LinkAccountAnswer }, [400, 401, 403, 404, 409, 410, 503]),
      },
      onRequest: available,
      preHandler: signedIn,
    },
    async (request) => {
      const { microsoft } = on();
      const session = request.session!;
      // The account proves itself as its sign-in would: with its second factor when it has one (at
      // the sign-in or a step-up since), else by a password sign-in or step-up, within the step-up window.
      const methods = (await methodsOf(ctx.db, session.userId)).filter((m) => m.method !== 'totpRecovery');
      const proven =
        hasRecentMfa(session.mfaAt, ctx.config) ||
        (methods.length === 0 && hasRecentMfa(session.signedInAt, ctx.config));
      if (!proven) throw new ApiError('step_up_required');
      const browser = browserOf(ctx, request);
      if (!browser) throw new ApiError('sso_ticket_invalid');
      const identity = await linkByTicket(ctx.db, {
        browser,
        ticket: request.body.ticket,
        userId: session.userId,
        tenantAllowed: (tenantId) => microsoft.allowed(tenantId),
      });
      await recordEvent(ctx.db, {
        type: 'sso_linked',
        userId: session.userId,
        ip: request.ip,
        deviceKey: request.deviceKey,
        detail: { provider: 'microsoft', tenant: identity.tenantId, identity: identity.id },
      });
      const [row] = (await identitiesOf(ctx.db, session.userId)).filter((candidate) => candidate.id === identity.id);
      return { data: described(row!) };
    },
  );

  api.get(
    '/user/sso',
    {
      schema: {
        tags: ['sso'],
        summary: 'The Microsoft identities linked to the signed-in account',
        response: responses({ 200: SsoIdentityList }, [400, 401, 403, 404, 503]),
      },
      onRequest: available,
      preHandler: signedIn,
    },
    async (request) => {
      const userId = request.session!.userId;
      const [rows, ssoOnly] = await Promise.all([identitiesOf(ctx.db, userId), isSsoOnly(ctx.db, userId)]);
      return { data: rows.map(described), sso_only: ssoOnly };
    },
  );

  api.delete<{ Params: { id: string } }>(
    '/user/sso/:id',
    {
      schema: {
        tags: ['sso'],
        summary: 'Unlink a Microsoft identity (needs a recent second factor; an sso_only account keeps its last one)',
        params: {
          type: 'object',
          properties: { id: { type: 'string', pattern: '^[0-9a-f-]{36}$' } },
          required: ['id'],
          additionalProperties: false,
        },
        response: responses({ 204: null }, [400, 401, 403, 404, 409, 503]),
      },
      onRequest: available,
      preHandler: [signedIn, recentMfa],
    },
    async (request, reply) => {
      const userId = request.session!.userId;
      const unlinked = await unlinkIdentity(ctx.db, userId, request.params.id);
      if (!unlinked) throw new ApiError('not_found');
      await recordEvent(ctx.db, {
        type: 'sso_unlinked',
        userId,
        ip: request.ip,
        deviceKey: request.deviceKey,
        detail: { provider: 'microsoft', tenant: unlinked.tenant_id, identity: request.params.id },
      });
      return reply.code(204).send();
    },
  );
}
