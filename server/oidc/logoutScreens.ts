// An application's sign-out (RP-initiated logout) on our own screens, not the provider's pages.
// The provider's end-session endpoint asks the person to confirm: `logoutSource` keeps its form's
// `xsrf` (and the application) on the server for ten minutes under a random reference and sends the
// browser to our confirmation, `/logout/confirm?ref=…`. The app reads it (GET
// /api/logout-requests/{ref}) and posts the provider's form itself, `/oidc/session/end/confirm`:
// `logout=yes` signs out, without it the person stays signed in to Tessera (the standard's two
// answers). The secret never travels in a URL, so never in a log. Without a post_logout_redirect_uri
// the provider ends on `postLogoutSuccessSource`: our success screen, `/logout/done`.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { LOGOUT_CONFIRM_PATH, LOGOUT_DONE_PATH } from '../../contract/constants.ts';
import { LogoutRequestAnswer, LogoutRequestParams } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import { ApiError } from '../http/errors.ts';
import { localeOfRequest } from '../http/locale.ts';
import { publicOriginOf } from '../http/origin.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { OidcAdapter } from './adapter.ts';
import { clientView, findOidcClient } from './clients.ts';

/** How long a logout request waits for its answer (seconds). */
const LOGOUT_REQUEST_TTL = 600;

type LogoutRequest = { xsrf: string; clientId?: string; action: string };

const store = (db: Db) => new OidcAdapter(db, 'LogoutRequest');

/** The provider's `logoutSource`: keeps the request, sends the browser to our confirmation. */
export function logoutSource(db: Db) {
  return async (ctx: KoaContextWithOIDC): Promise<void> => {
    const state = ctx.oidc.session!.state as { secret: string; clientId?: string };
    const ref = randomBytes(32).toString('base64url');
    const request: LogoutRequest = {
      xsrf: state.secret,
      action: new URL(ctx.oidc.urlFor('end_session_confirm')).pathname,
      ...(state.clientId ? { clientId: state.clientId } : {}),
    };
    await store(db).upsert(ref, request, LOGOUT_REQUEST_TTL);
    ctx.status = 303;
    ctx.redirect(`${LOGOUT_CONFIRM_PATH}?${new URLSearchParams({ ref })}`);
  };
}

/** The provider's `postLogoutSuccessSource`: our success screen, naming the application the person
 * signed out of while staying signed in to Tessera (the provider forwards its client_id then). */
export async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  const clientId = ctx.oidc.client?.clientId;
  ctx.status = 303;
  ctx.redirect(`${LOGOUT_DONE_PATH}${clientId ? `?${new URLSearchParams({ client_id: clientId })}` : ''}`);
}

export async function logoutRequestRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: LogoutRequestParams }>(
    '/logout-requests/:ref',
    {
      schema: {
        tags: ['partners'],
        summary: "An application's sign-out waiting for the person's answer: the application, and the form to post",
        params: jsonSchema(LogoutRequestParams),
        response: responses({ 200: LogoutRequestAnswer }, [400, 404, 503]),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const found = (await store(ctx.db).find(request.params.ref)) as LogoutRequest | undefined;
      if (!found) throw new ApiError('not_found');
      const row = found.clientId ? await findOidcClient(ctx.db, found.clientId) : undefined;
      const origin = publicOriginOf(ctx.config, request).origin;
      return {
        client: row ? clientView(row, localeOfRequest(request), origin) : null,
        action: found.action,
        xsrf: found.xsrf,
      };
    },
  );
}
