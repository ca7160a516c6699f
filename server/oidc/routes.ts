// oidc-provider under /oidc: every standard endpoint is handed to the provider of the request's host,
// the reply hijacked first so that Fastify never writes to a response the provider owns. Routes of
// ours under /oidc: the interaction (the provider scopes its interaction cookie there), and a form
// POST to the authorization or end-session endpoint, answered with a 303 to the same endpoint with
// the parameters in the query (the provider's own POST support wants its cookies SameSite=None; ours
// are Lax, and a top-level GET carries them).
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { errors, type ErrorOut } from 'oidc-provider';
import type { AppContext } from '../context.ts';
import { isDatabaseUnavailable } from '../db/index.ts';
import { providerPagePolicy, securityHeaders } from '../http/security.ts';
import { publicOriginOf } from '../http/origin.ts';
import type { Variant } from '../../contract/constants.ts';
import { errorLocale, oidcErrorPage, type RequestKind } from './errors.ts';
import { handleInteraction } from './interaction.ts';
import { INTERACTION_PATH, OIDC_PREFIX, type OidcProviders } from './provider.ts';

/** Fastify's own refusal of a request it could not take, before the provider saw it: above all a
 * Content-Type header that is no media type (empty, blank, `application/json, text/plain`), which
 * Fastify checks even though the provider reads the bodies. The client's mistake: answered as the
 * provider answers a malformed request (400 invalid_request), not as our failure. */
function frameworkRefusal(error: unknown): ErrorOut | undefined {
  const { code, statusCode } = (error ?? {}) as { code?: unknown; statusCode?: unknown };
  if (
    typeof code !== 'string' ||
    !code.startsWith('FST_') ||
    typeof statusCode !== 'number' ||
    statusCode < 400 ||
    statusCode >= 500
  )
    return undefined;
  return {
    error: 'invalid_request',
    error_description:
      code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? 'the content-type header is not a valid media type'
        : 'the request could not be read',
  };
}

/** An error outside the provider's own handling, as the provider would show it: a page to a
 * browser, JSON to a client's back end. */
function sendOidcError(
  variant: Variant,
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  kind?: RequestKind,
) {
  const unavailable =
    error instanceof errors.TemporarilyUnavailable ||
    isDatabaseUnavailable(error) ||
    isDatabaseUnavailable((error as { cause?: unknown } | null)?.cause);
  const known = error instanceof errors.OIDCProviderError && error.expose;
  const refused = unavailable || known ? undefined : frameworkRefusal(error);
  const out: ErrorOut = unavailable
    ? { error: 'temporarily_unavailable' }
    : known
      ? { error: error.error }
      : (refused ?? { error: 'server_error' });
  const status = unavailable ? 503 : known ? error.statusCode : refused ? 400 : 500;
  reply.code(status).header('cache-control', 'no-store');
  if (!request.headers.accept?.includes('text/html')) return reply.send(out);
  return reply
    .type('text/html; charset=utf-8')
    .send(oidcErrorPage(out, errorLocale(variant, request.headers['accept-language']), kind));
}

/** The longest URL a form POST to the authorization or end-session endpoint becomes: 8 KB, which
 * every browser, proxy and server in the way takes. Longer parameters are refused. */
export const MAX_POSTED_URL = 8192;
/** The provider's endpoints (its default routes) that take a form POST. */
const POSTED_ENDPOINTS = ['/auth', '/session/end'] as const;

/** The form-encoded body of a request, or null when it is longer than `limit` bytes (read to its end
 * all the same, so that the answer reaches the browser). */
async function formBody(request: FastifyRequest, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size > limit ? null : Buffer.concat(chunks).toString('utf8');
}

/** An authorization request refused before the provider saw it, answered as the provider answers
 * one: to the client's registered redirect_uri (query or fragment, with its state and our `iss`)
 * when the client and that URI are known; otherwise (and for the end-session endpoint) the error
 * page, which never redirects. */
async function refusePosted(
  variant: Variant,
  provider: Provider,
  endpoint: (typeof POSTED_ENDPOINTS)[number],
  params: URLSearchParams,
  error: InstanceType<typeof errors.InvalidRequest>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const clientId = params.get('client_id');
  const redirectUri = params.get('redirect_uri');
  const mode = params.get('response_mode') ?? 'query';
  if (endpoint === '/auth' && clientId && redirectUri && (mode === 'query' || mode === 'fragment')) {
    const client = await provider.Client.find(clientId).catch(() => undefined);
    if (client?.redirectUriAllowed(redirectUri)) {
      const answer = new URLSearchParams({ error: error.error, error_description: error.error_description! });
      const state = params.get('state');
      if (state !== null) answer.set('state', state);
      answer.set('iss', provider.issuer);
      const target = new URL(redirectUri);
      if (mode === 'fragment') target.hash = answer.toString();
      else for (const [name, value] of answer) target.searchParams.append(name, value);
      return reply.header('cache-control', 'no-store').redirect(target.href, 303);
    }
  }
  return sendOidcError(variant, request, reply, error, endpoint === '/auth' ? 'sign-in' : 'sign-out');
}

export async function oidcRoutes(app: FastifyInstance, ctx: AppContext, providers: OidcProviders) {
  /** The variant of the configured origin a request came to: its error pages speak its languages. */
  const variantOf = (request: FastifyRequest) => publicOriginOf(ctx.config, request).variant;
  await app.register(async (oidc) => {
    // The provider reads request bodies itself, from the raw request: Fastify leaves them unread.
    oidc.removeAllContentTypeParsers();
    oidc.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // Maintenance closes the provider as it closes the API.
    oidc.addHook('onRequest', async (request, reply) => {
      if (ctx.config.maintenance)
        return sendOidcError(variantOf(request), request, reply, new errors.TemporarilyUnavailable('maintenance'));
    });
    oidc.setErrorHandler((error, request, reply) => {
      if (!(error instanceof errors.OIDCProviderError && error.expose) && !frameworkRefusal(error))
        request.log.error({ err: error }, 'OIDC interaction failed');
      return sendOidcError(variantOf(request), request, reply, error);
    });

    // Not part of the account API: the provider's endpoints are in its discovery document.
    const hidden = { schema: { hide: true } };
    oidc.get<{ Params: { uid: string } }>(`${INTERACTION_PATH}/:uid`, hidden, async (request, reply) => {
      const provider = await providers.forRequest(request);
      return handleInteraction(ctx, provider, request, reply);
    });

    for (const endpoint of POSTED_ENDPOINTS) {
      oidc.post(`${OIDC_PREFIX}${endpoint}`, hidden, async (request, reply) => {
        const provider = await providers.forRequest(request);
        const mediaType = String(request.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim()
          .toLowerCase();
        if (mediaType !== 'application/x-www-form-urlencoded') {
          // Read and dropped: the answer must not race an unread body.
          await formBody(request, 0);
          return sendOidcError(
            variantOf(request),
            request,
            reply,
            new errors.InvalidRequest('only application/x-www-form-urlencoded content-type bodies are supported'),
            endpoint === '/auth' ? 'sign-in' : 'sign-out',
          );
        }
        // Read further than the limit, so that a refusal can still go back to the client.
        const body = await formBody(request, 8 * MAX_POSTED_URL);
        const params = new URLSearchParams(body ?? '');
        const target = `${provider.issuer}${endpoint}?${params}`;
        if (body === null || target.length > MAX_POSTED_URL) {
          const tooLong = new errors.InvalidRequest(
            `the request's parameters are longer than ${MAX_POSTED_URL} characters`,
          );
          return refusePosted(variantOf(request), provider, endpoint, params, tooLong, request, reply);
        }
        // 303: the browser follows with a GET, as a top-level navigation that carries Lax cookies.
        return reply.header('cache-control', 'no-store').redirect(target, 303);
      });
    }

    const providerHeaders = Object.entries({
      ...securityHeaders(ctx.config),
      'content-security-policy': providerPagePolicy(ctx.config),
    });
    // Koa composes its middleware in callback(): once per provider.
    const handlers = new WeakMap<Provider, ReturnType<Provider['callback']>>();
    const handOver = async (request: FastifyRequest, reply: FastifyReply) => {
      const provider = await providers.forRequest(request);
      let handler = handlers.get(provider);
      if (!handler) handlers.set(provider, (handler = provider.callback()));
      reply.hijack();
      // A hijacked answer skips the app's hooks: the provider's answers get the headers here.
      for (const [name, value] of providerHeaders) reply.raw.setHeader(name, value);
      // Mounted as Express mounts it: the provider sees its own paths and derives /oidc from originalUrl.
      const raw = request.raw as IncomingMessage & { originalUrl?: string };
      raw.originalUrl = raw.url;
      raw.url = raw.url!.slice(OIDC_PREFIX.length) || '/';
      await handler(raw, reply.raw);
    };
    oidc.all(OIDC_PREFIX, hidden, handOver);
    oidc.all(`${OIDC_PREFIX}/*`, hidden, handOver);
  });
}
