// The provider's interactions, answered from our own sign-in session (the tessera_token cookie):
// - login: a live, full Tessera session signs the interaction in as its user, with `acr`/`amr`
//   saying whether that session passed a second factor; without one, the browser goes to our
//   sign-in, with the way back to this interaction in `redirect`;
// - consent: first-party clients are granted what this request asked, without asking; a partner's
//   user is sent to our consent screen (consent.ts), which answers the interaction.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { errors, type InteractionResults } from 'oidc-provider';
import { SIGN_IN_PATH } from '../../contract/constants.ts';
import type { AppContext } from '../context.ts';
import { tokenOf } from '../http/auth.ts';
import { findSession } from '../sessions/store.ts';
import { findOidcClient, isFirstParty } from './clients.ts';
import { consentPathFor, grantMissing } from './consent.ts';
import { ACR, INTERACTION_PATH } from './provider.ts';

/** Where our sign-in sends the browser back to once signed in. */
export function signInPathFor(uid: string): string {
  return `${SIGN_IN_PATH}?${new URLSearchParams({ redirect: `${INTERACTION_PATH}/${uid}` })}`;
}

export async function handleInteraction(ctx: AppContext, provider: Provider,
  request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply) {
  const interaction = await provider.interactionDetails(request.raw, reply.raw);
  // The cookie names the interaction this browser started; the path must be that one.
  if (interaction.uid !== request.params.uid) throw new errors.InvalidRequest('interaction mismatch');

  const token = tokenOf(request, ctx.cookieName);
  const session = token ? await findSession(ctx.db, token) : null;
  // A session that may only set up a second factor does not sign anyone in to an application.
  const signedIn = session && session.scope === null ? session : null;
  const finish = async (result: InteractionResults) => {
    reply.hijack();
    await provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
  };

  if (!signedIn) return reply.redirect(signInPathFor(interaction.uid), 303);

  const { prompt, params } = interaction;
  if (prompt.name === 'login') {
    const mfa = signedIn.mfaAt !== null;
    return finish({
      login: {
        accountId: signedIn.userId,
        acr: mfa ? ACR.mfa : ACR.password,
        amr: mfa ? ['pwd', 'mfa'] : ['pwd'],
        ts: Math.floor(Date.parse(signedIn.signedInAt) / 1000),
      },
    });
  }

  if (prompt.name === 'consent') {
    // The provider's session and ours must be the same person, or this is not their consent to give.
    if (interaction.session?.accountId !== signedIn.userId) {
      return finish({ error: 'login_required', error_description: 'the signed-in account changed during the request' });
    }
    const client = await findOidcClient(ctx.db, String(params.client_id));
    if (!client) throw new errors.InvalidClient('the client is no longer registered');
    // A partner asks the person, on our consent screen.
    if (!isFirstParty(client)) return reply.redirect(consentPathFor(interaction.uid), 303);
    const grantId = await grantMissing(provider, interaction, signedIn.userId);
    return finish({ consent: { grantId } });
  }

  throw new errors.InvalidRequest(`unsupported interaction: ${prompt.name}`);
}
