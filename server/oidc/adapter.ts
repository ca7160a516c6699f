// oidc-provider's storage: every model (Session, Grant, AuthorizationCode, RefreshToken, …) in one
// table, oidc_models, keyed by (model, id). oidc-provider makes one adapter per model name.
//
// Spending a code or a refresh token: the provider finds it, refuses it when `consumed` is set, then
// calls `consume`. Two parallel exchanges can both find it unconsumed; `consume` is therefore a
// conditional update, and the call that changes no row throws invalid_grant, which the provider
// answers as a 400 like any other refused grant. Exactly one exchange goes on to issue tokens.
//
// A key holding U+0000 names nothing here: PostgreSQL's text cannot hold the character (the query
// fails, `invalid byte sequence for encoding "UTF8": 0x00`) and nothing stored has one (ids are the
// provider's own, client ids are registered without). Such a key is never sent to the database: a
// look-up finds nothing, as for any unknown id, and the provider answers its usual refusal
// (invalid_client, invalid_grant, invalid_token, invalid_request_uri…), never a server error.
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { isDatabaseUnavailable, nowIso, type Db } from '../db/index.ts';
import { perDatabase, prepared } from '../db/prepared.ts';

/** The database cannot be reached: oidc-provider answers `temporarily_unavailable` with a 503 (the
 * original error is its cause, so our own error handler classifies it as database_unavailable). */
export class OidcStorageUnavailable extends errors.TemporarilyUnavailable {
  constructor(cause: unknown) {
    super('the service is temporarily unavailable, try again later', { cause });
    // 503, still exposed: the client learns to retry, not that something broke.
    Object.assign(this, { status: 503, statusCode: 503, expose: true });
  }
}

/** Labels of the models whose consume spends a grant, for the error a losing exchange gets. */
const CONSUMED_LABEL: Record<string, string> = {
  AuthorizationCode: 'authorization code',
  RefreshToken: 'refresh token',
  DeviceCode: 'device code',
  BackchannelAuthenticationRequest: 'backchannel authentication request',
  PreAuthorizedCode: 'pre-authorized code',
};

/** The error a `consume` that found nothing left to spend throws: the model was spent (or removed or
 * expired) since the provider read it. */
function alreadyConsumed(model: string): Error {
  if (model === 'PushedAuthorizationRequest') {
    // What oidc-provider itself answers for a request_uri used twice.
    return new errors.InvalidRequestUri('request_uri is invalid, expired, or was already used');
  }
  return new errors.InvalidGrant(`${CONSUMED_LABEL[model] ?? model} already consumed`);
}

/** Whether a key cannot name anything stored (see above). */
export function unstorableKey(key: unknown): boolean {
  return typeof key === 'string' && key.includes('\u0000');
}

/** Another store (the clients', clients.ts) behind the same rule: a key holding U+0000 is unknown. */
export function withoutUnstorableKeys(adapter: Adapter): Adapter {
  const none = () => Promise.resolve(undefined);
  return {
    upsert: (id, payload, expiresIn) => adapter.upsert(id, payload, expiresIn),
    find: (id) => (unstorableKey(id) ? none() : adapter.find(id)),
    findByUid: (uid) => (unstorableKey(uid) ? none() : adapter.findByUid(uid)),
    findByUserCode: (userCode) => (unstorableKey(userCode) ? none() : adapter.findByUserCode(userCode)),
    consume: (id) => adapter.consume(id),
    destroy: (id) => (unstorableKey(id) ? Promise.resolve() : adapter.destroy(id)),
    revokeByGrantId: (grantId) => (unstorableKey(grantId) ? Promise.resolve() : adapter.revokeByGrantId(grantId)),
  };
}

export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw new OidcStorageUnavailable(error);
    throw error;
  }
}

type Row = { payload: string; consumed_at: string | null };

function toPayload(row: Row | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  // oidc-provider reads `consumed` (epoch seconds, as its own adapters write it).
  if (row.consumed_at !== null) payload.consumed = Math.floor(Date.parse(row.consumed_at) / 1000);
  return payload;
}

/** The statements every token request runs, compiled once per database (server/db/prepared.ts). */
const statementsOf = perDatabase((db: Db) => {
  const findBy = (column: 'id' | 'uid' | 'user_code') =>
    prepared(
      db,
      (q, model: string, value: string, now: string) =>
        q
          .selectFrom('oidc_models')
          .select(['payload', 'consumed_at'])
          .where('model', '=', model)
          .where(column, '=', value)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])),
      3,
    );
  return {
    find: { id: findBy('id'), uid: findBy('uid'), user_code: findBy('user_code') },
    upsert: prepared(
      db,
      (
        q,
        model: string,
        id: string,
        payload: string,
        grantId: string | null,
        uid: string | null,
        userCode: string | null,
        accountId: string | null,
        clientId: string | null,
        expiresAt: string | null,
        consumedAt: string | null,
      ) =>
        q
          .insertInto('oidc_models')
          .values({
            model,
            id,
            payload,
            grant_id: grantId,
            uid,
            user_code: userCode,
            account_id: accountId,
            client_id: clientId,
            expires_at: expiresAt,
            consumed_at: consumedAt,
          })
          .onConflict((oc) =>
            oc.columns(['model', 'id']).doUpdateSet((eb) => ({
              payload: eb.ref('excluded.payload'),
              grant_id: eb.ref('excluded.grant_id'),
              uid: eb.ref('excluded.uid'),
              user_code: eb.ref('excluded.user_code'),
              account_id: eb.ref('excluded.account_id'),
              client_id: eb.ref('excluded.client_id'),
              expires_at: eb.ref('excluded.expires_at'),
              // Saving again never un-spends a model.
              consumed_at: eb.fn.coalesce('oidc_models.consumed_at', 'excluded.consumed_at'),
            })),
          ),
      10,
    ),
    // A conditional update: of parallel calls exactly one changes the row (and gets it back).
    consume: prepared(
      db,
      (q, now: string, model: string, id: string) =>
        q
          .updateTable('oidc_models')
          .set({ consumed_at: now })
          .where('model', '=', model)
          .where('id', '=', id)
          .where('consumed_at', 'is', null)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
          .returning('id'),
      3,
    ),
  };
});

export class OidcAdapter implements Adapter {
  readonly model: string;
  private readonly db: Db;
  private readonly now: () => number;

  constructor(db: Db, model: string, now: () => number = Date.now) {
    this.db = db;
    this.model = model;
    this.now = now;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const now = this.now();
    // consumed_at is the truth on consumption; a payload saved again must not carry a stale copy.
    const { consumed, ...rest } = payload;
    const row = {
      model: this.model,
      id,
      payload: JSON.stringify(rest),
      grant_id: payload.grantId ?? null,
      uid: payload.uid ?? null,
      user_code: payload.userCode ?? null,
      account_id: typeof payload.accountId === 'string' ? payload.accountId : null,
      client_id: typeof payload.clientId === 'string' ? payload.clientId : null,
      expires_at: expiresIn ? nowIso(now + expiresIn * 1000) : null,
      consumed_at: consumed ? nowIso(now) : null,
    };
    // The keys are the provider's own; one carrying U+0000 came from a request and cannot be kept
    // (the payload can: JSON writes the character as an escape).
    if ([row.id, row.grant_id, row.uid, row.user_code, row.account_id, row.client_id].some(unstorableKey)) {
      throw new errors.InvalidRequest('the request carries a value that cannot be stored');
    }
    await guarded(() =>
      statementsOf(this.db).upsert(
        row.model,
        row.id,
        row.payload,
        row.grant_id,
        row.uid,
        row.user_code,
        row.account_id,
        row.client_id,
        row.expires_at,
        row.consumed_at,
      ),
    );
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.findBy('id', id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findBy('uid', uid);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findBy('user_code', userCode);
  }

  private async findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
    if (unstorableKey(value)) return undefined;
    const [row] = await guarded(() => statementsOf(this.db).find[column](this.model, value, nowIso(this.now())));
    return toPayload(row);
  }

  /** Spends the model once: of parallel calls exactly one updates the row; the others throw. */
  async consume(id: string): Promise<void> {
    // Nothing stored has such an id: nothing left to spend.
    if (unstorableKey(id)) throw alreadyConsumed(this.model);
    const now = nowIso(this.now());
    const spent = await guarded(() => statementsOf(this.db).consume(now, this.model, id));
    if (spent.length === 0) throw alreadyConsumed(this.model);
  }

  async destroy(id: string): Promise<void> {
    if (unstorableKey(id)) return;
    await guarded(() =>
      this.db.deleteFrom('oidc_models').where('model', '=', this.model).where('id', '=', id).execute(),
    );
  }

  /** Removes everything issued under the grant, whatever the model (as oidc-provider's own
   * adapters do); the Grant itself is destroyed by the provider when its policy says so. */
  async revokeByGrantId(grantId: string): Promise<void> {
    if (unstorableKey(grantId)) return;
    await guarded(() => this.db.deleteFrom('oidc_models').where('grant_id', '=', grantId).execute());
  }
}

/** The `adapter` option of oidc-provider's configuration. */
export function oidcAdapterFactory(db: Db, now: () => number = Date.now): AdapterFactory {
  return (model: string) => new OidcAdapter(db, model, now);
}

/** Deletes the rows that have expired; gives how many. */
export async function purgeExpiredOidcModels(db: Db, now = Date.now()): Promise<number> {
  const result = await db.deleteFrom('oidc_models').where('expires_at', '<=', nowIso(now)).executeTakeFirst();
  // Sign-in tickets (loginTickets.ts) go with them: spent or not, an expired one is nothing.
  await db.deleteFrom('login_tickets').where('expires_at', '<=', nowIso(now)).execute();
  return Number(result.numDeletedRows);
}

/** Purges expired rows every `intervalMs` until stopped; a failed pass (database away) is reported
 * and the next one tries again. */
export function startOidcPurge(
  db: Db,
  options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): () => void {
  let running = false;
  const timer = setInterval(
    () => {
      // A pass waiting on a database that hangs does not get company.
      if (running) return;
      running = true;
      purgeExpiredOidcModels(db)
        .catch((error: unknown) => options.onError?.(error))
        .finally(() => {
          running = false;
        });
    },
    options.intervalMs ?? 10 * 60_000,
  );
  timer.unref();
  return () => clearInterval(timer);
}
