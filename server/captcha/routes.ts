// GET /captcha/challenge: a fresh ALTCHA challenge for the forms that need one.
import type { FastifyInstance } from 'fastify';
import { CaptchaChallenge } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { responses } from '../http/schema.ts';
import { newCaptchaChallenge } from './index.ts';

export async function captchaRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get('/captcha/challenge', {
    schema: { tags: ['captcha'], summary: 'A signed ALTCHA proof-of-work challenge', response: responses({ 200: CaptchaChallenge }, [400, 404, 503]) },
  }, async () => {
    if (!ctx.config.captcha.enabled) throw new ApiError('not_found');
    return newCaptchaChallenge(ctx);
  });
}
