// Partner logos served from our own origin (docs/decisions/client-logos.md): the image itself, kept
// as base64 text beside the client (a few kilobytes each, as the profile pictures are), and its
// digest on the client's row, which names the version its address carries. The old `logo_uri`
// column (a link to the partner's own server) stays in place, unused (docs/decisions/unused-columns.md).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('logo_version', 'text').execute();
  await db.schema
    .createTable('oauth_client_logos')
    .addColumn('client_id', 'text', (c) => c.primaryKey().references('oauth_clients.client_id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
