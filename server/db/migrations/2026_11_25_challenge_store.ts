// One challenge store for every code the server sends: onboarding's codes move into
// mfa_challenges (purpose 'onboarding'). A flow has no user yet, so user_id may be null and the
// challenge names its flow instead. The flow numbers its sends: (flow_id, sends) is unique, so of
// thirty simultaneous requests for a new code exactly one inserts it.
// onboarding_flows keeps its old code_* columns, unused: dropping them on SQLite is another rebuild.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

const COLUMNS = [
  'id',
  'user_id',
  'method_id',
  'purpose',
  'new_method',
  'target',
  'payload_hash',
  'code_hash',
  'attempts',
  'sends',
  'expires_at',
  'resend_at',
  'device_key',
  'login_ticket_hash',
  'completed_at',
  'created_at',
  'replaces_method_id',
];

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    // SQLite cannot drop a NOT NULL: the table is rebuilt (new table, copy, drop, rename, indexes).
    await db.schema
      .createTable('mfa_challenges_rebuilt')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('method_id', 'integer', (c) => c.references('mfa_methods.id').onDelete('cascade'))
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('new_method', 'text')
      .addColumn('target', 'text')
      .addColumn('payload_hash', 'text', (c) => c.notNull().unique())
      .addColumn('code_hash', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('sends', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('resend_at', 'text', (c) => c.notNull())
      .addColumn('device_key', 'text')
      .addColumn('login_ticket_hash', 'text')
      .addColumn('completed_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('replaces_method_id', 'integer')
      .addColumn('flow_id', 'text', (c) => c.references('onboarding_flows.id').onDelete('cascade'))
      .execute();
    const columns = sql.join(COLUMNS.map((column) => sql.ref(column)));
    await sql`insert into mfa_challenges_rebuilt (${columns}) select ${columns} from mfa_challenges`.execute(db);
    await db.schema.dropTable('mfa_challenges').execute();
    await db.schema.alterTable('mfa_challenges_rebuilt').renameTo('mfa_challenges').execute();
    await db.schema
      .createIndex('mfa_challenges_user_idx')
      .on('mfa_challenges')
      .columns(['user_id', 'purpose'])
      .execute();
  } else {
    await db.schema
      .alterTable('mfa_challenges')
      .alterColumn('user_id', (c) => c.dropNotNull())
      .execute();
    await db.schema
      .alterTable('mfa_challenges')
      .addColumn('flow_id', 'text', (c) => c.references('onboarding_flows.id').onDelete('cascade'))
      .execute();
  }
  await db.schema
    .createIndex('mfa_challenges_flow_sends_unique')
    .on('mfa_challenges')
    .columns(['flow_id', 'sends'])
    .unique()
    .execute();
}
