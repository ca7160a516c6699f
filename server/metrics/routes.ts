// GET /metrics, and the hooks that count every request. Routes are labelled by their pattern
// (`/api/mfa/:id`), never the raw URL, so the label set stays small whatever clients send.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_PREFIX } from '../../contract/constants.ts';
import type { AppContext } from '../context.ts';
import { sendError } from '../http/errors.ts';
import type { SignInOutcome } from './index.ts';

const SIGN_IN = `${API_PREFIX}/token`;

/** The sign-in outcome of an answer to POST /token, from its status and error code. */
function signInOutcome(status: number, payload: unknown): SignInOutcome | null {
  if (status === 200) return 'success';
  if (status === 401) return 'mfa_required';
  if (status === 403) return 'weak_password';
  if (status === 429) return 'throttled';
  if (status === 400 && typeof payload === 'string' && payload.includes('"code":"invalid_credentials"'))
    return 'invalid_credentials';
  return null;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

function authorised(request: FastifyRequest, token: string | null): boolean {
  if (token === null) return true;
  const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(token));
}

export async function metricsRoutes(app: FastifyInstance, ctx: AppContext) {
  const { metrics } = ctx;
  // Callback-style hooks: they run on every answer, and an async one costs a promise each time.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.method === 'POST' && request.routeOptions.url === SIGN_IN) {
      const outcome = signInOutcome(reply.statusCode, payload);
      if (outcome) metrics.signIns.inc({ outcome });
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) metrics.throttled.inc({ route: labels.route });
    done();
  });

  // Registered even when off, so that it answers 404 rather than falling through to the app.
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const { enabled, token } = ctx.config.metrics;
    if (!enabled) return sendError(reply, 'not_found');
    if (!authorised(request, token)) return sendError(reply, 'unauthorized');
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
