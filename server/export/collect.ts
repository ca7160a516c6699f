// Everything the portal holds about an account, for the account itself (GDPR articles 15 and 20):
// one JSON document, without a secret (no password hash, no authenticator secret, no recovery key,
// no session token), each part in the order it happened.
import type { AccessGrant } from '../../contract/schemas.ts';
import { describeAgent, placeOf } from '../clientinfo/index.ts';
import type { Db } from '../db/index.ts';
import { accountRowOf, personalInfoOf } from '../identity/accounts.ts';

/** The access the account gave partner applications (the authorisation server's list). */
export type GrantsOf = (db: Db, accountId: string, locale: string) => Promise<AccessGrant[]>;

const flag = (value: number) => value === 1;
const parsed = (text: string | null) => {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

export async function collectExport(db: Db, userId: string, grantsOf: GrantsOf, now = new Date()) {
  const user = await accountRowOf(db, userId);
  const [
    emails,
    phones,
    methods,
    recoveryKeys,
    devices,
    sessions,
    events,
    consents,
    consentAnswers,
    cards,
    accessRequests,
  ] = await Promise.all([
    db
      .selectFrom('user_emails')
      .select(['value', 'is_default', 'verified', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('user_phones')
      .select(['value', 'is_default', 'verified', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('mfa_methods')
      .select(['id', 'method', 'target', 'is_primary', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
    db.selectFrom('recovery_keys').select(['used_at', 'created_at']).where('user_id', '=', userId).execute(),
    db
      .selectFrom('devices')
      .select(['device_key', 'user_agent', 'first_seen_at', 'last_seen_at', 'trusted_until'])
      .where('user_id', '=', userId)
      .orderBy('first_seen_at')
      .execute(),
    db
      .selectFrom('sessions')
      .select(['created_at', 'last_used_at', 'expires_at', 'revoked_at', 'ip', 'user_agent', 'client_id'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('security_events')
      .select(['type', 'created_at', 'ip', 'detail'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('consents')
      .select(['kind', 'granted', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('consent_answers')
      .select(['client_id', 'scopes', 'approved', 'answered_at'])
      .where('user_id', '=', userId)
      .orderBy('answered_at')
      .execute(),
    db
      .selectFrom('cards')
      .select(['id', 'number', 'activated_at'])
      .where('user_id', '=', userId)
      .orderBy('activated_at')
      .execute(),
    db
      .selectFrom('partner_access_requests')
      .select(['client_id', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
  ]);
  const productStates =
    cards.length === 0
      ? []
      : await db
          .selectFrom('card_product_states')
          .select(['card_id', 'product', 'active', 'updated_at'])
          .where(
            'card_id',
            'in',
            cards.map((c) => c.id),
          )
          .execute();
  const withAgent = <T extends { user_agent: string | null }>(row: T) => ({ ...row, ...describeAgent(row.user_agent) });
  return {
    exported_at: now.toISOString(),
    account: {
      id: user.id,
      ...personalInfoOf(user),
      platform_ids: {
        user_id: user.user_id,
        customer_user_id: user.customer_user_id,
        fridom_user_id: user.fridom_user_id,
      },
      national_register_number: user.national_register_number,
      bank_account: user.iban ? { iban: user.iban, country: user.iban_country } : null,
      password: { status: user.password_status, last_changed_at: user.last_password_change },
      flags: {
        mfa_forced: flag(user.mfa_forced),
        mfa_customer: flag(user.mfa_customer),
        has_sso: flag(user.has_sso),
        sso_only: flag(user.sso_only),
      },
      created_at: user.created_at,
      updated_at: user.updated_at,
    },
    emails: emails.map((e) => ({
      value: e.value,
      primary: flag(e.is_default),
      verified: flag(e.verified),
      added_at: e.created_at,
    })),
    phones: phones.map((p) => ({
      value: p.value,
      primary: flag(p.is_default),
      verified: flag(p.verified),
      added_at: p.created_at,
    })),
    second_factors: methods.map((m) => ({
      id: m.id,
      method: m.method,
      target: m.target,
      primary: flag(m.is_primary),
      added_at: m.created_at,
    })),
    recovery_keys: { total: recoveryKeys.length, unused: recoveryKeys.filter((k) => k.used_at === null).length },
    devices: devices.map((d) => ({ ...withAgent(d), device_key: undefined })),
    sessions: sessions.map((s) => ({ ...withAgent(s), ...placeOf(s.ip) })),
    history: events.map((e) => ({
      type: e.type,
      at: e.created_at,
      ip: e.ip,
      ...placeOf(e.ip),
      detail: parsed(e.detail),
    })),
    consents: consents.map((c) => ({ kind: c.kind, granted: flag(c.granted), at: c.created_at })),
    partner_consents: consentAnswers.map((a) => ({
      client_id: a.client_id,
      scopes: parsed(a.scopes),
      approved: flag(a.approved),
      at: a.answered_at,
    })),
    access_grants: await grantsOf(db, userId, user.language),
    partner_access_requests: accessRequests.map((r) => ({ client_id: r.client_id, at: r.created_at })),
    cards: cards.map((c) => ({
      number: c.number,
      activated_at: c.activated_at,
      switched_products: productStates
        .filter((s) => s.card_id === c.id)
        .map((s) => ({ product: s.product, active: flag(s.active), at: s.updated_at })),
    })),
  };
}
