// The provider's interactions, answered from our own sign-in session (the tessera_token cookie):
// - login: a live, full Tessera session signs the interaction in as its user, with `acr`/`amr`
//   saying whether that session passed a second factor; without one, the browser goes to our
//   sign-in, with the way back to this interaction in `redirect`;
// - consent: first-party clients are granted what this request asked, without asking; a partner's
//   user is sent to our consent screen (consent.ts), which answers the interaction. Someone else
//   signed in meanwhile ("Not you?" on the consent screen signs out and back in): the request
//   starts again for them, from its own parameters.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { errors, type InteractionResults } from 'oidc-provider';
import { INTERACTION_PATH, SIGN_IN_PATH, STEP_UP_PATH } from '../../contract/constants.ts';
import type { Db } from '../db/index.ts';
import { looksLikeEmail } from '../../contract/rules.ts';
import { guarded } from './adapter.ts';
import { ACR, mfaDemanded, tesseraSessionOf } from './policy.ts';
import type { AppContext } from '../context.ts';
import { tokenOf } from '../http/auth.ts';
import { findOidcClient, isFirstParty } from './clients.ts';
import { isTrue } from '../db/index.ts';
import { consentPathFor, grantMissing } from './consent.ts';
import { endSupersededSession } from './logout.ts';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The request's authorization URL again, as its client sent it (its state, nonce and PKCE
 * challenge with it, so the client takes the code as its own answer); null for a pushed or signed
 * request, whose parameters cannot be sent again as they came. */
export function restartPathOf(provider: Provider, interaction: Interaction): string | null {
  const { params } = interaction;
  if (params.request_uri !== undefined || params.request !== undefined) return null;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (typeof value === 'string') query.set(name, value);
  return `${new URL(provider.issuer).pathname}/auth?${query}`;
}

/** Where a signed-in person proves it is them again for this request (its second factor, or the
 * password where the account has none), then comes back. */
export function stepUpPathFor(uid: string): string {
  return `${STEP_UP_PATH}?${new URLSearchParams({ single: 'true', redirect: `${INTERACTION_PATH}/${uid}` })}`;
}

/** Whether the account has a second factor. */
async function hasSecondFactor(db: Db, userId: string): Promise<boolean> {
  const row = await guarded(() =>
    db.selectFrom('mfa_methods').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst(),
  );
  return row !== undefined;
}

/** Our sign-in, which sends the browser back to the interaction once signed in: its phone tab when
 * the request's login_hint is a phone number (the page pre-fills the hint, server/spa/page.ts). */
export function signInPathFor(uid: string, loginHint?: unknown): string {
  const phone = typeof loginHint === 'string' && !looksLikeEmail(loginHint) && PHONE_HINT.test(loginHint);
  return `${phone ? PHONE_SIGN_IN_PATH : SIGN_IN_PATH}?${new URLSearchParams({ redirect: `${INTERACTION_PATH}/${uid}` })}`;
}

/** A login hint that reads as a phone number: digits, with a leading + and spaces, dots, dashes or
 * brackets between them. */
const PHONE_HINT = /^\+?[\d\s().-]{6,20}$/;
const PHONE_SIGN_IN_PATH = '/login/phone';

export async function handleInteraction(
  ctx: AppContext,
  provider: Provider,
  request: FastifyRequest<{ Params: { uid: string } }>,
  reply: FastifyReply,
) {
  const interaction = await provider.interactionDetails(request.raw, reply.raw);
  // The cookie names the interaction this browser started; the path must be that one.
  if (interaction.uid !== request.params.uid) throw new errors.InvalidRequest('interaction mismatch');

  const signedIn = await tesseraSessionOf(ctx.db, tokenOf(request, ctx.cookieName));
  const finish = async (result: InteractionResults) => {
    reply.hijack();
    // Merged with what this request's earlier interactions gave (the provider's default): a consent
    // keeps the login this request was given, or prompt=login would ask for it again, for ever.
    await provider.interactionFinished(request.raw, reply.raw, result);
  };

  if (!signedIn) return reply.redirect(signInPathFor(interaction.uid, interaction.params.login_hint), 303);

  const { prompt, params } = interaction;
  const client = await findOidcClient(ctx.db, String(params.client_id));
  if (!client) throw new errors.InvalidClient('the client is no longer registered');
  if (prompt.name === 'login') {
    const reasons = new Set(prompt.reasons);
    const enrolled = await hasSecondFactor(ctx.db, signedIn.userId);
    // A password typed again (an account without a second factor) is not a second factor.
    const mfaAt = enrolled && signedIn.mfaAt ? Date.parse(signedIn.mfaAt) : null;
    const provenAt = Math.max(Date.parse(signedIn.signedInAt), signedIn.mfaAt ? Date.parse(signedIn.mfaAt) : 0);
    const wantsMfa =
      reasons.has('essential_acr') ||
      reasons.has('essential_acrs') ||
      mfaDemanded(isTrue(client.require_mfa), params.acr_values);
    // prompt=login and max_age want a proof given for this very request.
    const wantsFresh = reasons.has('login_prompt') || reasons.has('max_age');
    // Both instants come from this server's clock; the request's is whole seconds.
    const requestStarted = interaction.iat * 1000;
    if (wantsMfa && !enrolled) {
      return finish({
        error: 'access_denied',
        error_description: 'this application requires two-step verification, which the account has not turned on',
      });
    }
    const freshEnough = !wantsFresh || provenAt >= requestStarted;
    const strongEnough = !wantsMfa || (mfaAt !== null && (!wantsFresh || mfaAt >= requestStarted));
    if (!freshEnough || !strongEnough) return reply.redirect(stepUpPathFor(interaction.uid), 303);
    return finish({
      login: {
        accountId: signedIn.userId,
        acr: mfaAt !== null ? ACR.mfa : ACR.password,
        amr: amrOf(mfaAt !== null, signedIn.mfaAmr),
        ts: Math.floor(provenAt / 1000),
      },
    });
  }

  if (prompt.name === 'consent') {
    // The provider's session and ours must be the same person, or this is not their consent to give.
    if (interaction.session?.accountId !== signedIn.userId) {
      const restart = restartPathOf(provider, interaction);
      if (!restart) {
        return finish({
          error: 'login_required',
          error_description: 'the signed-in account changed during the request',
        });
      }
      // The earlier account's provider session goes, as its sign-out would have taken it, and with
      // it this interaction; the request starts again, and signs in the account signed in now.
      if (interaction.session?.cookie)
        await endSupersededSession(ctx.db, provider, interaction.session.cookie, request.log);
      await interaction.destroy();
      return reply.redirect(restart, 303);
    }
    // A partner asks the person, on our consent screen.
    if (!isFirstParty(client)) return reply.redirect(consentPathFor(interaction.uid), 303);
    const grantId = await grantMissing(provider, interaction, signedIn.userId);
    return finish({ consent: { grantId } });
  }

  throw new errors.InvalidRequest(`unsupported interaction: ${prompt.name}`);
}

/** RFC 8176's amr of a sign-in: the password, how a second factor was given where the session says
 * more (a passkey's hwk or swk), and mfa. A passkey sign-in that verified its user ('… user') had no
 * password: the key and the user's verification are its two factors. */
export function amrOf(secondFactor: boolean, mfaAmr: string | null): string[] {
  if (!secondFactor) return ['pwd'];
  const given = mfaAmr ? mfaAmr.split(' ') : [];
  return [...(given.includes('user') ? [] : ['pwd']), ...given, 'mfa'];
}
