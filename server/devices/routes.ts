// The user's devices and their trust (a trusted device skips the second factor at sign-in until
// its trust expires). The devices screen comes later; the API is here.
import type { FastifyInstance } from 'fastify';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { responses } from '../http/schema.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';
import { listDevices, untrustDevice } from './queries.ts';

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
    // Sign-ins whose sighting is still to be written are written first.
    await ctx.signInRecords.settle(request.session!.userId);
    return { data: await listDevices(ctx.db, request.session!.userId, request.session!.deviceKey) };
  });

  // Withdrawing trust is a security change: it needs a recent second-factor check.
  app.delete<{ Params: { id: string } }>('/devices/:id/trust', {
    schema: { tags: ['devices'], summary: 'Stop trusting a device: it asks for the second factor again', params: idParam, response: responses({ 204: null }, [400, 401, 403, 404, 503]) },
    preHandler: [signedIn, requireRecentMfa(ctx.config)],
  }, async (request, reply) => {
    if (!(await untrustDevice(ctx.db, request.session!.userId, request.params.id))) throw new ApiError('not_found');
    await recordEvent(ctx.db, { type: 'device_trust_revoked', userId: request.session!.userId, ip: request.ip, deviceKey: request.deviceKey, detail: { device: request.params.id } });
    return reply.code(204).send();
  });
}
