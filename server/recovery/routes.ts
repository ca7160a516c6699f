// Forgotten and weak passwords: POST /user/forgot-password sends a code, /user/forgot-password/verify
// trades it for a ticket, POST /user/reset-password takes a new password with that ticket or with the
// weak-password ticket a sign-in hands out.
import { publicOriginOf } from '../http/origin.ts';
import type { FastifyInstance } from 'fastify';
import {
  ForgotPasswordAnswer,
  ForgotPasswordRequest,
  ForgotPasswordVerifyAnswer,
  ForgotPasswordVerifyRequest,
  ForgotUsernameAnswer,
  ForgotUsernameRequest,
  ResetPasswordRequest,
} from '../../contract/schemas.ts';
import { assertCaptcha } from '../captcha/index.ts';
import { requestReset, verifyReset } from './forgot.ts';
import { findUsernames } from './username.ts';
import type { AppContext } from '../context.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { assertConfirmed } from '../passwords/policy.ts';
import { setNewPassword } from './passwords.ts';

export async function recoveryRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Body: ForgotPasswordRequest }>(
    '/user/forgot-password',
    {
      schema: {
        tags: ['recovery'],
        summary: 'Send a code to reset a forgotten password (the answer does not tell whether the account exists)',
        body: jsonSchema(ForgotPasswordRequest),
        response: responses({ 200: ForgotPasswordAnswer }, [400, 429, 503]),
      },
    },
    async (request) => {
      await assertCaptcha(ctx, request.body.captcha);
      return requestReset(ctx, {
        username: request.body.username,
        channel: request.body.channel ?? null,
        variant: publicOriginOf(ctx.config, request).variant,
        ip: request.ip,
        deviceKey: request.deviceKey,
      });
    },
  );

  app.post<{ Body: ForgotUsernameRequest }>(
    '/user/forgot-username',
    {
      schema: {
        tags: ['recovery'],
        summary: 'The usernames (masked) of the account with this card number or national register number',
        body: jsonSchema(ForgotUsernameRequest),
        response: responses({ 200: ForgotUsernameAnswer }, [400, 429, 503]),
      },
    },
    async (request) => {
      await assertCaptcha(ctx, request.body.captcha);
      const { captcha: _captcha, ...numbers } = request.body;
      return { usernames: await findUsernames(ctx, { ...numbers, ip: request.ip }) };
    },
  );

  app.post<{ Body: ForgotPasswordVerifyRequest }>(
    '/user/forgot-password/verify',
    {
      schema: {
        tags: ['recovery'],
        summary: 'Trade the code for a ticket to choose a new password',
        body: jsonSchema(ForgotPasswordVerifyRequest),
        response: responses({ 200: ForgotPasswordVerifyAnswer }, [400, 410, 422, 503]),
      },
    },
    async (request) => ({ payload: await verifyReset(ctx, request.body.payload, request.body.code, request.ip) }),
  );

  app.post<{ Body: ResetPasswordRequest }>(
    '/user/reset-password',
    {
      schema: {
        tags: ['recovery'],
        summary: 'Choose a new password with a ticket (weak password or forgotten password)',
        body: jsonSchema(ResetPasswordRequest),
        response: responses({ 204: null }, [400, 401, 409, 422, 429, 503]),
      },
    },
    async (request, reply) => {
      const { payload, password, confirmation } = request.body;
      assertConfirmed(password, confirmation);
      await setNewPassword(ctx, payload, password, { ip: request.ip, deviceKey: request.deviceKey });
      return reply.code(204).send();
    },
  );
}
