// oidc-provider's storage: every model (Session, Grant, AuthorizationCode, RefreshToken, …) in one
// table, oidc_models, keyed by (model, id). oidc-provider makes one adapter per model name.
//
// Spending a code or a refresh token: the provider finds it, refuses it when `consumed` is set, then
// calls `consume`. Two parallel exchanges can both find it unconsumed; `consume` is therefore a
// conditional update, and the call that changes no row throws invalid_grant, which the provider
// answers as a 400 like any other refused grant. Exactly one exchange goes on to issue tokens.
//
// A token request (POST /token, `tokenRequestScope`) costs two round trips: the code or refresh token
// is read with its grant and its account in one statement, and the provider's look-ups of those that
// follow take what it read (in that request only: nothing is kept between requests, so a revocation
// takes effect at once). Its spending and the tokens it issues are written together before the
// answer leaves, all or none (one statement on PostgreSQL, one transaction on SQLite): a code or
// refresh token is spent exactly when the tokens it gave exist. The conditional update above still
// decides between parallel exchanges: the one that spends nothing writes no token, and its answer
// becomes the provider's invalid_grant. A request that fails, or whose tokens cannot be written,
// leaves its code or refresh token unspent, for the client to try again.
//
// A key holding U+0000 names nothing here: PostgreSQL's text cannot hold the character (the query
// fails, `invalid byte sequence for encoding "UTF8": 0x00`) and nothing stored has one (ids are the
// provider's own, client ids are registered without). Such a key is never sent to the database: a
// look-up finds nothing, as for any unknown id, and the provider answers its usual refusal
// (invalid_client, invalid_grant, invalid_token, invalid_request_uri…), never a server error.
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type OnConflictBuilder, type QueryCreator } from 'kysely';
import type { Adapter, AdapterFactory, AdapterPayload, KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { isDatabaseUnavailable, nowIso, type Db } from '../db/index.ts';
import type { Database, OidcModelsTable } from '../db/schema.ts';
import { atOnce, isPostgres, perDatabase, prepared, preparedNow } from '../db/prepared.ts';
import { ACCOUNT_CLAIM_COLUMNS, type AccountClaimsRow } from '../identity/accounts.ts';

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
function alreadyConsumed(model: string): errors.OIDCProviderError {
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

/** A model's row as stored (every column a string or null). */
type ModelRow = { [Column in keyof OidcModelsTable]: OidcModelsTable[Column] };
const MODEL_COLUMNS = [
  'model',
  'id',
  'payload',
  'grant_id',
  'uid',
  'user_code',
  'account_id',
  'client_id',
  'expires_at',
  'consumed_at',
] as const satisfies ReadonlyArray<keyof ModelRow>;

/** Spends a model (a code, a refresh token…) unless it was spent, or is over: of parallel calls
 * exactly one changes the row. */
function spendRow(q: QueryCreator<Database>, now: string, model: string, id: string) {
  return q
    .updateTable('oidc_models')
    .set({ consumed_at: now })
    .where('model', '=', model)
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
}

/** Saves rows, new or not, in one statement. */
function upsertRows(q: QueryCreator<Database>, rows: ModelRow[]) {
  return q.insertInto('oidc_models').values(rows).onConflict(savedOver);
}

/** PostgreSQL: spends a model and saves rows in one statement; the rows are saved only if the model
 * was spent by it (then they come back, else nothing does). */
function spendThenUpsert(q: QueryCreator<Database>, now: string, model: string, id: string, rows: ModelRow[]) {
  const spent = sql<boolean>`exists (select 1 from spent)`;
  return q
    .with('spent', (w) => spendRow(w, now, model, id).returning('id'))
    .insertInto('oidc_models')
    .columns(MODEL_COLUMNS)
    .expression(
      rows
        .map((row) =>
          q.selectNoFrom((eb) => MODEL_COLUMNS.map((column) => eb.val(row[column]).as(column))).where(spent),
        )
        .reduce((all, one) => all.unionAll(one)),
    )
    .onConflict(savedOver)
    .returning('id');
}

/** What saving over a row of the same key sets (in any statement: the spend's WITH adds a table). */
function savedOver(oc: OnConflictBuilder<any, 'oidc_models'>) {
  return oc.columns(['model', 'id']).doUpdateSet((eb) => ({
    payload: eb.ref('excluded.payload'),
    grant_id: eb.ref('excluded.grant_id'),
    uid: eb.ref('excluded.uid'),
    user_code: eb.ref('excluded.user_code'),
    account_id: eb.ref('excluded.account_id'),
    client_id: eb.ref('excluded.client_id'),
    expires_at: eb.ref('excluded.expires_at'),
    // Saving again never un-spends a model.
    consumed_at: eb.fn.coalesce('oidc_models.consumed_at', 'excluded.consumed_at'),
  }));
}

/** `count` rows from a flat list of their columns, row after row. */
const rowsOf = (count: number, values: Array<string | null>) =>
  Array.from(
    { length: count },
    (_, row) =>
      Object.fromEntries(
        MODEL_COLUMNS.map((column, i) => [column, values[row * MODEL_COLUMNS.length + i]]),
      ) as ModelRow,
  );

/** The upsert of `count` rows, compiled once: its arguments are the rows' columns, row after row. */
const upsertOfCount = (db: Db, count: number) =>
  prepared(
    db,
    (q, ...values: Array<string | null>) => upsertRows(q, rowsOf(count, values)),
    count * MODEL_COLUMNS.length,
  );

/** PostgreSQL's spend and upsert of `count` rows, compiled once: its arguments are the spend's time,
 * model and id, then the rows' columns. */
const spendThenUpsertOfCount = (db: Db, count: number) =>
  prepared(
    db,
    (q, now: string, model: string, id: string, ...values: Array<string | null>) =>
      spendThenUpsert(q, now, model, id, rowsOf(count, values)),
    3 + count * MODEL_COLUMNS.length,
  );

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
    /** One row, or the two tokens a grant issues (its access and refresh tokens). */
    upsert: [upsertOfCount(db, 1), upsertOfCount(db, 2), upsertOfCount(db, 3)] as const,
    /** A code or refresh token with, in the same statement, its grant and the open account it names
     * (the grant's columns null when it is gone or over; the account's when it is gone or closed). */
    findWithGrant: prepared(
      db,
      (q, model: string, id: string, now: string) =>
        q
          .selectFrom('oidc_models as source')
          .leftJoin('oidc_models as grant', (join) =>
            join
              .on('grant.model', '=', 'Grant')
              .onRef('grant.id', '=', 'source.grant_id')
              .on((eb) => eb.or([eb('grant.expires_at', 'is', null), eb('grant.expires_at', '>', now)])),
          )
          .leftJoin('users', (join) =>
            join.onRef('users.id', '=', 'source.account_id').on('users.closed_at', 'is', null),
          )
          .select([
            'source.payload',
            'source.consumed_at',
            'source.grant_id',
            'source.account_id',
            'grant.payload as grant_payload',
            'grant.consumed_at as grant_consumed_at',
          ])
          .select((eb) => ACCOUNT_CLAIM_COLUMNS.map((column) => eb.ref(`users.${column}`).as(`claim_${column}`)))
          .where('source.model', '=', model)
          .where('source.id', '=', id)
          .where((eb) => eb.or([eb('source.expires_at', 'is', null), eb('source.expires_at', '>', now)])),
      3,
    ),
    // A conditional update: of parallel calls exactly one changes the row (and gets it back).
    consume: prepared(
      db,
      (q, now: string, model: string, id: string) => spendRow(q, now, model, id).returning('id'),
      3,
    ),
    /** PostgreSQL: a code or refresh token spent with the one to three rows its grant issues. */
    spendThenUpsert: isPostgres(db) ? [1, 2, 3].map((count) => spendThenUpsertOfCount(db, count)) : [],
    /** SQLite: the same as two statements of one transaction, run at once (`atOnce`). */
    now: isPostgres(db)
      ? null
      : {
          spend: preparedNow(
            db,
            (q, now: string, model: string, id: string) => spendRow(q, now, model, id).returning('id'),
            3,
          ),
          upsert: [1, 2, 3].map((count) =>
            preparedNow(
              db,
              (q, ...values: Array<string | null>) => upsertRows(q, rowsOf(count, values)),
              count * MODEL_COLUMNS.length,
            ),
          ),
        },
  };
});

/** What one token request read along with its code or refresh token, and the tokens it issued. */
type TokenRequest = {
  /** Grants read with the code or token naming them, by id (null: none live), each taken once. */
  grants: Map<string, AdapterPayload | null>;
  /** Accounts read likewise, by id (null: none open), each taken once. */
  accounts: Map<string, AccountClaimsRow | null>;
  /** Tokens issued, written together before the answer. */
  issued: { db: Db; row: ModelRow }[];
  /** The code or refresh token the provider spent, spent with them. */
  spent: { db: Db; at: string; model: string; id: string } | null;
};
const tokenRequests = new AsyncLocalStorage<TokenRequest>();

/** The models a grant is spent from: read with their grant and account in a token request. */
const GRANT_SOURCES = new Set(['AuthorizationCode', 'RefreshToken']);
/** A refresh grant's answer, kept for its repeat (refreshRepeat.ts): written with the tokens it names. */
export const REFRESH_ANSWER = 'RefreshAnswer';
/** The tokens a token request issues, and the answer that names them: written together before it leaves. */
const ISSUED = new Set(['AccessToken', 'RefreshToken', REFRESH_ANSWER]);

/** The open account a code or refresh token of this token request was read with: its row, null when
 * there is none, undefined when it was not read (or was taken already). */
export function accountReadAlong(accountId: string): AccountClaimsRow | null | undefined {
  const request = tokenRequests.getStore();
  const account = request?.accounts.get(accountId);
  request?.accounts.delete(accountId);
  return account;
}

/** The answer of a token request whose tokens could not be written: what the provider answers when
 * the database is away (OidcStorageUnavailable), or a server error. */
function unkeptTokens(ctx: KoaContextWithOIDC, error: unknown): void {
  const unavailable = isDatabaseUnavailable(error);
  ctx.status = unavailable ? 503 : 500;
  ctx.body = unavailable
    ? { error: 'temporarily_unavailable', error_description: new OidcStorageUnavailable(error).message }
    : { error: 'server_error', error_description: 'oops! something went wrong' };
  if (!unavailable) ctx.app.emit('server_error', ctx, error);
}

/** Koa middleware of the provider, before its routes (provider.ts): a token request reads and writes
 * as the top of this file says. Its spending and its tokens are written after the provider made its
 * answer and before the answer leaves; if they cannot be, the answer is an error instead, and no
 * token it named exists. An answer that is an error hands out no token and spends nothing: what was
 * issued or spent before it is not written. */
export function tokenRequestScope() {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    if (ctx.method !== 'POST' || ctx.path !== '/token') return next();
    const request: TokenRequest = { grants: new Map(), accounts: new Map(), issued: [], spent: null };
    await tokenRequests.run(request, next);
    if (ctx.status >= 400) return;
    try {
      if (await keep(request)) return;
      // Another exchange spent the code or refresh token first: its tokens are the ones that exist.
      const refused = alreadyConsumed(request.spent!.model);
      ctx.status = refused.statusCode;
      ctx.body = { error: refused.error, error_description: refused.error_description };
    } catch (error) {
      unkeptTokens(ctx, error);
    }
  };
}

const valuesOf = (row: ModelRow) => MODEL_COLUMNS.map((column) => row[column]);

/** Writes what a token request spent and issued, all or none; false when what it spent was spent
 * already (nothing is written then). */
async function keep({ issued, spent }: TokenRequest): Promise<boolean> {
  const rows = issued.map((one) => one.row);
  const values = rows.flatMap(valuesOf) as [];
  if (!spent) {
    if (rows.length === 0) return true;
    const { db } = issued[0]!;
    const counted = statementsOf(db).upsert[rows.length - 1];
    if (counted) await counted(...values);
    else await upsertRows(db, rows).execute();
    return true;
  }
  const { db, at, model, id } = spent;
  const statements = statementsOf(db);
  if (rows.length === 0) return (await statements.consume(at, model, id)).length > 0;
  const together = statements.spendThenUpsert[rows.length - 1];
  if (together) return (await together(at, model, id, ...values)).length > 0;
  if (isPostgres(db)) return (await spendThenUpsert(db, at, model, id, rows).execute()).length > 0;
  // SQLite has no UPDATE in a WITH: one transaction, at once when the connection is free.
  const upsertNow = statements.now?.upsert[rows.length - 1];
  const done =
    upsertNow &&
    atOnce(db, () => {
      if (statements.now!.spend(at, model, id).length === 0) return false;
      upsertNow(...values);
      return true;
    });
  if (done) return done.value;
  return db.transaction().execute(async (trx) => {
    if ((await spendRow(trx, at, model, id).returning('id').execute()).length === 0) return false;
    await upsertRows(trx, rows).execute();
    return true;
  });
}

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
    const row: ModelRow = {
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
    const request = tokenRequests.getStore();
    if (request && ISSUED.has(this.model)) {
      request.issued.push({ db: this.db, row });
      return;
    }
    const [one] = statementsOf(this.db).upsert;
    await guarded(() => one(...(valuesOf(row) as [])));
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    const request = tokenRequests.getStore();
    if (request && !unstorableKey(id)) {
      if (GRANT_SOURCES.has(this.model)) return this.findWithGrant(request, id);
      const grant = this.model === 'Grant' ? request.grants.get(id) : undefined;
      if (grant !== undefined) {
        request.grants.delete(id);
        return Promise.resolve(grant ?? undefined);
      }
    }
    return this.findBy('id', id);
  }

  /** A code or refresh token, its grant and its account in one statement; the grant and the account
   * wait in the request for the provider's look-ups of them, which follow. */
  private async findWithGrant(request: TokenRequest, id: string): Promise<AdapterPayload | undefined> {
    const [row] = await guarded(() => statementsOf(this.db).findWithGrant(this.model, id, nowIso(this.now())));
    if (!row) return undefined;
    if (row.grant_id !== null) {
      const grant =
        row.grant_payload === null ? undefined : { payload: row.grant_payload, consumed_at: row.grant_consumed_at };
      request.grants.set(row.grant_id, toPayload(grant) ?? null);
    }
    if (row.account_id !== null) {
      const account =
        row.claim_id === null
          ? null
          : (Object.fromEntries(
              ACCOUNT_CLAIM_COLUMNS.map((column) => [column, row[`claim_${column}`]]),
            ) as AccountClaimsRow);
      request.accounts.set(row.account_id, account);
    }
    return toPayload(row);
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

  /** Spends the model once: of parallel calls exactly one updates the row; the others throw. In a
   * token request, a code or refresh token is spent with the tokens it gives (tokenRequestScope). */
  async consume(id: string): Promise<void> {
    // Nothing stored has such an id: nothing left to spend.
    if (unstorableKey(id)) throw alreadyConsumed(this.model);
    const request = tokenRequests.getStore();
    if (request && GRANT_SOURCES.has(this.model) && !request.spent) {
      request.spent = { db: this.db, at: nowIso(this.now()), model: this.model, id };
      return;
    }
    const now = nowIso(this.now());
    const spent = await guarded(() => statementsOf(this.db).consume(now, this.model, id));
    if (spent.length === 0) throw alreadyConsumed(this.model);
  }

  async destroy(id: string): Promise<void> {
    if (unstorableKey(id)) return;
    if (this.model === 'Grant') tokenRequests.getStore()?.grants.delete(id);
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
