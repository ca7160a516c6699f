// Two registrations a partner may need: where an RP-initiated logout may send the browser back
// (post_logout_redirect_uris, a JSON array of exact URIs like redirect_uris), and how a confidential
// client authenticates at the token endpoint (client_secret_basic or client_secret_post; null: basic
// for a client with a secret, none for a public one).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('post_logout_redirect_uris', 'text').execute();
  await db.schema.alterTable('oauth_clients').addColumn('token_endpoint_auth_method', 'text').execute();
}
