// OIDC storage. oidc_models holds every oidc-provider model in one table (as Logto does): the
// payload is JSON text, and the columns beside it are the ones the provider looks rows up by.
// oidc_signing_keys holds the provider's signing keys, the private part sealed with SECRET_KEY.
// A key set is a generation: (generation, alg) is unique, so of two instances creating the first
// set at once, or two rotations at once, exactly one writes.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_models')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('user_code', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('consumed_at', 'text')
    .addPrimaryKeyConstraint('oidc_models_pk', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oidc_models_grant_id_idx').on('oidc_models').column('grant_id').execute();
  await db.schema.createIndex('oidc_models_uid_idx').on('oidc_models').columns(['model', 'uid']).execute();
  await db.schema.createIndex('oidc_models_user_code_idx').on('oidc_models').columns(['model', 'user_code']).execute();
  await db.schema.createIndex('oidc_models_expires_at_idx').on('oidc_models').column('expires_at').execute();

  await db.schema
    .createTable('oidc_signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_jwk_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
  await db.schema
    .createIndex('oidc_signing_keys_generation_alg_unique')
    .on('oidc_signing_keys')
    .columns(['generation', 'alg'])
    .unique()
    .execute();
}
