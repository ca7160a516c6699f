import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // What a ticket carries besides its user: the OAuth client of a sign-in waiting for its
  // second factor, the method and target of a merge offer (JSON).
  await db.schema.alterTable('tickets').addColumn('detail', 'text').execute();
  // An activation that replaces a method (a new target, or a reset authenticator) names it here.
  await db.schema.alterTable('mfa_challenges').addColumn('replaces_method_id', 'integer').execute();
  await db.schema.createIndex('mfa_challenges_user_idx').on('mfa_challenges').columns(['user_id', 'purpose']).execute();
  // One method per kind and destination: two racing activations of one address add it once.
  await db.schema
    .createIndex('mfa_methods_target_unique')
    .on('mfa_methods')
    .columns(['user_id', 'method', 'target'])
    .unique()
    .execute();
}
