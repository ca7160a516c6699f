import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // What an operator imports with a card (`npm run cli -- cards import`): the activation code
  // printed in the holder's letter (a keyed hash, never the code), the card's status, and what
  // the employer told us of the holder, which onboarding offers as defaults.
  await db.schema.alterTable('cards').addColumn('activation_code_hash', 'text').execute();
  // 'issued' (may be activated) or 'blocked' (lost, stolen or withdrawn by an operator).
  await db.schema
    .alterTable('cards')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('issued'))
    .execute();
  for (const column of [
    'holder_firstname',
    'holder_lastname',
    'holder_email',
    'holder_phone',
    'holder_language',
    'company',
    'beneficiary_id',
  ]) {
    await db.schema.alterTable('cards').addColumn(column, 'text').execute();
  }

  // Invitations ("I received an email"): a code mailed to a person, good for one account.
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('firstname', 'text')
    .addColumn('lastname', 'text')
    .addColumn('language', 'text')
    .addColumn('company', 'text')
    // The platform ids the new account gets (each adds a dashboard tile) and its second-factor rule.
    .addColumn('user_id', 'text')
    .addColumn('customer_user_id', 'text')
    .addColumn('fridom_user_id', 'text')
    .addColumn('mfa_forced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mfa_customer', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('used_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // An onboarding in progress: held by the browser as an opaque token (stored hashed), it
  // records how far the person got (state), what they chose, and the one code outstanding.
  await db.schema
    .createTable('onboarding_flows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('card_id', 'text', (c) => c.references('cards.id').onDelete('cascade'))
    .addColumn('invitation_id', 'text', (c) => c.references('invitations.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('firstname', 'text')
    .addColumn('lastname', 'text')
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('email_verified_at', 'text')
    .addColumn('phone', 'text')
    .addColumn('phone_verified_at', 'text')
    .addColumn('terms_accepted_at', 'text')
    .addColumn('marketing', 'text')
    .addColumn('code_kind', 'text')
    .addColumn('code_target', 'text')
    .addColumn('code_hash', 'text')
    .addColumn('code_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('code_sends', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('code_expires_at', 'text')
    .addColumn('code_resend_at', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('outcome', 'text')
    .execute();
  await db.schema.createIndex('onboarding_flows_expiry_idx').on('onboarding_flows').column('expires_at').execute();

  // What a person agreed to, and when: terms and privacy (required), marketing (optional).
  await db.schema
    .createTable('consents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('granted', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('consents_user_idx').on('consents').column('user_id').execute();

  // ALTCHA solutions already used: each proof of work counts once, on every instance.
  await db.schema
    .createTable('captcha_spent')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
