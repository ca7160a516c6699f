// Adding a second factor: the set-up offer's "not now", and the two steps of activation (start,
// then finish with the first code), open to a session limited to enrolment.
import { publicOriginOf } from '../http/origin.ts';
import type { FastifyInstance } from 'fastify';
import { MfaActivateAnswer, MfaActivateQuery, MfaActivateRequest, MfaActivateResult } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { languageOf } from '../identity/accounts.ts';
import { confirmActivation, startActivation } from './activation.ts';
import { idParam, type MfaGuards } from './guards.ts';
import { postponeSetupMfa } from './manage.ts';

/** POST /mfa/enrolment/later. */
export async function setupMfaRoutes(app: FastifyInstance, ctx: AppContext, { signedIn }: MfaGuards) {
  app.post(
    '/mfa/enrolment/later',
    {
      schema: {
        tags: ['mfa'],
        summary:
          'A customer offered a second factor says "not now": not offered again for 30 days (a forced account may not)',
        response: responses({ 204: null }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request, reply) => {
      await postponeSetupMfa(ctx.db, request.session!.userId);
      return reply.code(204).send();
    },
  );
}

/** GET /mfa/:id/activate and POST /mfa/activate. */
export async function activationRoutes(app: FastifyInstance, ctx: AppContext, { enrolling }: MfaGuards) {
  app.get<{ Params: { id: string }; Querystring: MfaActivateQuery }>(
    '/mfa/:id/activate',
    {
      // The spec's GET sends a code: a repeat of it with its key must not send another.
      config: { changes: true },
      schema: {
        tags: ['mfa'],
        summary:
          'Start adding a method (-1 email, -2 sms, -3 authenticator, -4 call, -5 whatsapp) or replacing one (edit=true); 204 when there is nothing to do',
        params: idParam,
        querystring: jsonSchema(MfaActivateQuery),
        response: responses({ 200: MfaActivateAnswer, 204: null }, [400, 401, 403, 404, 429, 503]),
      },
      preHandler: enrolling,
    },
    async (request, reply) => {
      const session = request.session!;
      const answer = await startActivation(
        ctx,
        {
          userId: session.userId,
          mfaAt: session.mfaAt,
          signedInAt: session.signedInAt,
          language: await languageOf(ctx.db, session.userId),
          variant: publicOriginOf(ctx.config, request).variant,
          deviceKey: request.deviceKey,
          ip: request.ip,
          sessionId: session.sessionId,
        },
        Number(request.params.id),
        request.query,
      );
      return answer ?? reply.code(204).send();
    },
  );

  app.post<{ Body: MfaActivateRequest }>(
    '/mfa/activate',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Finish adding a method with its first code',
        body: jsonSchema(MfaActivateRequest),
        response: responses({ 200: MfaActivateResult }, [400, 401, 403, 404, 409, 410, 422, 429, 503]),
      },
      preHandler: enrolling,
    },
    async (request) =>
      confirmActivation(
        ctx,
        {
          userId: request.session!.userId,
          sessionId: request.session!.sessionId,
          deviceKey: request.deviceKey,
          ip: request.ip,
        },
        request.body.payload,
        request.body,
      ),
  );
}
