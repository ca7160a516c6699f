// The merge's calls (spec §7 POST /fuzzion and POST /mfa/fuzzion, and the offer, the password proof
// and the finish around them). Each is sensitive, like adding the address that found the duplicate:
// a recent second factor, or the password typed again where the account has none.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GenericSchema, InferOutput } from 'valibot';
import {
  FuzzionAnswer,
  FuzzionCodeRequest,
  FuzzionFinishRequest,
  FuzzionMfaRequest,
  FuzzionOffer,
  FuzzionOfferRequest,
  FuzzionPasswordRequest,
  FuzzionSendAnswer,
} from '../../contract/fuzzion.ts';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { languageOf } from '../identity/accounts.ts';
import { cancelOpenOffer } from '../identity/duplicates.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';
import { describeOffer, finish, proveByCode, proveByPassword, startMethod, type Caller } from './fuzzion.ts';

export async function fuzzionRoutes(app: FastifyInstance, ctx: AppContext) {
  const sensitive = [requireSession(ctx.db, ctx.cookieName), requireRecentMfa(ctx.config)];
  const callerOf = async (request: FastifyRequest): Promise<Caller> => ({
    userId: request.session!.userId,
    language: await languageOf(ctx.db, request.session!.userId),
    deviceKey: request.deviceKey,
    ip: request.ip,
  });
  const errors = [400, 401, 403, 404, 409, 410, 422, 429, 503];
  /** A call of the merge: a body as `bodySchema` says, handed with the caller to its step. */
  const call = <Body extends GenericSchema>(
    url: string,
    summary: string,
    bodySchema: Body,
    answer: GenericSchema,
    step: (caller: Caller, body: InferOutput<Body>) => Promise<unknown>,
  ) =>
    app.post<{ Body: InferOutput<Body> }>(
      url,
      {
        schema: {
          tags: ['merge'],
          summary,
          body: jsonSchema(bodySchema),
          response: responses({ 200: answer }, errors),
        },
        preHandler: sensitive,
      },
      async (request) => step(await callerOf(request), request.body),
    );

  call(
    '/fuzzion/offer',
    "The merge offer (after the code sent to the address or number came back): what is proven, what the other account's sign-in still asks, whether declining can take it off the other account",
    FuzzionOfferRequest,
    FuzzionOffer,
    (caller, body) => describeOffer(ctx, caller, body.payload),
  );
  call(
    '/mfa/fuzzion',
    "Start one of the other account's second factors (a code goes to that method's own destination)",
    FuzzionMfaRequest,
    FuzzionSendAnswer,
    (caller, body) => startMethod(ctx, caller, body),
  );
  call(
    '/fuzzion',
    'Prove the other account by the answer to one of its second factors: more proofs are asked, or the merge (or the decline) is done',
    FuzzionCodeRequest,
    FuzzionAnswer,
    (caller, body) => proveByCode(ctx, caller, body),
  );
  call(
    '/fuzzion/password',
    'Prove the other account by its password (counted against its sign-in limits)',
    FuzzionPasswordRequest,
    FuzzionAnswer,
    (caller, body) => proveByPassword(ctx, caller, body),
  );
  // "Use another address": the session leaves its open merge. Nothing is proven or changed by it, so
  // the session alone is enough (no fresh second factor), and it answers alike with nothing open.
  app.post(
    '/fuzzion/cancel',
    {
      schema: {
        tags: ['merge'],
        summary:
          "Cancel this session's open merge offer: it can no longer be taken, and the session is out of the merge",
        response: responses({ 204: null }, [401, 503]),
      },
      preHandler: requireSession(ctx.db, ctx.cookieName),
    },
    async (request, reply) => {
      await cancelOpenOffer(ctx, request.session!.sessionId);
      return reply.code(204).send();
    },
  );
  call(
    '/fuzzion/finish',
    'Merge or decline once the proofs are enough',
    FuzzionFinishRequest,
    FuzzionAnswer,
    (caller, body) => finish(ctx, caller, body),
  );
}
