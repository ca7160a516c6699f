// The user's devices and their trust (a trusted device skips the second factor at sign-in until
// its trust expires). The devices screen comes later; the API is here.
import type { FastifyInstance } from 'fastify';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { responses } from '../http/schema.ts';
import { requireRecentMfa } from '../mfa/stepup.ts';

const DeviceList = v.object({
  data: v.array(v.object({
    id: v.string(),
    user_agent: v.nullable(v.string()),
    first_seen_at: v.string(),
    last_seen_at: v.string(),
    trusted_until: v.nullable(v.string()),
    current: v.boolean(),
  })),
});

const idParam = { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'], additionalProperties: false };

export async function deviceRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  app.get('/devices', {
    schema: { tags: ['devices'], summary: 'The signed-in user\'s devices, with their trust', response: responses({ 200: DeviceList }, [400, 401, 403, 503]) },
    preHandler: signedIn,
  }, async (request) => {
    const rows = await ctx.db.selectFrom('devices').select(['id', 'user_agent', 'first_seen_at', 'last_seen_at', 'trusted_until'])
      .where('user_id', '=', request.session!.userId).orderBy('last_seen_at', 'desc').execute();
    const now = nowIso();
    return {
      data: rows.map((row) => ({
        ...row,
        trusted_until: row.trusted_until && row.trusted_until > now ? row.trusted_until : null,
        current: row.id === request.session!.deviceId,
      })),
    };
  });

  // Withdrawing trust is a security change: it needs a recent second-factor check.
  app.delete<{ Params: { id: string } }>('/devices/:id/trust', {
    schema: { tags: ['devices'], summary: 'Stop trusting a device: it asks for the second factor again', params: idParam, response: responses({ 204: null }, [400, 401, 403, 404, 503]) },
    preHandler: [signedIn, requireRecentMfa(ctx.config)],
  }, async (request, reply) => {
    const done = await ctx.db.updateTable('devices').set({ trusted_until: null })
      .where('id', '=', request.params.id).where('user_id', '=', request.session!.userId).executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw new ApiError('not_found');
    await recordEvent(ctx.db, { type: 'device_trust_revoked', userId: request.session!.userId, ip: request.ip, deviceKey: request.deviceKey, detail: { device: request.params.id } });
    return reply.code(204).send();
  });
}
