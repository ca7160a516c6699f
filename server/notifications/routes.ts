// GET /notifications: what Tessera may send the signed-in account: the marketing preferences it chose
// at onboarding, and the security alerts, which it always gets. PUT /notifications changes the
// preferences (new consent rows, server/identity/consents.ts).
import type { FastifyInstance } from 'fastify';
import { NotificationsAnswer, NotificationsRequest, SECURITY_ALERTS } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { changeMarketing, marketingPreferencesOf } from '../identity/consents.ts';

export async function notificationRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);
  const answer = async (userId: string): Promise<NotificationsAnswer> => ({
    marketing: await marketingPreferencesOf(ctx.db, userId),
    security_alerts: [...SECURITY_ALERTS],
  });

  app.get(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'The marketing preferences, and the security alerts the account always receives',
        response: responses({ 200: NotificationsAnswer }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => answer(request.session!.userId),
  );

  app.put<{ Body: NotificationsRequest }>(
    '/notifications',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Change the marketing preferences (email, SMS, partners)',
        body: jsonSchema(NotificationsRequest),
        response: responses({ 200: NotificationsAnswer }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => {
      const userId = request.session!.userId;
      await changeMarketing(ctx.db, userId, request.body.marketing);
      return answer(userId);
    },
  );
}
