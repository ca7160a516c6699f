// GET /captcha/challenge: a fresh ALTCHA challenge for the forms that need one, at the level asked
// for (a form refused for want of a harder one is told its level). Anybody may ask for any level:
// what counts is the level the server signed into the challenge, checked where the solution is used.
import type { FastifyInstance } from 'fastify';
import { CaptchaChallenge, CaptchaChallengeQuery, type CaptchaLevel } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { carryCaptchaHeader } from './carried.ts';
import { newCaptchaChallenge } from './index.ts';

export async function captchaRoutes(app: FastifyInstance, ctx: AppContext) {
  carryCaptchaHeader(app);
  app.get<{ Querystring: CaptchaChallengeQuery }>(
    '/captcha/challenge',
    {
      schema: {
        tags: ['captcha'],
        summary: 'A signed ALTCHA proof-of-work challenge',
        querystring: jsonSchema(CaptchaChallengeQuery),
        response: responses({ 200: CaptchaChallenge }, [400, 404, 503]),
      },
    },
    async (request) => {
      if (!ctx.config.captcha.enabled) throw new ApiError('not_found');
      return newCaptchaChallenge(ctx, Number(request.query.level ?? 0) as CaptchaLevel);
    },
  );
}
