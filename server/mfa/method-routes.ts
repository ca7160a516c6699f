// The second factors the signed-in user has: GET /mfa (the list), GET /mfa/status, and the changes
// that ask a recent second factor: primary switch, removal, new recovery keys.
import type { FastifyInstance } from 'fastify';
import {
  MfaDeleteRequest,
  MfaListQuery,
  MfaMethodList,
  MfaRenameRequest,
  MfaStatus,
  RecoveryKeysAnswer,
} from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { idParam, type MfaGuards } from './guards.ts';
import { deleteMethod, listMethods, makePrimary, mfaStatusOf, renameMethod, renewRecoveryKeys } from './manage.ts';

const actorOf = (request: { session: { userId: string } | null; ip: string; deviceKey: string }) => ({
  userId: request.session!.userId,
  ip: request.ip,
  deviceKey: request.deviceKey,
});

/** GET /mfa and GET /mfa/status: open to a session limited to enrolment. */
export async function methodListRoutes(app: FastifyInstance, ctx: AppContext, { enrolling }: MfaGuards) {
  app.get<{ Querystring: MfaListQuery }>(
    '/mfa',
    {
      schema: {
        tags: ['mfa'],
        summary:
          "The signed-in user's second factors; with includeAll, also the kinds that can be added (negative ids)",
        querystring: jsonSchema(MfaListQuery),
        response: responses({ 200: MfaMethodList }, [400, 401, 403, 503]),
      },
      preHandler: enrolling,
    },
    async (request) => {
      const { includeAll } = request.query;
      return listMethods(
        ctx.db,
        request.session!.userId,
        includeAll !== undefined && !['false', '0'].includes(includeAll),
      );
    },
  );

  app.get(
    '/mfa/status',
    {
      schema: {
        tags: ['mfa'],
        summary:
          'Whether this session passed MFA recently, and whether the account must (or may) set up a second factor',
        response: responses({ 200: MfaStatus }, [400, 401, 403, 503]),
      },
      preHandler: enrolling,
    },
    async (request) => mfaStatusOf(ctx, request.session!),
  );
}

/** The changes to the methods: each asks a full session and a recent second factor. */
export async function methodChangeRoutes(app: FastifyInstance, ctx: AppContext, { signedIn, recentMfa }: MfaGuards) {
  app.post<{ Params: { id: string } }>(
    '/mfa/switch-primary/:id',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Make a method the primary one',
        params: idParam,
        response: responses({ 204: null }, [400, 401, 403, 404, 503]),
      },
      preHandler: [signedIn, recentMfa],
    },
    async (request, reply) => {
      await makePrimary(ctx.db, actorOf(request), Number(request.params.id));
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: { id: string }; Body: MfaDeleteRequest | undefined }>(
    '/mfa/:id',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Remove a method (never the last email or SMS one); the optional target becomes primary',
        params: idParam,
        body: jsonSchema(MfaDeleteRequest),
        response: responses({ 204: null }, [400, 401, 403, 404, 409, 503]),
      },
      // The body is optional: a bare DELETE validates as an empty object.
      preValidation: async (request) => {
        request.body ??= {};
      },
      preHandler: [signedIn, recentMfa],
    },
    async (request, reply) => {
      await deleteMethod(ctx.db, actorOf(request), Number(request.params.id), request.body?.target);
      return reply.code(204).send();
    },
  );

  app.patch<{ Params: { id: string }; Body: MfaRenameRequest }>(
    '/mfa/:id',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Rename a passkey',
        params: idParam,
        body: jsonSchema(MfaRenameRequest),
        response: responses({ 204: null }, [400, 401, 403, 404, 503]),
      },
      // A name tells the owner's passkeys apart and proves nothing: a full session may give it.
      preHandler: signedIn,
    },
    async (request, reply) => {
      await renameMethod(ctx.db, actorOf(request), Number(request.params.id), request.body.name);
      return reply.code(204).send();
    },
  );

  app.post(
    '/mfa/regenerate-recovery',
    {
      schema: {
        tags: ['mfa'],
        summary: 'New recovery keys; the old ones stop working',
        response: responses({ 200: RecoveryKeysAnswer }, [400, 401, 403, 404, 503]),
      },
      preHandler: [signedIn, recentMfa],
    },
    async (request) => renewRecoveryKeys(ctx, actorOf(request)),
  );
}
