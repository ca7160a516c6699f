import type { Db } from '../db/index.ts';

/** Every exact redirect URI registered for an OAuth client. */
export async function registeredRedirectTargets(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('oauth_clients').select('redirect_uris').execute();
  return rows.flatMap((row) => {
    try {
      const uris: unknown = JSON.parse(row.redirect_uris);
      return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
    } catch {
      return [];
    }
  });
}
