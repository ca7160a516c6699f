// GET /user/export: everything the portal holds about the account, as a JSON download, after a
// recent second factor (it holds the account's bank account and its whole history).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { responses } from '../http/schema.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';
import { recordEvent } from '../events/record.ts';
import { publicOriginOf } from '../http/origin.ts';
import { collectExport, type GrantsOf } from './collect.ts';

export async function exportRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  deps: { grantsOf: (...args: [...Parameters<GrantsOf>, origin: string]) => ReturnType<GrantsOf> },
) {
  app.get(
    '/user/export',
    {
      schema: {
        tags: ['profile'],
        summary: 'Everything held about the account, as a JSON download (no secrets)',
        response: responses({}, [400, 401, 403, 503]),
      },
      preHandler: [requireSession(ctx.db, ctx.cookieName), requireRecentMfa(ctx.config)],
    },
    async (request, reply) => {
      const userId = request.session!.userId;
      const { origin } = publicOriginOf(ctx.config, request);
      const data = await collectExport(ctx.db, userId, (db, id, locale) => deps.grantsOf(db, id, locale, origin));
      await recordEvent(ctx.db, { type: 'data_exported', userId, ip: request.ip, deviceKey: request.deviceKey });
      return reply
        .header('content-disposition', `attachment; filename="tessera-account-${data.exported_at.slice(0, 10)}.json"`)
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(data, null, 2));
    },
  );
}
