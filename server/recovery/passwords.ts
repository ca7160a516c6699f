// Choosing a new password: the policy (contract/password.ts, bounds from configuration), a list of
// common passwords, and no reuse of the recent ones. Setting it ends every session of the account.
import { DEFAULT_PASSWORD_POLICY, passwordProblems, type PasswordPolicy } from '../../contract/password.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { newId } from '../sessions/tokens.ts';

/** How many previous passwords may not come back. */
export const PASSWORD_HISTORY = 5;

/** The most common passwords and their obvious variants (lower-cased, digits and symbols stripped). */
const COMMON = new Set([
  'password', 'passw0rd', 'welcome', 'azerty', 'qwerty', 'letmein', 'admin', 'iloveyou', 'monkey', 'dragon', 'sunshine',
  'football', 'princess', 'baseball', 'abc', 'abcdef', 'master', 'shadow', 'superman', 'trustno', 'bonjour', 'soleil',
  'wachtwoord', 'motdepasse', 'passwort', 'hallo', 'tessera', 'ticket', 'voucher', 'cheque', 'belgium', 'belgique', 'luxembourg',
]);

export function isCommonPassword(password: string): boolean {
  const core = password.toLowerCase().replace(/[^a-z]/g, '');
  return core.length < 4 || COMMON.has(core);
}

export function policyOf(_ctx: AppContext): PasswordPolicy {
  return DEFAULT_PASSWORD_POLICY;
}

export async function setNewPassword(ctx: AppContext, userId: string, password: string, meta: { ip: string; deviceKey: string }): Promise<void> {
  const problems = passwordProblems(password, policyOf(ctx));
  if (problems.length > 0) throw new ApiError('weak_new_password', { problems });
  if (isCommonPassword(password)) throw new ApiError('weak_new_password', { problems: ['common'] });
  const history = await ctx.db.selectFrom('passwords').select('hash').where('user_id', '=', userId)
    .orderBy('created_at', 'desc').limit(PASSWORD_HISTORY).execute();
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
