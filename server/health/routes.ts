// /healthz: the process answers. /readyz: and what it depends on does too, each named.
// The database down makes the instance unready (503); Redis down only degrades it (200): the
// throttling counts fall back to the database, and draining every instance would help no one.
// A delivery provider whose circuit is not closed degrades it too, named under `delivery`: the
// circuits are shared, so every instance says the same. A node told to stop answers 503
// `draining` while it still serves, so that the balancer stops sending it requests first.
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../context.ts';
import { isReachable } from '../db/index.ts';

export type Readiness = {
  status: 'ok' | 'degraded' | 'unavailable' | 'draining';
  checks: {
    database: 'ok' | 'down';
    redis?: 'ok' | 'degraded';
    /** Only the providers whose circuit is open or half-open, by name. */
    delivery?: Record<string, 'open' | 'half_open'>;
  };
};

async function redisAnswers(redis: Redis): Promise<boolean> {
  // Not 'ready' means reconnecting: no need to queue a command to learn it.
  if (redis.status !== 'ready') return false;
  const timeout = new Promise<false>((resolve) => setTimeout(resolve, 1000, false).unref());
  return Promise.race([
    redis.ping().then(
      (answer) => answer === 'PONG',
      () => false,
    ),
    timeout,
  ]);
}

export async function readiness(ctx: AppContext): Promise<Readiness> {
  const [database, redis] = await Promise.all([isReachable(ctx.db), ctx.redis ? redisAnswers(ctx.redis) : null]);
  const checks: Readiness['checks'] = { database: database ? 'ok' : 'down' };
  if (redis !== null) checks.redis = redis ? 'ok' : 'degraded';
  // Without the database (and Redis) the circuits cannot be read: the database check says enough.
  const circuits = database ? await ctx.circuits().catch(() => []) : [];
  for (const { provider, state } of circuits) {
    if (state !== 'closed') checks.delivery = { ...checks.delivery, [provider]: state };
  }
  const status = !database ? 'unavailable' : redis === false || checks.delivery ? 'degraded' : 'ok';
  return { status, checks };
}

export async function healthRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    // A node told to stop leaves the balancer first, and serves on meanwhile.
    if (ctx.draining) return reply.code(503).send({ status: 'draining', checks: {} });
    const ready = await readiness(ctx);
    return reply.code(ready.status === 'unavailable' ? 503 : 200).send(ready);
  });
}
