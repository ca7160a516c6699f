// A partner application's consent (spec §2 `/approve`, §7 `GET /authorize` and send-approval).
// The interaction handler sends the browser to `/approve?uid=…` when the provider needs consent
// from a partner; the app reads the request with GET /api/authorize and answers it with
// POST /api/authorize. The answer is written into the interaction as oidc-provider's own
// `interactionResult` does, and the browser goes back through the provider (`returnTo`), which
// issues the code to the client. The provider's resume endpoint checks its own cookie, so an
// acceptance only takes effect in the browser that started the request. A refusal ends the request
// at once: the interaction is gone, and the answer is the client's error redirect (`access_denied`),
// which the person follows or not.
//
// First-party clients never get here: the interaction handler grants what they ask for at once.
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import { CONSENT_PATH, INTERACTION_PATH } from '../../contract/constants.ts';
import { ApprovalAnswer, ApprovalRequest, AuthorizeAnswer, AuthorizeQuery } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { isTrue } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { requireSession } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { localeOfRequest } from '../http/locale.ts';
import { publicOriginOf } from '../http/origin.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { clientView, findOidcClient } from './clients.ts';
import { claimConsentAnswer } from './consentAnswers.ts';
import type { OidcProviders } from './provider.ts';

type Interaction = InstanceType<Provider['Interaction']>;

/** Where the provider's consent prompt sends a partner's user. */
export function consentPathFor(uid: string): string {
  return `${CONSENT_PATH}?${new URLSearchParams({ uid })}`;
}

/** Adds to the interaction's grant (or a new one) exactly what this request is missing, never what
 * an earlier request carried; gives the grant's id. */
export async function grantMissing(provider: Provider, interaction: Interaction, accountId: string): Promise<string> {
  const clientId = String(interaction.params.client_id);
  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId });
  const { details } = interaction.prompt;
  const missingScopes = details.missingOIDCScope as string[] | undefined;
  const missingClaims = details.missingOIDCClaims as string[] | undefined;
  const missingResources = details.missingResourceScopes as Record<string, string[]> | undefined;
  if (missingScopes) grant.addOIDCScope(missingScopes.join(' '));
  if (missingClaims) grant.addOIDCClaims(missingClaims);
  for (const [indicator, scopes] of Object.entries(missingResources ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  return grant.save();
}

const REFUSAL = { error: 'access_denied', error_description: 'The person did not give consent' };

/** The authorization error response a refusal sends the client, as the provider's own would read
 * (its response mode, the request's state, RFC 9207 `iss`); null where it cannot be a plain
 * redirect (form_post: the provider answers it with a page that posts). */
export function refusalRedirectOf(provider: Provider, interaction: Interaction): string | null {
  const { redirect_uri: redirectUri, response_mode: mode, state } = interaction.params;
  if (typeof redirectUri !== 'string') return null;
  if (mode !== undefined && mode !== 'query' && mode !== 'fragment') return null;
  const payload = { ...REFUSAL, ...(typeof state === 'string' ? { state } : {}), iss: provider.issuer };
  const url = new URL(redirectUri);
  if (mode === 'fragment') url.hash = new URLSearchParams(payload).toString();
  else for (const [name, value] of Object.entries(payload)) url.searchParams.set(name, value);
  return url.href;
}

/** Writes the interaction's outcome, as `provider.interactionResult` does (a consent merged with
 * the login this request was given); gives where the browser goes. */
async function finishInteraction(interaction: Interaction, result: Record<string, unknown>): Promise<string> {
  interaction.result = 'error' in result ? result : { ...interaction.lastSubmission, ...result };
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  return interaction.returnTo;
}

export async function consentRoutes(app: FastifyInstance, ctx: AppContext, providers: OidcProviders) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  /** The interaction, if it is this person's: anyone else's (or none) is the same answer. */
  async function interactionFor(provider: Provider, uid: string, userId: string): Promise<Interaction> {
    const interaction = await provider.Interaction.find(uid);
    if (!interaction || interaction.session?.accountId !== userId) throw new ApiError('authorization_expired');
    return interaction;
  }

  app.get<{ Querystring: AuthorizeQuery }>(
    '/authorize',
    {
      schema: {
        tags: ['partners'],
        summary: 'The partner request waiting for this person: the scopes to approve, or where to go on',
        querystring: jsonSchema(AuthorizeQuery),
        response: responses({ 200: AuthorizeAnswer }, [400, 401, 403, 410, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => {
      const provider = await providers.forRequest(request);
      const interaction = await interactionFor(provider, request.query.uid, request.session!.userId);
      const row = await findOidcClient(ctx.db, String(interaction.params.client_id));
      if (!row) throw new ApiError('authorization_expired');
      const grant = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
      const granted = grant?.getOIDCScope().split(' ').filter(Boolean) ?? [];
      const client = clientView(row, localeOfRequest(request), publicOriginOf(ctx.config, request).origin);
      // Answered already (another tab), or not waiting for consent: the provider decides what is next.
      if (interaction.result) return { client, granted, target: interaction.returnTo };
      if (interaction.prompt.name !== 'consent')
        return { client, granted, target: `${INTERACTION_PATH}/${interaction.uid}` };
      const missing = (interaction.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
      return { client, granted, approvalType: missing };
    },
  );

  app.post<{ Body: ApprovalRequest }>(
    '/authorize',
    {
      schema: {
        tags: ['partners'],
        summary: 'Send-approval: grant the partner what it asked for, or refuse it',
        body: jsonSchema(ApprovalRequest),
        response: responses({ 200: ApprovalAnswer }, [400, 401, 403, 410, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => {
      const provider = await providers.forRequest(request);
      const userId = request.session!.userId;
      const interaction = await interactionFor(provider, request.body.uid, userId);
      if (interaction.result) return { target: interaction.returnTo };
      if (interaction.prompt.name !== 'consent') return { target: `${INTERACTION_PATH}/${interaction.uid}` };
      const clientId = String(interaction.params.client_id);
      const scopes = (interaction.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
      // The first answer stands: its record is the claim, and a second one (a double click, another
      // tab, at the same instant) finds it taken and changes nothing.
      const claimed = await claimConsentAnswer(ctx.db, {
        uid: interaction.uid,
        userId,
        clientId,
        scopes,
        approved: request.body.approve,
      });
      if (!claimed) {
        // Lost to a refusal that is ending the request: its way back is the refusal's.
        const first = await ctx.db
          .selectFrom('consent_answers')
          .select('approved')
          .where('uid', '=', interaction.uid)
          .executeTakeFirst();
        const refusal = first && !isTrue(first.approved) ? refusalRedirectOf(provider, interaction) : null;
        return { target: refusal ?? interaction.returnTo };
      }
      const event = {
        userId,
        ip: request.ip,
        deviceKey: request.deviceKey ?? null,
        detail: { client_id: clientId, scopes, uid: interaction.uid },
      };
      if (!request.body.approve) {
        const refusal = refusalRedirectOf(provider, interaction);
        let target: string;
        if (refusal) {
          // Ended here and now: nothing of the request is left to resume.
          await interaction.destroy();
          target = refusal;
        } else target = await finishInteraction(interaction, REFUSAL);
        await recordEvent(ctx.db, { ...event, type: 'partner_consent_refused' });
        return { target };
      }
      const grantId = await grantMissing(provider, interaction, userId);
      const target = await finishInteraction(interaction, { consent: { grantId } });
      await recordEvent(ctx.db, { ...event, type: 'partner_consent_given' });
      return { target };
    },
  );
}
