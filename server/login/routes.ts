// POST /token: password sign-in by email or phone.
import { publicOriginOf } from '../http/origin.ts';
import type { FastifyInstance } from 'fastify';
import {
  LoginRequest,
  TokenAnswer,
  WeakPasswordAnswer,
  MfaRequiredAnswer,
  type CaptchaLevel,
} from '../../contract/schemas.ts';
import { messageOf } from '../../contract/errors.ts';
import type { AppContext } from '../context.ts';
import { deviceKeyOf } from '../http/auth.ts';
import { errorSchema, jsonSchema, responses } from '../http/schema.ts';
import { authenticate } from './authenticate.ts';
import { signInWithPassword } from '../identity/signInDecision.ts';
import { assertCaptcha } from '../captcha/index.ts';

export async function loginRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Body: LoginRequest }>(
    '/token',
    {
      schema: {
        tags: ['login'],
        summary: 'Sign in with an email or phone number and a password',
        body: jsonSchema(LoginRequest),
        response: {
          ...responses({ 200: TokenAnswer }),
          401: jsonSchema(MfaRequiredAnswer),
          // A weak password's renewal ticket, or sso_required (an account that signs in with Microsoft only).
          403: { anyOf: [jsonSchema(WeakPasswordAnswer), errorSchema] },
        },
      },
    },
    async (request, reply) => {
      const deviceKey = deviceKeyOf(request);
      const captcha = {
        enabled: ctx.config.captcha.enabled,
        afterFailures: ctx.config.captcha.loginAfterFailures,
        assert: (payload: string | undefined, level: CaptchaLevel) => assertCaptcha(ctx, payload, level),
      };
      const outcome = await authenticate(
        { ...ctx, captcha },
        {
          username: request.body.username,
          password: request.body.password,
          variant: publicOriginOf(ctx.config, request).variant,
          ip: request.ip,
          deviceKey,
          ...(request.body.captcha ? { captcha: request.body.captcha } : {}),
        },
      );
      if (outcome.kind === 'weak_password') {
        return reply
          .code(403)
          .send({ code: 'weak_password', message: messageOf('weak_password'), payload: outcome.payload });
      }
      // A second factor is needed unless this device was trusted after one.
      const next = await signInWithPassword(ctx, request, reply, outcome, request.body.client_id);
      if (next.kind === 'second_factor') {
        return reply.code(401).send({ code: 'mfa_required', message: messageOf('mfa_required'), mfa: next.mfa });
      }
      return next.token;
    },
  );
}
