// A user's second factors.
import { randomInt } from 'node:crypto';
import type { MfaMethodSummary } from '../../contract/schemas.ts';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { maskTarget } from './codes.ts';

export type MfaMethodRow = { id: number; user_id: string; method: string; target: string | null; secret: string | null; is_primary: number; last_step: number | null };

export async function methodsOf(db: Db, userId: string): Promise<MfaMethodRow[]> {
  const rows = await db.selectFrom('mfa_methods').select(['id', 'user_id', 'method', 'target', 'secret', 'is_primary', 'last_step'])
    .where('user_id', '=', userId).orderBy('is_primary', 'desc').orderBy('created_at').execute();
  return rows.map((row) => ({ ...row, id: Number(row.id), last_step: row.last_step === null ? null : Number(row.last_step) }));
}

export async function methodOf(db: Db, userId: string, id: number): Promise<MfaMethodRow | null> {
  return (await methodsOf(db, userId)).find((m) => m.id === id) ?? null;
}

export function summary(method: MfaMethodRow): MfaMethodSummary {
  return {
    id: method.id,
    method: method.method as MfaMethodSummary['method'],
    ...(method.target ? { target: maskTarget(method.target) } : {}),
    primary: method.is_primary === 1,
  };
}

export async function addMethod(db: Db, input: { userId: string; method: string; target?: string | null; secret?: string | null; primary?: boolean }): Promise<number> {
  const id = randomInt(1, 2 ** 31 - 1);
  await db.insertInto('mfa_methods').values({
    id, user_id: input.userId, method: input.method, target: input.target ?? null, secret: input.secret ?? null,
    is_primary: input.primary ? 1 : 0, last_step: null, created_at: nowIso(),
  }).execute();
  return id;
}

/** A device the user chose to trust skips MFA at sign-in until its trust expires. */
export async function isTrustedDevice(db: Db, userId: string, deviceKey: string): Promise<boolean> {
  const row = await db.selectFrom('devices').select('trusted_until')
    .where('user_id', '=', userId).where('device_key', '=', deviceKey).executeTakeFirst();
  return !!row?.trusted_until && row.trusted_until > nowIso();
}
