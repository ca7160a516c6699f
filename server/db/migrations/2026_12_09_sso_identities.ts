// Microsoft sign-in (server/sso/): the identities linked to accounts, keyed by tenant and object id
// (never by email), the sign-ins under way (state, nonce and PKCE verifier kept here, bound to the
// browser that started them) and the one-time tickets that carry an unlinked identity to the
// link-existing screen.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sso_identities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // 'microsoft'
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    // What the identity said when it was linked: shown to the owner, never used to find an account.
    .addColumn('email', 'text')
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  // One account per identity: of parallel links, the unique index lets one in.
  await db.schema
    .createIndex('sso_identities_subject_idx')
    .on('sso_identities')
    .columns(['provider', 'tenant_id', 'object_id'])
    .unique()
    .execute();
  await db.schema.createIndex('sso_identities_user_idx').on('sso_identities').column('user_id').execute();

  await db.schema
    .createTable('sso_requests')
    // The digest of the `state` sent to the identity provider.
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    // The digest of the browser's binding cookie: a callback from another browser finds nothing.
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    // The browser's device id, which a navigation cannot send as a header: the trusted-device check
    // and the session use it.
    .addColumn('device_key', 'text')
    // Where the browser goes after the sign-in (one of our paths), or null for home.
    .addColumn('target', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('sso_requests_expires_idx').on('sso_requests').column('expires_at').execute();

  await db.schema
    .createTable('sso_link_tickets')
    .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
    // The browser that signed in at Microsoft: only it can link the identity (a ticket sent to
    // someone else would link the sender's Microsoft account to theirs).
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('sso_link_tickets_expires_idx').on('sso_link_tickets').column('expires_at').execute();
}
