// Recovery keys: single-use stand-ins for the authenticator, shown once, stored as keyed hashes.
import { createHmac, randomInt } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';

export const RECOVERY_KEY_COUNT = 10;
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I: keys are typed from paper

function newKey(): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(0, ALPHABET.length)]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

function normalise(key: string): string {
  return key.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

function keyHash(secretKey: string, userId: string, key: string): string {
  return createHmac('sha256', secretKey).update(`recovery:${userId}:${normalise(key)}`).digest('base64url');
}

/** Replaces all of a user's keys with new ones (old keys stop working); returns the new keys, once. */
export async function issueRecoveryKeys(ctx: Pick<AppContext, 'config'>, db: Db, userId: string): Promise<string[]> {
  const keys = Array.from({ length: RECOVERY_KEY_COUNT }, newKey);
  const now = nowIso();
  await db.deleteFrom('recovery_keys').where('user_id', '=', userId).execute();
  await db.insertInto('recovery_keys').values(keys.map((key) => ({
    id: newId(), user_id: userId, key_hash: keyHash(ctx.config.secretKey, userId, key), used_at: null, created_at: now,
  }))).execute();
  return keys;
}

export async function unusedRecoveryKeys(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom('recovery_keys').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Spends a key if it is one of the user's unused keys; returns how many remain, or null. */
export async function useRecoveryKey(ctx: AppContext, userId: string, key: string): Promise<number | null> {
  const spent = await ctx.db.updateTable('recovery_keys').set({ used_at: nowIso() })
    .where('user_id', '=', userId).where('key_hash', '=', keyHash(ctx.config.secretKey, userId, key)).where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) === 0) return null;
  return unusedRecoveryKeys(ctx.db, userId);
}
