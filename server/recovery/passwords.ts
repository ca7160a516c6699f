// Choosing a new password for an account: acceptable (server/passwords/policy.ts) and none of the
// recent ones (PASSWORD_HISTORY). Setting it ends every session of the account.
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { assertAcceptablePassword } from '../passwords/policy.ts';
import { newId } from '../sessions/tokens.ts';

export async function setNewPassword(ctx: AppContext, userId: string, password: string, meta: { ip: string; deviceKey: string }): Promise<void> {
  assertAcceptablePassword(password, ctx.config.passwordPolicy);
  const history = await ctx.db.selectFrom('passwords').select('hash').where('user_id', '=', userId)
    .orderBy('created_at', 'desc').limit(ctx.config.passwordHistory).execute();
  for (const { hash } of history) {
    if (await ctx.hasher.verify(hash, password)) throw new ApiError('password_reused');
  }
  const hash = await ctx.hasher.hash(password);
  const now = nowIso();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('passwords').values({ id: newId(), user_id: userId, hash, created_at: now }).execute();
    await trx.updateTable('users').set({ password_status: 0, last_password_change: now, updated_at: now }).where('id', '=', userId).execute();
    // A new password ends every session: whoever knew the old one is out.
    await trx.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
  });
  await recordEvent(ctx.db, { type: 'password_changed', userId, ip: meta.ip, deviceKey: meta.deviceKey });
}
