// The passkey sign-in's calls: POST /passkey/options (a challenge, with its cookie), POST
// /passkey/sign-in (the assertion), POST /passkey/offer/later (the offer's "not now"), GET
// /passkey/account (what the password manager is told of the account); and
// /.well-known/webauthn, where the Belgian origin names the Luxembourg one as related, so that one
// passkey serves both variants.
import type { FastifyInstance } from 'fastify';
import { PasskeyAccount, PasskeyOptions, PasskeySignInRequest, TokenAnswer } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { publicOriginOf } from '../http/origin.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { passkeyAccountOf } from '../methods/passkey.ts';
import { declinePasskeyOffer, passkeySignInOptions, signInWithPasskey } from './passkey.ts';

export async function passkeyRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post(
    '/passkey/options',
    {
      schema: {
        tags: ['login'],
        summary: 'Start a passkey sign-in: the options for the browser, and the challenge cookie',
        response: responses({ 200: PasskeyOptions }, [400, 429, 503]),
      },
    },
    async (request, reply) => passkeySignInOptions(ctx, request, reply),
  );

  app.post<{ Body: PasskeySignInRequest }>(
    '/passkey/sign-in',
    {
      schema: {
        tags: ['login'],
        summary: 'Sign in with a passkey that verified its user: both factors at once',
        body: jsonSchema(PasskeySignInRequest),
        response: responses({ 200: TokenAnswer }, [400, 403, 410, 422, 429, 503]),
      },
    },
    async (request, reply) => signInWithPasskey(ctx, request, reply, request.body),
  );

  app.get(
    '/passkey/account',
    {
      schema: {
        tags: ['login'],
        summary: 'What the browser tells the password manager of the account: its passkeys still taken, and its names',
        response: responses({ 200: PasskeyAccount }, [401, 503]),
      },
      preHandler: requireSession(ctx.db, ctx.cookieName),
    },
    async (request) => passkeyAccountOf(ctx, request.session!.userId),
  );

  app.post(
    '/passkey/offer/later',
    {
      schema: {
        tags: ['login'],
        summary: '"Not now" to the passkey offered after a password sign-in: not offered again',
        response: responses({ 204: null }, [400, 401, 503]),
      },
      preHandler: requireSession(ctx.db, ctx.cookieName),
    },
    async (request, reply) => {
      await declinePasskeyOffer(ctx, request.session!.userId);
      return reply.code(204).send();
    },
  );
}

/** GET /.well-known/webauthn (WebAuthn's related origins): at the Belgian origin, whose host is the
 * relying party, the other configured origins that may use its passkeys. */
export async function webauthnWellKnown(app: FastifyInstance, ctx: AppContext) {
  app.get('/.well-known/webauthn', { schema: { hide: true } }, async (request, reply) => {
    const here = publicOriginOf(ctx.config, request);
    if (here.variant !== 'be') return reply.code(404).send({ code: 'not_found', message: 'Not found.' });
    return { origins: Object.values(ctx.config.publicOrigins).filter((origin) => origin !== here.origin) };
  });
}
