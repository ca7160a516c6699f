// Partner applications: what a client shows and may ask for (names per locale, logo, policy and
// terms links, allowed scopes, a second factor it demands, where its access requests go, a hashed
// secret for a confidential client, its back-channel logout URI); whose grant a stored OIDC model
// is, for the access list (account_id, client_id); and the access requests partners' users send.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of [
    'names',
    'logo_uri',
    'policy_uri',
    'tos_uri',
    'backchannel_logout_uri',
    'admin_email',
    'scopes',
    'secret_hash',
  ]) {
    await db.schema.alterTable('oauth_clients').addColumn(column, 'text').execute();
  }
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('require_mfa', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema.alterTable('oidc_models').addColumn('account_id', 'text').execute();
  await db.schema.alterTable('oidc_models').addColumn('client_id', 'text').execute();
  await db.schema.createIndex('oidc_models_account_idx').on('oidc_models').columns(['model', 'account_id']).execute();

  await db.schema
    .createTable('partner_access_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // One request per person and application: asking again is not a second request.
  await db.schema
    .createIndex('partner_access_requests_unique')
    .on('partner_access_requests')
    .columns(['user_id', 'client_id'])
    .unique()
    .execute();
}
