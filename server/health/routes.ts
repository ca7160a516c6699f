// /healthz: the process answers. /readyz: and its database does too.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { isReachable } from '../db/index.ts';

export async function healthRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const ok = await isReachable(ctx.db);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable' });
  });
}
