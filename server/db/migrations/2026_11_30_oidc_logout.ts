// Which provider session (oidc-provider's, per browser and issuer) a Tessera session signed in:
// when the Tessera session ends, so do they, and their clients hear it by back-channel logout.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_session_links')
    .addColumn('provider_session_id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_session_links_session_idx').on('oidc_session_links').column('session_id').execute();
  await db.schema.createIndex('oidc_session_links_account_idx').on('oidc_session_links').column('account_id').execute();
  // What a client was issued, for removing a client (the CLI) without reading the whole table.
  await db.schema.createIndex('oidc_models_client_idx').on('oidc_models').column('client_id').execute();
}
