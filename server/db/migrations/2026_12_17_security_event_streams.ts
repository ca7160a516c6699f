// A partner may hear of its users' security changes (server/oidc/securityEvents.ts): where its
// security event tokens are pushed, and the bearer token it expects (sealed with the server's key:
// it is sent, so it cannot be a digest).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('events_endpoint', 'text').execute();
  await db.schema.alterTable('oauth_clients').addColumn('events_token', 'text').execute();
}
