// GET /config: what the browser needs before it renders (variant by host name, languages, the
// registered redirect targets a dashboard redirect_uri may point to, the analytics endpoint).
import type { FastifyInstance } from 'fastify';
import { AppConfig } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { responses } from '../http/schema.ts';
import { appConfigFor } from './appConfig.ts';

export async function appConfigRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get(
    '/config',
    {
      schema: {
        tags: ['config'],
        summary: 'Variant, languages, redirect targets and password rules for this host',
        response: responses({ 200: AppConfig }, [400, 503]),
      },
    },
    async (request) => appConfigFor(ctx, request.host),
  );
}
