// A client may follow the FAPI 2.0 Security Profile (docs/operations/fapi.md): it authenticates with
// a key of its own (private_key_jwt), registered as a JWKS or a jwks_uri, and the profile's rules
// follow from the mark.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('profile', 'text').execute();
  await db.schema.alterTable('oauth_clients').addColumn('jwks', 'text').execute();
  await db.schema.alterTable('oauth_clients').addColumn('jwks_uri', 'text').execute();
}
