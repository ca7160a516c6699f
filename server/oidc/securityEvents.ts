// Security events pushed to partners (OpenID Shared Signals: RFC 8417 security event tokens,
// delivered by push, RFC 8935). A partner that holds a person's tokens hears when that person's
// security changes, without polling:
// - CAEP session-revoked: signed out everywhere (or other sessions, or one device), or the person
//   revoked the partner's access;
// - CAEP credential-change: the password changed, a second factor added or removed;
// - RISC account-disabled: the account a merge closed.
// Only a client registered with an events endpoint (CLI: --events-endpoint, --events-token) hears,
// and only of an account it holds a grant for (the client whose access was revoked: of that
// revocation). Each token is queued in the durable outbox with the event, signed when it is
// delivered, with retries; the subject is `iss_sub`, with the `sub` the client receives.
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { DeliveryUnavailable, type Delivery, type Message } from '../delivery/index.ts';
import type { SecurityEvent } from '../events/record.ts';
import { decryptSecret } from '../config/secrets.ts';
import type { SigningJwk } from './keys.ts';
import { OIDC_PREFIX } from './provider.ts';

const CAEP = 'https://schemas.openid.net/secevent/caep/event-type';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type';
export const SET_TYPES = {
  sessionRevoked: `${CAEP}/session-revoked`,
  credentialChange: `${CAEP}/credential-change`,
  accountDisabled: `${RISC}/account-disabled`,
} as const;

/** A SET waits a day in the outbox at most: a partner down longer learns it from the history. */
const SET_TTL_S = 24 * 3600;

/** CAEP's credential types, by our method kinds. */
const CREDENTIAL_TYPE: Record<string, string> = {
  passkey: 'fido2-platform',
  totp: 'app',
  sms: 'phone-sms',
  call: 'phone-voice',
  whatsapp: 'phone-sms',
  email: 'app',
  card: 'app',
};

type SetEvent = { type: string; detail: Record<string, unknown>; userId: string; onlyClient?: string };

/** The security events a partner hears of, for a recorded event (none for most). */
export function setEventsOf(event: SecurityEvent): SetEvent[] {
  if (!event.userId) return [];
  const userId = event.userId;
  switch (event.type) {
    case 'logout_everywhere':
    case 'logout_others':
    case 'device_logged_out':
      return [{ type: SET_TYPES.sessionRevoked, detail: {}, userId }];
    case 'partner_access_revoked':
      return [
        {
          type: SET_TYPES.sessionRevoked,
          detail: { reason_admin: { en: 'the person revoked the access' } },
          userId,
          onlyClient: String(event.detail?.client_id ?? ''),
        },
      ];
    case 'password_changed':
      return [
        { type: SET_TYPES.credentialChange, detail: { credential_type: 'password', change_type: 'update' }, userId },
      ];
    case 'mfa_method_added':
    case 'mfa_method_removed':
      return [
        {
          type: SET_TYPES.credentialChange,
          detail: {
            credential_type: CREDENTIAL_TYPE[String(event.detail?.method)] ?? 'app',
            change_type: event.type === 'mfa_method_added' ? 'create' : 'delete',
          },
          userId,
        },
      ];
    case 'account_merged_away':
      return [{ type: SET_TYPES.accountDisabled, detail: {}, userId }];
    default:
      return [];
  }
}

/** The clients with an events endpoint that hold a grant for the account (its grants moved to the
 * survivor of a merge: then the survivor's). */
async function listeningClients(db: Db, accountIds: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('oidc_models')
    .innerJoin('oauth_clients', 'oauth_clients.client_id', 'oidc_models.client_id')
    .select('oauth_clients.client_id')
    .distinct()
    .where('oidc_models.model', '=', 'Grant')
    .where('oidc_models.account_id', 'in', accountIds)
    .where((eb) => eb.or([eb('oidc_models.expires_at', 'is', null), eb('oidc_models.expires_at', '>', nowIso())]))
    .where('oauth_clients.events_endpoint', 'is not', null)
    .execute();
  return rows.map((row) => row.client_id);
}

/** Queues the SETs of recorded events for the partners that hear of them. */
export async function queueSecurityEvents(
  ctx: Pick<AppContext, 'db' | 'config' | 'outbox'>,
  events: SecurityEvent[],
): Promise<void> {
  const sets = events.flatMap((event) => setEventsOf(event).map((set) => ({ set, event })));
  if (sets.length === 0) return;
  const issuer = `${ctx.config.publicOrigins.be}${OIDC_PREFIX}`;
  for (const { set, event } of sets) {
    const survivor = event.type === 'account_merged_away' ? String(event.detail?.survivor_account ?? '') : null;
    const clients = set.onlyClient
      ? await clientsWithEndpoint(ctx.db, [set.onlyClient])
      : await listeningClients(ctx.db, [set.userId, ...(survivor ? [survivor] : [])]);
    for (const clientId of clients) {
      const claims = {
        iss: issuer,
        aud: clientId,
        jti: randomUUID(),
        iat: Math.floor(Date.now() / 1000),
        sub_id: { format: 'iss_sub', iss: issuer, sub: set.userId },
        events: { [set.type]: { ...set.detail, event_timestamp: Math.floor(Date.now() / 1000) } },
      };
      await ctx.outbox.enqueue(ctx.db, {
        channel: 'set',
        to: clientId,
        subject: set.type,
        body: JSON.stringify(claims),
        ttlSeconds: SET_TTL_S,
      });
    }
  }
  ctx.outbox.kick();
}

async function clientsWithEndpoint(db: Db, clientIds: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('oauth_clients')
    .select('client_id')
    .where('client_id', 'in', clientIds)
    .where('events_endpoint', 'is not', null)
    .execute();
  return rows.map((row) => row.client_id);
}

/** Delivers a queued SET: signed now with the provider's current key, pushed to the client's
 * endpoint with its bearer token (RFC 8935: 202 Accepted). A client gone, or its endpoint removed,
 * drops it. */
export function setDelivery(
  db: Db,
  config: Pick<AppContext['config'], 'secretKey'>,
  signingKey: () => SigningJwk,
): Delivery {
  return {
    async send(message: Message) {
      const client = await db
        .selectFrom('oauth_clients')
        .select(['events_endpoint', 'events_token'])
        .where('client_id', '=', message.to)
        .executeTakeFirst();
      if (!client?.events_endpoint) return;
      const jwk = signingKey();
      const token = await new SignJWT(JSON.parse(message.body) as Record<string, unknown>)
        .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid, typ: 'secevent+jwt' })
        .sign(await importJWK(jwk, jwk.alg));
      const response = await fetch(client.events_endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/secevent+jwt',
          accept: 'application/json',
          ...(client.events_token
            ? { authorization: `Bearer ${decryptSecret(config.secretKey, client.events_token)}` }
            : {}),
        },
        body: token,
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) throw new DeliveryUnavailable(`the events endpoint answered ${response.status}`);
    },
  };
}
