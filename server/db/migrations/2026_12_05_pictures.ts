import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The profile picture, already shrunk by the browser and stripped of its metadata by the server:
  // base64 text keeps the column portable (a few tens of kilobytes each).
  await db.schema
    .createTable('user_pictures')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
