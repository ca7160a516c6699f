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
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { findOidcClient, isFirstParty } from './clients.ts';
import { issueLoginTicket, LOGIN_TICKET_TTL_S, spendLoginTicket } from './loginTicketStore.ts';
import type { OidcProviders } from './provider.ts';

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
      const ticket = await issueLoginTicket(ctx.db, token.accountId!, client.client_id);
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
      const userId = await spendLoginTicket(ctx.db, request.body.ticket, request.body.client_id);
      if (!userId) throw new ApiError('invalid_login_ticket');
      return completeSignIn(ctx, request, reply, {
        userId,
        clientId: request.body.client_id,
        viaMfa: false,
      });
    },
  );
}
