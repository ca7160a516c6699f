// POST /user/reset-password: a new password for the holder of a ticket — the weak-password ticket
// a sign-in hands out (and, with forgot-password, the ticket a verified code hands out).
import type { FastifyInstance } from 'fastify';
import { ResetPasswordRequest } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { peekTicket, redeemTicket } from '../sessions/tickets.ts';
import { setNewPassword } from './passwords.ts';

export async function recoveryRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Body: ResetPasswordRequest }>('/user/reset-password', {
    schema: {
      tags: ['recovery'], summary: 'Choose a new password with a ticket (weak password or forgotten password)',
      body: jsonSchema(ResetPasswordRequest), response: responses({ 204: null }, [400, 401, 409, 422, 429, 503]),
    },
  }, async (request, reply) => {
    const { payload, password, confirmation } = request.body;
    if (password !== confirmation) throw new ApiError('weak_new_password', { problems: ['mismatch'] });
    // Checked first without spending the ticket, so that a refused password can be corrected.
    const userId = await peekTicket(ctx.db, payload, 'weak_password');
    if (!userId) throw new ApiError('unauthorized');
    await setNewPassword(ctx, userId, password, { ip: request.ip, deviceKey: request.deviceKey });
    await redeemTicket(ctx.db, payload, 'weak_password');
    return reply.code(204).send();
  });
}
