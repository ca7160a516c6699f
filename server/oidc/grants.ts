// The access partner applications hold on an account (spec §2 /user/access, §3 "Access grant"):
// oidc-provider's Grant rows of the account, one entry per client, and revoking them.
//
// A grant's "last used" is the newest token issued under it that is still on record (an access or
// refresh token's `iat`); expired tokens are purged, so an application unused for longer than its
// refresh tokens live shows none.
import type { AccessGrant } from '../../contract/schemas.ts';
import { nowIso, type Db } from '../db/index.ts';
import { guarded } from './adapter.ts';
import { clientNameIn, jsonColumn, type OidcClientRow } from './clients.ts';
import { logoUriOf } from './logos.ts';

/** The models that count as a use of a grant. */
const USE_MODELS = ['AccessToken', 'RefreshToken'] as const;

type GrantPayload = { clientId?: unknown; iat?: unknown; openid?: { scope?: unknown } };

const epochSeconds = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

type Entry = { clientId: string; scopes: Set<string>; grantedAt: number; lastUsed: number | null };

/** The account's live grants, one per client (several grants of one client merged: the union of
 * their scopes, the first grant, the last use), named in the locale and sorted by name, their logos
 * under `origin` (the configured one). Grants of clients no longer registered are left out. */
export async function listAccessGrants(
  db: Db,
  accountId: string,
  locale: string,
  origin: string,
  now = Date.now(),
): Promise<AccessGrant[]> {
  const grants = await guarded(() =>
    db
      .selectFrom('oidc_models')
      .select(['id', 'client_id', 'payload'])
      .where('model', '=', 'Grant')
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso(now))]))
      .execute(),
  );
  if (grants.length === 0) return [];

  const grantIds = grants.map((grant) => grant.id);
  const uses = await guarded(() =>
    db
      .selectFrom('oidc_models')
      .select(['grant_id', 'payload'])
      .where('grant_id', 'in', grantIds)
      .where('model', 'in', [...USE_MODELS])
      .execute(),
  );
  const lastUseOf = new Map<string, number>();
  for (const use of uses) {
    const iat = epochSeconds(jsonColumn<GrantPayload>(use.payload, {}).iat);
    if (iat === null || use.grant_id === null) continue;
    lastUseOf.set(use.grant_id, Math.max(lastUseOf.get(use.grant_id) ?? iat, iat));
  }

  const byClient = new Map<string, Entry>();
  for (const grant of grants) {
    const payload = jsonColumn<GrantPayload>(grant.payload, {});
    const clientId = grant.client_id ?? (typeof payload.clientId === 'string' ? payload.clientId : null);
    if (!clientId) continue;
    const scope = typeof payload.openid?.scope === 'string' ? payload.openid.scope : '';
    const grantedAt = epochSeconds(payload.iat) ?? Math.floor(now / 1000);
    const lastUsed = lastUseOf.get(grant.id) ?? null;
    const entry = byClient.get(clientId) ?? { clientId, scopes: new Set<string>(), grantedAt, lastUsed };
    for (const name of scope.split(' ')) if (name && name !== 'openid') entry.scopes.add(name);
    entry.grantedAt = Math.min(entry.grantedAt, grantedAt);
    if (lastUsed !== null) entry.lastUsed = Math.max(entry.lastUsed ?? lastUsed, lastUsed);
    byClient.set(clientId, entry);
  }

  const clients = await guarded(() =>
    db
      .selectFrom('oauth_clients')
      .select(['client_id', 'name', 'names', 'logo_version'])
      .where('client_id', 'in', [...byClient.keys()])
      .execute(),
  );
  const rows = new Map<string, Pick<OidcClientRow, 'client_id' | 'name' | 'names' | 'logo_version'>>(
    clients.map((row) => [row.client_id, row]),
  );
  const collator = new Intl.Collator(locale.replace('_', '-'), { sensitivity: 'base' });
  return [...byClient.values()]
    .flatMap((entry): AccessGrant[] => {
      const row = rows.get(entry.clientId);
      if (!row) return [];
      return [
        {
          client_id: entry.clientId,
          name: clientNameIn(row, locale),
          logo_uri: logoUriOf(origin, row),
          scopes: [...entry.scopes],
          granted_at: iso(entry.grantedAt),
          last_used_at: entry.lastUsed === null ? null : iso(entry.lastUsed),
        },
      ];
    })
    .sort((a, b) => collator.compare(a.name, b.name) || a.client_id.localeCompare(b.client_id));
}

/** Whether the account holds a live grant of the client (it gave the client access). */
export async function hasAccessGrant(db: Db, accountId: string, clientId: string, now = Date.now()): Promise<boolean> {
  const row = await guarded(() =>
    db
      .selectFrom('oidc_models')
      .select('id')
      .where('model', '=', 'Grant')
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso(now))]))
      .executeTakeFirst(),
  );
  return row !== undefined;
}

/** Revokes every live grant the account gave the client, and everything issued under them (codes,
 * access and refresh tokens), in one transaction. Gives how many grants it removed: 0 when the
 * account had none for that client. Of parallel calls exactly one removes them: the Grant rows'
 * deletion decides (on PostgreSQL the others wait on the rows and then find them gone). */
export async function revokeAccessGrants(
  db: Db,
  accountId: string,
  clientId: string,
  now = Date.now(),
): Promise<number> {
  return guarded(() =>
    db.transaction().execute(async (trx) => {
      // Live grants only, as the list shows them: an expired one is no access (the purge removes it).
      const removed = await trx
        .deleteFrom('oidc_models')
        .where('model', '=', 'Grant')
        .where('account_id', '=', accountId)
        .where('client_id', '=', clientId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowIso(now))]))
        .returning('id')
        .execute();
      if (removed.length === 0) return 0;
      await trx
        .deleteFrom('oidc_models')
        .where(
          'grant_id',
          'in',
          removed.map((grant) => grant.id),
        )
        .execute();
      return removed.length;
    }),
  );
}
