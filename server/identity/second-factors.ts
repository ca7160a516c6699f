// The account's second factors (mfa_methods): listed, added, removed and made primary under the
// account's rules. The sign-in lists them, MFA manages them, the demo data and the tests add them.
import { randomInt } from 'node:crypto';
import { NEW_METHOD_IDS } from '../../contract/constants.ts';
import type { MfaMethodKind, MfaMethodSummary } from '../../contract/schemas.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { ApiError } from '../http/errors.ts';
import { lockUser } from '../db/locks.ts';
import { activationOf, describeMethod, sendsCodes } from '../methods/index.ts';
import type { MethodRow } from '../methods/method.ts';

export type MfaMethodRow = {
  id: number;
  user_id: string;
  method: string;
  target: string | null;
  secret: string | null;
  is_primary: number;
  last_step: number | null;
  /** For a card method: the last four digits of each activated card. */
  card_endings?: string[];
  /** For a passkey: what its owner sees of it. */
  passkey?: PasskeySummary;
};

type PasskeySummary = NonNullable<MethodRow['passkey']>;

export async function methodsOf(db: Db, userId: string): Promise<MfaMethodRow[]> {
  const rows = await db
    .selectFrom('mfa_methods')
    .select(['id', 'user_id', 'method', 'target', 'secret', 'is_primary', 'last_step'])
    .where('user_id', '=', userId)
    .orderBy('is_primary', 'desc')
    .orderBy('created_at')
    .execute();
  // A card method takes the number of any of the account's activated cards: their endings name them.
  const endings = rows.some((row) => row.method === 'card') ? await cardEndingsOf(db, userId) : [];
  const passkeys = rows.some((row) => row.method === 'passkey') ? await passkeysOf(db, userId) : new Map();
  return rows.map((row) => {
    const id = Number(row.id);
    const passkey = passkeys.get(id);
    return {
      ...row,
      id,
      last_step: row.last_step === null ? null : Number(row.last_step),
      ...(row.method === 'card' ? { card_endings: endings } : {}),
      ...(passkey ? { passkey } : {}),
    };
  });
}

async function passkeysOf(db: Db, userId: string): Promise<Map<number, PasskeySummary>> {
  const rows = await db
    .selectFrom('passkeys')
    .innerJoin('mfa_methods', 'mfa_methods.id', 'passkeys.method_id')
    .select(['passkeys.method_id', 'name', 'aaguid', 'passkeys.created_at', 'last_used_at', 'synced'])
    .where('mfa_methods.user_id', '=', userId)
    .execute();
  return new Map(
    rows.map((row) => [
      Number(row.method_id),
      {
        name: row.name,
        aaguid: row.aaguid,
        created_at: row.created_at,
        last_used_at: row.last_used_at,
        synced: Number(row.synced) === 1,
      },
    ]),
  );
}

/** Names one of the account's passkeys; false when the account has no such passkey. */
export async function renamePasskey(db: Db, userId: string, id: number, name: string): Promise<boolean> {
  const renamed = await db
    .updateTable('passkeys')
    .set({ name })
    .where('method_id', '=', id)
    .where('method_id', 'in', (eb) =>
      eb.selectFrom('mfa_methods').select('id').where('user_id', '=', userId).where('method', '=', 'passkey'),
    )
    .executeTakeFirst();
  return Number(renamed.numUpdatedRows) === 1;
}

async function cardEndingsOf(db: Db, userId: string): Promise<string[]> {
  const cards = await db
    .selectFrom('cards')
    .select('number')
    .where('user_id', '=', userId)
    .where('activated_at', 'is not', null)
    .orderBy('activated_at', 'desc')
    .execute();
  return cards.map((card) => card.number.slice(-4));
}

export async function methodOf(db: Db, userId: string, id: number): Promise<MfaMethodRow | null> {
  return (await methodsOf(db, userId)).find((m) => m.id === id) ?? null;
}

export function summary(method: MfaMethodRow): MfaMethodSummary {
  return describeMethod(method);
}

/** The kinds a user can still add, by their negative id (GET /mfa?includeAll): a kind held once per
 * account (its method says so: the authenticator) only while the account has none. */
export function addable(methods: MfaMethodRow[]): Array<{ id: number; method: MfaMethodKind }> {
  return (Object.entries(NEW_METHOD_IDS) as Array<[MfaMethodKind, number]>)
    .filter(([kind]) => !activationOf(kind)?.single || !methods.some((m) => m.method === kind))
    .map(([method, id]) => ({ id, method }))
    .toSorted((a, b) => b.id - a.id);
}

/** Adds a method and returns its id: a random positive number (portable, not guessable in order).
 * Adding a kind and target the user already has returns the existing method. */
export async function addMethod(
  db: Db,
  input: {
    userId: string;
    method: string;
    target?: string | null;
    secret?: string | null;
    primary?: boolean;
    lastStep?: number | null;
  },
): Promise<number> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const id = randomInt(1, 2 ** 31 - 1);
    // DO NOTHING rather than an error: a failed statement would abort a PostgreSQL transaction.
    const inserted = await db
      .insertInto('mfa_methods')
      .values({
        id,
        user_id: input.userId,
        method: input.method,
        target: input.target ?? null,
        secret: input.secret ?? null,
        is_primary: input.primary ? 1 : 0,
        last_step: input.lastStep ?? null,
        created_at: nowIso(),
      })
      .onConflict((c) => c.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return id;
    if (input.target) {
      const same = await db
        .selectFrom('mfa_methods')
        .select('id')
        .where('user_id', '=', input.userId)
        .where('method', '=', input.method)
        .where('target', '=', input.target)
        .executeTakeFirst();
      if (same) return Number(same.id);
    }
  }
  throw new Error('could not allocate an MFA method id');
}

/** Codes to these methods are how an account is recovered: the last of them stays (spec §5). */
const isEmailOrSms = (m: { method: string }) => m.method === 'email' || m.method === 'sms';

/** Removes a method, keeping the account's rules: the last email or SMS method stays, a forced
 * account keeps a second factor, and a primary is always left (the named one, else the backup:
 * the oldest email or phone method, else the oldest other). */
export async function removeMethod(
  db: Db,
  input: { userId: string; id: number; newPrimary?: number; forced: boolean },
): Promise<MfaMethodRow> {
  return db.transaction().execute(async (trx) => {
    // The rules count the account's methods: the count must be the one the deletion acts on, so
    // thirty simultaneous deletions of two methods leave one.
    await lockUser(trx, input.userId);
    const methods = await methodsOf(trx, input.userId);
    const method = methods.find((m) => m.id === input.id);
    if (!method || method.method === 'totpRecovery') throw new ApiError('not_found');
    if (isEmailOrSms(method) && methods.filter(isEmailOrSms).length === 1) throw new ApiError('last_method');
    const others = methods.filter((m) => m.id !== method.id && m.method !== 'totpRecovery');
    if (others.length === 0 && input.forced) throw new ApiError('last_method');
    let primary: MfaMethodRow | undefined;
    if (input.newPrimary !== undefined) {
      primary = others.find((m) => m.id === input.newPrimary);
      if (!primary) throw new ApiError('not_found');
    } else if (method.is_primary === 1) {
      primary = others.find((m) => sendsCodes(m.method)) ?? others[0];
    }
    await trx.deleteFrom('mfa_methods').where('id', '=', method.id).execute();
    if (method.method === 'totp') {
      // The keys stand in for the authenticator: they go with it.
      await trx
        .deleteFrom('mfa_methods')
        .where('user_id', '=', input.userId)
        .where('method', '=', 'totpRecovery')
        .execute();
      await trx.deleteFrom('recovery_keys').where('user_id', '=', input.userId).execute();
    }
    if (primary) await setPrimary(trx, input.userId, primary.id);
    return method;
  });
}

/** Makes one method the user's only primary. */
export async function setPrimary(db: Db, userId: string, id: number): Promise<void> {
  await db
    .updateTable('mfa_methods')
    .set({ is_primary: 0 })
    .where('user_id', '=', userId)
    .where('id', '!=', id)
    .execute();
  await db
    .updateTable('mfa_methods')
    .set({ is_primary: 1 })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .execute();
}

/** Makes a method the primary one, one change at a time per account (as removeMethod does). */
export async function switchPrimary(db: Db, userId: string, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockUser(trx, userId);
    await setPrimary(trx, userId, id);
  });
}
