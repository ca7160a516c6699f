// The merge's calls (spec §7 POST /fuzzion, and the offer, the code's sending and the other proofs
// around it). Each is sensitive, like adding the address that found the duplicate: a recent second
// factor, or the password typed again where the account has none.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  FuzzionAnswer, FuzzionCardRequest, FuzzionCodeRequest, FuzzionOffer, FuzzionOfferRequest, FuzzionPasswordRequest, FuzzionSendAnswer, FuzzionSendRequest,
} from '../../contract/merge.ts';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { languageOf } from '../identity/accounts.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';
import { describeOffer, proveByCard, proveByCode, proveByPassword, sendCode, type Caller } from './fuzzion.ts';

export async function mergeRoutes(app: FastifyInstance, ctx: AppContext) {
  const sensitive = [requireSession(ctx.db, ctx.cookieName), requireRecentMfa(ctx.config)];
  const callerOf = async (request: FastifyRequest): Promise<Caller> => ({
    userId: request.session!.userId, language: await languageOf(ctx.db, request.session!.userId), deviceKey: request.deviceKey, ip: request.ip,
  });
  const errors = [400, 401, 403, 409, 410, 429, 503];
  const tags = ['merge'];

  app.post<{ Body: FuzzionOfferRequest }>('/fuzzion/offer', {
    schema: { tags, summary: 'The merge offer: the duplicated email or phone, the proofs it takes, whether declining can take it off the other account', body: jsonSchema(FuzzionOfferRequest), response: responses({ 200: FuzzionOffer }, errors) },
    preHandler: sensitive,
  }, async (request) => describeOffer(ctx, await callerOf(request), request.body.payload));

  app.post<{ Body: FuzzionSendRequest }>('/fuzzion/code', {
    schema: { tags, summary: 'Send a code to the duplicated email or phone', body: jsonSchema(FuzzionSendRequest), response: responses({ 200: FuzzionSendAnswer }, errors) },
    preHandler: sensitive,
  }, async (request) => sendCode(ctx, await callerOf(request), request.body.payload, request.body.channel));

  app.post<{ Body: FuzzionCodeRequest }>('/fuzzion', {
    schema: { tags, summary: 'Prove the other account by the code sent to the duplicated email or phone: more proofs are asked, or the merge (or the decline) is done', body: jsonSchema(FuzzionCodeRequest), response: responses({ 200: FuzzionAnswer }, errors) },
    preHandler: sensitive,
  }, async (request) => proveByCode(ctx, await callerOf(request), request.body));

  app.post<{ Body: FuzzionPasswordRequest }>('/fuzzion/password', {
    schema: { tags, summary: 'Prove the other account by its password (counted against its sign-in limits)', body: jsonSchema(FuzzionPasswordRequest), response: responses({ 200: FuzzionAnswer }, errors) },
    preHandler: sensitive,
  }, async (request) => proveByPassword(ctx, await callerOf(request), request.body));

  app.post<{ Body: FuzzionCardRequest }>('/fuzzion/card', {
    schema: { tags, summary: 'Prove the other account by the number of one of its cards', body: jsonSchema(FuzzionCardRequest), response: responses({ 200: FuzzionAnswer }, errors) },
    preHandler: sensitive,
  }, async (request) => proveByCard(ctx, await callerOf(request), request.body));
}
