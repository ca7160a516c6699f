// Our sign-in session is the source of truth (docs/decisions/oidc-session.md). Each time the provider
// signs a browser in to an application, we note which Tessera session did it (oidc_session_links).
// When Tessera sessions end (sign-out here, a password set, later per device or everywhere), the
// provider sessions they signed in end too: every client of those sessions that registered a
// back-channel logout URI gets a logout token (with the `sid` its ID tokens carried), and grants
// given without offline_access are revoked, as an RP-initiated logout does.
//
// The back-channel calls run with the request that ended the session, in parallel, each bounded by
// the provider's HTTP timeout; a client that fails to answer is logged. The provider's session is
// already dead for new requests without them (policy.ts, `tessera_session`).
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { EndedSessions } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { guarded } from './adapter.ts';
import { tesseraSessionOfRequest } from './policy.ts';

type Log = { warn(detail: object, message: string): void };

/** Koa middleware of the provider: after an authorization (or its resume) that gave the client its
 * code, notes the Tessera session behind the provider's session (by then the one its cookie keeps:
 * the provider renews a session's id when it signs someone in). */
export function linkSessions(db: Db, cookieName: string) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    const route = ctx.oidc?.route;
    if ((route !== 'authorization' && route !== 'resume') || !ctx.oidc.entities.AuthorizationCode) return;
    const session = ctx.oidc.session;
    if (!session?.accountId) return;
    const ours = await tesseraSessionOfRequest(db, cookieName, ctx);
    if (ours?.userId !== session.accountId) return;
    const link = {
      provider_session_id: session.jti,
      session_id: ours.sessionId,
      account_id: ours.userId,
      issuer: ctx.oidc.provider.issuer,
      created_at: nowIso(),
    };
    await guarded(() =>
      db
        .insertInto('oidc_session_links')
        .values(link)
        .onConflict((oc) =>
          oc.column('provider_session_id').doUpdateSet({ session_id: link.session_id, account_id: link.account_id }),
        )
        .execute(),
    );
  };
}

type ProviderSession = InstanceType<Provider['Session']>;
type Authorization = NonNullable<ProviderSession['authorizations']>[string];

/** Signs one client out of a provider session: its back-channel logout (when it registered a URI),
 * and its grant revoked unless it persists logout (offline_access). */
async function logOutClient(
  provider: Provider,
  session: ProviderSession,
  clientId: string,
  authorization: Authorization,
  log: Log,
): Promise<void> {
  const client = await provider.Client.find(clientId);
  if (client?.backchannelLogoutUri && session.accountId) {
    // The provider's own call (its end-session endpoint makes it): a signed logout token.
    const withLogout = client as unknown as {
      backchannelLogout(sub: string, sid: string | undefined): Promise<void>;
    };
    await withLogout
      .backchannelLogout(session.accountId, authorization.sid)
      .catch((error: unknown) => log.warn({ err: error, client_id: clientId }, 'back-channel logout failed'));
  }
  if (authorization.grantId && !authorization.persistsLogout) {
    const grant = await provider.Grant.find(authorization.grantId);
    await grant?.destroy();
    await provider.AccessToken.adapter.revokeByGrantId(authorization.grantId);
  }
}

/** Ends one provider session: back-channel logout to its clients, grants without offline_access
 * revoked, the session removed. */
async function endProviderSession(provider: Provider, sessionId: string, log: Log): Promise<void> {
  const session = await provider.Session.find(sessionId);
  if (!session) return;
  await Promise.all(
    Object.entries(session.authorizations ?? {}).map(([clientId, authorization]) =>
      logOutClient(provider, session, clientId, authorization, log),
    ),
  );
  await session.destroy();
}

/** Ends the provider session of an account that is no longer the one signed in to this browser
 * (someone else signed in during a request, interaction.ts), as that account's sign-out would have. */
export async function endSupersededSession(db: Db, provider: Provider, sessionId: string, log: Log): Promise<void> {
  await endProviderSession(provider, sessionId, log);
  await guarded(() => db.deleteFrom('oidc_session_links').where('provider_session_id', '=', sessionId).execute());
}

/** What the app calls when Tessera sessions end (AppContext.sessionsEnded). */
export function endLinkedSessions(db: Db, providerFor: (issuer: string) => Provider, log: Log) {
  return async (ended: EndedSessions): Promise<void> => {
    const query = db.selectFrom('oidc_session_links').select(['provider_session_id', 'issuer']);
    const links = await ('sessionIds' in ended
      ? ended.sessionIds.length
        ? query.where('session_id', 'in', ended.sessionIds).execute()
        : []
      : query.where('account_id', '=', ended.accountId).execute());
    await Promise.all(
      links.map(async (link) => {
        try {
          await endProviderSession(providerFor(link.issuer), link.provider_session_id, log);
          await db
            .deleteFrom('oidc_session_links')
            .where('provider_session_id', '=', link.provider_session_id)
            .execute();
        } catch (error) {
          log.warn({ err: error }, 'a provider session could not be ended');
        }
      }),
    );
    // Tokens that outlive a sign-out (offline access) do not outlive a password change, a sign-out
    // everywhere or an undone change. The grants stay: the consent was given, only a new sign-in is needed.
    if (ended.refreshTokensOf) {
      await guarded(() =>
        db
          .deleteFrom('oidc_models')
          .where('account_id', '=', ended.refreshTokensOf!)
          .where('model', 'in', ['RefreshToken', 'AccessToken'])
          .execute(),
      );
    }
  };
}

/** Koa middleware of the provider: an RP-initiated logout the person confirmed ends their Tessera
 * session in this browser too (it is the single sign-on session: otherwise the next request would
 * sign them straight back in), with everything that hangs on it, and clears its cookie. */
export function endTesseraSessionOnLogout(
  db: Db,
  cookieName: string,
  cookieOptions: (host: string) => Record<string, unknown>,
  endSession: (sessionId: string) => Promise<void>,
) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    if (ctx.oidc?.route !== 'end_session_confirm' || ctx.status >= 400 || !ctx.oidc.params?.logout) return;
    const ours = await tesseraSessionOfRequest(db, cookieName, ctx);
    if (!ours) return;
    await endSession(ours.sessionId);
    ctx.cookies.set(cookieName, null, { ...cookieOptions(ctx.host), signed: false });
  };
}

/** What revoking a client's access calls (grants.ts has revoked its grants and tokens already):
 * every provider session of the account that signed in to that client signs it out, with its
 * back-channel logout, so that the application's own session ends too. The provider sessions stay,
 * with the other applications they signed in to. */
export function signOutClient(db: Db, providerFor: (issuer: string) => Provider, log: Log) {
  return async (accountId: string, clientId: string): Promise<void> => {
    const links = await guarded(() =>
      db
        .selectFrom('oidc_session_links')
        .select(['provider_session_id', 'issuer'])
        .where('account_id', '=', accountId)
        .execute(),
    );
    await Promise.all(
      links.map(async (link) => {
        try {
          const provider = providerFor(link.issuer);
          const session = await provider.Session.find(link.provider_session_id);
          const authorization = session?.authorizations?.[clientId];
          if (!session || !authorization || session.accountId !== accountId) return;
          await logOutClient(provider, session, clientId, authorization, log);
          delete session.authorizations![clientId];
          await session.persist();
        } catch (error) {
          log.warn({ err: error, client_id: clientId }, 'an application could not be signed out');
        }
      }),
    );
  };
}
