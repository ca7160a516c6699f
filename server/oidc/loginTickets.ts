// Sign-in by URL hash (spec §4): a first-party platform sends a person to the portal already
// signed in. Its issuing side is a signed-in exchange, like RFC 8693's token exchange in spirit
// but with a one-time ticket rather than a token a browser could replay:
//  1. the platform (a first-party client) calls POST /api/login-tickets with the access token the
//     portal issued it for that person (`Authorization: Bearer …`);
//  2. it sends the browser to `https://<portal>/#ticket=…&client_id=…` (and `scope=partner` with
//     `partner_token=…` for a partner's sign-in); the hash never reaches a server log or a Referer;
//  3. the app strips the hash at once and spends the ticket with POST /api/token/ticket, which opens
//     a session as a sign-in does (the forced second factor's rule included; no second factor is
//     counted, so sensitive screens still step up).
// A ticket lives 60 seconds, is bound to its client, is stored as a digest, and is spent once: of
// parallel spends, the conditional update lets exactly one through.
import type { FastifyInstance } from 'fastify';
import { LoginTicketAnswer, LoginTicketRequest, TokenAnswer } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { hashToken, newToken } from '../sessions/tokens.ts';
import { guarded } from './adapter.ts';
import { findOidcClient, isFirstParty } from './clients.ts';
import type { OidcProviders } from './provider.ts';

export const LOGIN_TICKET_TTL_S = 60;

export async function loginTicketRoutes(app: FastifyInstance, ctx: AppContext, providers: OidcProviders) {
  app.post(
    '/login-tickets',
    {
      schema: {
        tags: ['sessions'],
        summary: 'A first-party platform asks for a one-time sign-in ticket for the person its access token is for',
        response: responses({ 201: LoginTicketAnswer }, [400, 401, 403, 503]),
      },
    },
    async (request, reply) => {
      const bearer = /^Bearer ([\w-]{16,512})$/.exec(request.headers.authorization ?? '')?.[1];
      if (!bearer) throw new ApiError('unauthorized');
      const provider = await providers.forRequest(request);
      const token = await provider.AccessToken.find(bearer);
      if (!token || token.isExpired || !token.accountId) throw new ApiError('unauthorized');
      const client = await findOidcClient(ctx.db, token.clientId!);
      if (!client || !isFirstParty(client)) throw new ApiError('forbidden');
      const ticket = newToken();
      const now = Date.now();
      await guarded(() =>
        ctx.db
          .insertInto('login_tickets')
          .values({
            ticket_hash: hashToken(ticket),
            user_id: token.accountId!,
            client_id: client.client_id,
            expires_at: nowIso(now + LOGIN_TICKET_TTL_S * 1000),
            used_at: null,
            created_at: nowIso(now),
          })
          .execute(),
      );
      return reply.code(201).send({ ticket, expires_in: LOGIN_TICKET_TTL_S });
    },
  );

  app.post<{ Body: LoginTicketRequest }>(
    '/token/ticket',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Sign in with a one-time ticket brought in the URL hash',
        body: jsonSchema(LoginTicketRequest),
        response: responses({ 200: TokenAnswer }, [400, 403, 503]),
      },
    },
    async (request, reply) => {
      const now = nowIso();
      const spent = await ctx.db
        .updateTable('login_tickets')
        .set({ used_at: now })
        .where('ticket_hash', '=', hashToken(request.body.ticket))
        .where('client_id', '=', request.body.client_id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('user_id')
        .executeTakeFirst();
      if (!spent) throw new ApiError('invalid_login_ticket');
      return completeSignIn(ctx, request, reply, {
        userId: spent.user_id,
        clientId: request.body.client_id,
        viaMfa: false,
      });
    },
  );
}
