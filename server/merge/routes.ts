// The merge's calls (spec §7 POST /fuzzion and POST /mfa/fuzzion, and the offer, the password proof
// and the finish around them). Each is sensitive, like adding the address that found the duplicate:
// a recent second factor, or the password typed again where the account has none.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  FuzzionAnswer,
  FuzzionCodeRequest,
  FuzzionFinishRequest,
  FuzzionMfaRequest,
  FuzzionOffer,
  FuzzionOfferRequest,
  FuzzionPasswordRequest,
  FuzzionSendAnswer,
} from '../../contract/merge.ts';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { languageOf } from '../identity/accounts.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';
import { describeOffer, finish, proveByCode, proveByPassword, startMethod, type Caller } from './fuzzion.ts';

export async function mergeRoutes(app: FastifyInstance, ctx: AppContext) {
  const sensitive = [requireSession(ctx.db, ctx.cookieName), requireRecentMfa(ctx.config)];
  const callerOf = async (request: FastifyRequest): Promise<Caller> => ({
    userId: request.session!.userId,
    language: await languageOf(ctx.db, request.session!.userId),
    deviceKey: request.deviceKey,
    ip: request.ip,
  });
  const errors = [400, 401, 403, 404, 409, 410, 422, 429, 503];
  const tags = ['merge'];

  app.post<{ Body: FuzzionOfferRequest }>(
    '/fuzzion/offer',
    {
      schema: {
        tags,
        summary:
          "The merge offer (after the code sent to the address or number came back): what is proven, what the other account's sign-in still asks, whether declining can take it off the other account",
        body: jsonSchema(FuzzionOfferRequest),
        response: responses({ 200: FuzzionOffer }, errors),
      },
      preHandler: sensitive,
    },
    async (request) => describeOffer(ctx, await callerOf(request), request.body.payload),
  );

  app.post<{ Body: FuzzionMfaRequest }>(
    '/mfa/fuzzion',
    {
      schema: {
        tags,
        summary: "Start one of the other account's second factors (a code goes to that method's own destination)",
        body: jsonSchema(FuzzionMfaRequest),
        response: responses({ 200: FuzzionSendAnswer }, errors),
      },
      preHandler: sensitive,
    },
    async (request) => startMethod(ctx, await callerOf(request), request.body),
  );

  app.post<{ Body: FuzzionCodeRequest }>(
    '/fuzzion',
    {
      schema: {
        tags,
        summary:
          'Prove the other account by the answer to one of its second factors: more proofs are asked, or the merge (or the decline) is done',
        body: jsonSchema(FuzzionCodeRequest),
        response: responses({ 200: FuzzionAnswer }, errors),
      },
      preHandler: sensitive,
    },
    async (request) => proveByCode(ctx, await callerOf(request), request.body),
  );

  app.post<{ Body: FuzzionPasswordRequest }>(
    '/fuzzion/password',
    {
      schema: {
        tags,
        summary: 'Prove the other account by its password (counted against its sign-in limits)',
        body: jsonSchema(FuzzionPasswordRequest),
        response: responses({ 200: FuzzionAnswer }, errors),
      },
      preHandler: sensitive,
    },
    async (request) => proveByPassword(ctx, await callerOf(request), request.body),
  );

  app.post<{ Body: FuzzionFinishRequest }>(
    '/fuzzion/finish',
    {
      schema: {
        tags,
        summary: 'Merge or decline once the proofs are enough',
        body: jsonSchema(FuzzionFinishRequest),
        response: responses({ 200: FuzzionAnswer }, errors),
      },
      preHandler: sensitive,
    },
    async (request) => finish(ctx, await callerOf(request), request.body),
  );
}
