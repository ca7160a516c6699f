// Aliases of accounts merged away (server/fuzzion/): what a stale link may still bring of such an
// account (its id, which is its OIDC `sub`; a platform id the survivor already had one of) leads to
// the account that took it over. One hop always: a merge moves the aliases of the account it closes.
import type { Db } from '../db/index.ts';

/** 'sub', or a platform id's column (PlatformIdColumn). */
export type AliasKind = 'sub' | 'user_id' | 'customer_user_id' | 'fridom_user_id';

/** The account an alias leads to, or null when the value is no alias. */
export async function resolveAlias(db: Db, kind: AliasKind, value: string): Promise<string | null> {
  const row = await db
    .selectFrom('account_aliases')
    .select('user_id')
    .where('kind', '=', kind)
    .where('value', '=', value)
    .executeTakeFirst();
  return row?.user_id ?? null;
}
