// When the authorisation server must (re)authenticate, beyond oidc-provider's own reasons
// (no session, prompt=login, max_age, id_token_hint, essential acr claims):
// - `tessera_session`: the provider's session belongs to a Tessera session of this browser that
//   has ended (signed out, revoked, expired) or is another account's. Our sign-in session is the
//   source of truth: a provider session never outlives it.
// - `tessera_mfa`: the client demands a second factor (its registration, or acr_values=mfa) and
//   the provider's session was not made with one.
// Both send the request to our interaction (interaction.ts), which decides from our session.
import type { KoaContextWithOIDC } from 'oidc-provider';
import { interactionPolicy } from 'oidc-provider';
import type { Db } from '../db/index.ts';
import { isSessionToken } from '../http/auth.ts';
import { findSession } from '../sessions/store.ts';
import { guarded } from './adapter.ts';

export const ACR = { password: 'pwd', mfa: 'mfa' } as const;

/** Whether a request asks for a second factor: its client's registration says so (`require_mfa`,
 * clients.ts), or it lists `mfa` among its acr_values. */
export function mfaDemanded(clientRequiresMfa: boolean, acrValues: unknown): boolean {
  return clientRequiresMfa || (typeof acrValues === 'string' && acrValues.split(' ').includes(ACR.mfa));
}

/** The live, full Tessera session of a session token, if any. */
export async function tesseraSessionOf(db: Db, token: string | null | undefined) {
  if (!isSessionToken(token)) return null;
  const session = await guarded(() => findSession(db, token));
  // A session that may only set up a second factor does not sign anyone in to an application.
  return session && session.scope === null ? session : null;
}

/** The same for the browser of a provider request, read once per request (the login check and the
 * session link both ask). Our cookie is not one of the provider's signed ones: read as it is (Koa
 * checks a signature by default). */
export function tesseraSessionOfRequest(
  db: Db,
  cookieName: string,
  ctx: KoaContextWithOIDC,
): ReturnType<typeof tesseraSessionOf> {
  const state = ctx.state as { tesseraSession?: ReturnType<typeof tesseraSessionOf> };
  return (state.tesseraSession ??= tesseraSessionOf(db, ctx.cookies.get(cookieName, { signed: false })));
}

export function interactionPolicyFor(db: Db, cookieName: string) {
  const { Check, base } = interactionPolicy;
  const policy = base();
  const login = policy.get('login')!;
  login.checks.add(
    new Check(
      'tessera_session',
      'the Tessera session of this browser has ended',
      'login_required',
      async (ctx: KoaContextWithOIDC) => {
        const { session } = ctx.oidc;
        if (!session?.accountId) return Check.NO_NEED_TO_PROMPT;
        const ours = await tesseraSessionOfRequest(db, cookieName, ctx);
        return ours?.userId === session.accountId ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
      },
    ),
    0,
  );
  login.checks.add(
    new Check(
      'tessera_mfa',
      'the client requires a second factor',
      'login_required',
      async (ctx: KoaContextWithOIDC) => {
        const { session, params, client } = ctx.oidc;
        if (!session?.accountId || session.acr === ACR.mfa || ctx.oidc.result?.login) return Check.NO_NEED_TO_PROMPT;
        // The client's registration comes with it (clients.ts): no look-up here.
        return mfaDemanded(client!.metadata().require_mfa === true, params?.acr_values)
          ? Check.REQUEST_PROMPT
          : Check.NO_NEED_TO_PROMPT;
      },
    ),
  );
  return policy;
}
