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
import { isTrue, type Db } from '../db/index.ts';
import { findSession } from '../sessions/store.ts';
import { guarded } from './adapter.ts';
import { findOidcClient } from './clients.ts';

export const ACR = { password: 'pwd', mfa: 'mfa' } as const;

/** Whether this request asks for a second factor: the client's registration says so, or the
 * request lists `mfa` among its acr_values. */
export async function requestWantsMfa(db: Db, clientId: string, acrValues: unknown): Promise<boolean> {
  if (typeof acrValues === 'string' && acrValues.split(' ').includes(ACR.mfa)) return true;
  const client = await findOidcClient(db, clientId);
  return client ? isTrue(client.require_mfa) : false;
}

/** The live, full Tessera session of the request's browser, if any. */
export async function tesseraSessionOf(db: Db, token: string | undefined) {
  if (!token || !/^[A-Za-z0-9_-]{16,256}$/.test(token)) return null;
  const session = await guarded(() => findSession(db, token));
  // A session that may only set up a second factor does not sign anyone in to an application.
  return session && session.scope === null ? session : null;
}

export function interactionPolicyFor(db: Db, cookieName: string) {
  const { Check, base } = interactionPolicy;
  const policy = base();
  const login = policy.get('login')!;
  login.checks.add(new Check('tessera_session', 'the Tessera session of this browser has ended', 'login_required', async (ctx: KoaContextWithOIDC) => {
    const { session } = ctx.oidc;
    if (!session?.accountId) return Check.NO_NEED_TO_PROMPT;
    // Our cookie is not one of the provider's signed ones: read as it is (Koa checks a signature by default).
    const ours = await tesseraSessionOf(db, ctx.cookies.get(cookieName, { signed: false }));
    return ours?.userId === session.accountId ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
  }), 0);
  login.checks.add(new Check('tessera_mfa', 'the client requires a second factor', 'login_required', async (ctx: KoaContextWithOIDC) => {
    const { session, params, client } = ctx.oidc;
    if (!session?.accountId || session.acr === ACR.mfa || ctx.oidc.result?.login) return Check.NO_NEED_TO_PROMPT;
    return await requestWantsMfa(db, client!.clientId, params?.acr_values) ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT;
  }));
  return policy;
}
