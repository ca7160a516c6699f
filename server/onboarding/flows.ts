// Onboarding flows: a row per person in the middle of activating a card or an invitation, held by
// the browser as an opaque token (stored hashed) and dead after ONBOARDING_TTL_SECONDS or once the
// account exists. An unknown, expired and finished token all read the same.
import type { Selectable } from 'kysely';
import type { MarketingPreferences } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import type { OnboardingFlowsTable } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { hashToken, newId, newToken } from '../sessions/tokens.ts';

export type Flow = Selectable<OnboardingFlowsTable>;

export async function openFlow(ctx: AppContext, token: string): Promise<Flow> {
  const flow = await ctx.db
    .selectFrom('onboarding_flows')
    .selectAll()
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (!flow || flow.completed_at !== null || flow.expires_at <= nowIso()) throw new ApiError('onboarding_expired');
  return flow;
}

/** The marketing preferences chosen with the terms (none before). */
export function marketingOf(flow: Pick<Flow, 'marketing'>): MarketingPreferences {
  return flow.marketing
    ? (JSON.parse(flow.marketing) as MarketingPreferences)
    : { email: false, sms: false, partners: false };
}

export async function createFlow(
  ctx: AppContext,
  values: {
    source: 'card' | 'invitation';
    cardId?: string;
    invitationId?: string;
    language: string;
    ip: string;
    firstname: string | null;
    lastname: string | null;
    email: string | null;
    emailVerified: boolean;
    phone: string | null;
  },
): Promise<string> {
  const token = newToken();
  const now = Date.now();
  // Abandoned flows go after a day; the index on expires_at keeps this cheap.
  await ctx.db
    .deleteFrom('onboarding_flows')
    .where('expires_at', '<', nowIso(now - 24 * 3600 * 1000))
    .execute();
  await ctx.db
    .insertInto('onboarding_flows')
    .values({
      id: newId(),
      token_hash: hashToken(token),
      source: values.source,
      card_id: values.cardId ?? null,
      invitation_id: values.invitationId ?? null,
      state: 'started',
      firstname: values.firstname,
      lastname: values.lastname,
      language: values.language,
      email: values.email,
      email_verified_at: values.emailVerified ? nowIso(now) : null,
      phone: values.phone,
      phone_verified_at: null,
      terms_accepted_at: null,
      marketing: null,
      ip: values.ip,
      created_at: nowIso(now),
      expires_at: nowIso(now + ctx.config.onboardingTtlSeconds * 1000),
      completed_at: null,
      user_id: null,
      outcome: null,
    })
    .execute();
  return token;
}
