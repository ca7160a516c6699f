// /healthz: the process answers. /readyz: and what it depends on does too, each named.
// The database down makes the instance unready (503); Redis down only degrades it (200): the
// throttling counts fall back to the database, and draining every instance would help no one.
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../context.ts';
import { isReachable } from '../db/index.ts';

export type Readiness = {
  status: 'ok' | 'degraded' | 'unavailable';
  checks: { database: 'ok' | 'down'; redis?: 'ok' | 'degraded' };
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
  const status = !database ? 'unavailable' : redis === false ? 'degraded' : 'ok';
  return { status, checks };
}

export async function healthRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const ready = await readiness(ctx);
    return reply.code(ready.status === 'unavailable' ? 503 : 200).send(ready);
  });
}
