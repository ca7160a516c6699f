// Recovery keys: single-use stand-ins for the authenticator, shown once, stored as keyed hashes.
import { createHmac, randomInt } from 'node:crypto';
import { RECOVERY_KEY_COUNT } from '../../contract/constants.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';
import { describeRow, type ChallengeMethod } from './method.ts';

export { RECOVERY_KEY_COUNT };
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I: keys are typed from paper

function newKey(): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(0, ALPHABET.length)]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

function normalise(key: string): string {
  return key.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

function keyHash(secretKey: string, userId: string, key: string): string {
  return createHmac('sha256', secretKey)
    .update(`recovery:${userId}:${normalise(key)}`)
    .digest('base64url');
}

/** Replaces all of a user's keys with these (old keys stop working). */
export async function storeRecoveryKeys(
  ctx: Pick<AppContext, 'config'>,
  db: Db,
  userId: string,
  keys: string[],
): Promise<void> {
  const now = nowIso();
  await db.deleteFrom('recovery_keys').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_keys')
    .values(
      keys.map((key) => ({
        id: newId(),
        user_id: userId,
        key_hash: keyHash(ctx.config.secretKey, userId, key),
        used_at: null,
        created_at: now,
      })),
    )
    .execute();
}

/** Replaces all of a user's keys with new random ones; returns them, to be shown once. */
export async function issueRecoveryKeys(ctx: Pick<AppContext, 'config'>, db: Db, userId: string): Promise<string[]> {
  const keys = Array.from({ length: RECOVERY_KEY_COUNT }, newKey);
  await storeRecoveryKeys(ctx, db, userId, keys);
  return keys;
}

/** New keys in place of the old ones, all or nothing; returns them, to be shown once. */
export async function regenerateRecoveryKeys(
  ctx: Pick<AppContext, 'config' | 'db'>,
  userId: string,
): Promise<string[]> {
  return ctx.db.transaction().execute((trx) => issueRecoveryKeys(ctx, trx, userId));
}

export async function unusedRecoveryKeys(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The id of the user's unused key matching this one, or null (nothing is spent here). */
export async function findRecoveryKey(
  ctx: Pick<AppContext, 'config' | 'db'>,
  userId: string,
  key: string,
): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('recovery_keys')
    .select('id')
    .where('user_id', '=', userId)
    .where('key_hash', '=', keyHash(ctx.config.secretKey, userId, key))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Spends a key found by findRecoveryKey; false when a concurrent use spent it first. */
export async function spendRecoveryKey(db: Db, keyId: string): Promise<boolean> {
  const spent = await db
    .updateTable('recovery_keys')
    .set({ used_at: nowIso() })
    .where('id', '=', keyId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(spent.numUpdatedRows) === 1;
}

/** A recovery key answers an authenticator's challenge; the key is spent with the challenge, once. */
export const recoveryKey: ChallengeMethod = {
  kind: 'totpRecovery',
  async verify(deps, held, answer) {
    const keyId = held.userId === null ? null : await findRecoveryKey(deps, held.userId, answer);
    if (keyId === null) return { right: false };
    return {
      right: true,
      spend: (trx) => spendRecoveryKey(trx, keyId),
      after: async (db) => ({ recoveryKeysLeft: await unusedRecoveryKeys(db, held.userId!) }),
    };
  },
  describe: describeRow,
};
