// A sign-in's security event and device sighting are written after the answer, by a worker
// (server/sessions/records.ts). The session row, which the sign-in must insert anyway, carries what
// they need until then: one statement, so a crash loses neither the session nor its records.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('device_key', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
  // The sign-in event's detail (JSON) while its records wait to be written; null once written.
  await db.schema.alterTable('sessions').addColumn('pending_record', 'text').execute();
  // Only waiting rows are indexed: the worker finds them without reading every session.
  await db.schema
    .createIndex('sessions_pending_idx')
    .on('sessions')
    .column('created_at')
    .where(sql.ref('pending_record'), 'is not', null)
    .execute();
  // The device of sessions opened before: the devices list tells the current one by its key.
  await sql`update sessions set device_key = (select devices.device_key from devices where devices.id = sessions.device_id) where device_id is not null`.execute(
    db,
  );
}
