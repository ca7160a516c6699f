// One set of migrations for SQLite and PostgreSQL: only portable column types (text, integer).
import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';

const migrations: Record<string, Migration> = {
  '2026_11_01_core': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('firstname', 'text', (c) => c.notNull())
        .addColumn('lastname', 'text', (c) => c.notNull())
        .addColumn('birthdate', 'text')
        .addColumn('gender', 'text')
        .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
        .addColumn('user_id', 'text', (c) => c.unique())
        .addColumn('customer_user_id', 'text', (c) => c.unique())
        .addColumn('fridom_user_id', 'text', (c) => c.unique())
        .addColumn('password_status', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_password_change', 'text')
        .addColumn('mfa_forced', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('mfa_customer', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('has_sso', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sso_only', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      // Emails and phones are unique across accounts (the spec's merge relies on it).
      for (const table of ['user_emails', 'user_phones']) {
        await db.schema
          .createTable(table)
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('value', 'text', (c) => c.notNull().unique())
          .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex(`${table}_user_idx`).on(table).column('user_id').execute();
      }

      // Every password a user has had: the newest is current, older ones forbid reuse.
      await db.schema
        .createTable('passwords')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('passwords_user_idx').on('passwords').columns(['user_id', 'created_at']).execute();

      await db.schema
        .createTable('devices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('device_key', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text')
        .addColumn('first_seen_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('trusted_until', 'text')
        .addUniqueConstraint('devices_user_key_unique', ['user_id', 'device_key'])
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('device_id', 'text', (c) => c.references('devices.id').onDelete('set null'))
        .addColumn('client_id', 'text')
        .addColumn('ip', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

      await db.schema
        .createTable('tickets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('ticket_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();

      await db.schema
        .createTable('security_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('ip', 'text')
        .addColumn('device_key', 'text')
        .addColumn('detail', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('security_events_user_idx').on('security_events').columns(['user_id', 'created_at']).execute();

      await db.schema
        .createTable('oauth_clients')
        .addColumn('client_id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('redirect_uris', 'text', (c) => c.notNull())
        .addColumn('first_party', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '2026_11_10_mfa': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('sessions').addColumn('mfa_at', 'text').execute();
      // 'enrolment': a forced user without a second factor may only set one up (or sign out).
      await db.schema.alterTable('sessions').addColumn('scope', 'text').execute();

      await db.schema
        .createTable('mfa_methods')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('target', 'text')
        .addColumn('secret', 'text')
        .addColumn('is_primary', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_step', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mfa_methods_user_idx').on('mfa_methods').column('user_id').execute();

      await db.schema
        .createTable('recovery_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('key_hash', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('recovery_keys_user_idx').on('recovery_keys').column('user_id').execute();

      await db.schema
        .createTable('mfa_challenges')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('method_id', 'integer', (c) => c.references('mfa_methods.id').onDelete('cascade'))
        .addColumn('purpose', 'text', (c) => c.notNull())
        // For activation: the kind of method being added and where its codes go.
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
        .execute();

      await db.schema
        .createTable('outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '2026_11_12_cards': {
    async up(db: Kysely<any>) {
      // Benefit cards: the number identifies a card; a card belongs to at most one account. The
      // onboarding flow (activation codes, imports) builds on this table.
      await db.schema
        .createTable('cards')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('number', 'text', (c) => c.notNull().unique())
        .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('activated_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('cards_user_idx').on('cards').column('user_id').execute();
      // The Belgian national register number, for finding a forgotten username (11 digits, unique).
      await db.schema.alterTable('users').addColumn('national_register_number', 'text').execute();
      await db.schema.createIndex('users_nrn_unique').on('users').column('national_register_number').unique().execute();
    },
  },
  '2026_11_20_mfa_rules': {
    async up(db: Kysely<any>) {
      // What a ticket carries besides its user: the OAuth client of a sign-in waiting for its
      // second factor, the method and target of a merge offer (JSON).
      await db.schema.alterTable('tickets').addColumn('detail', 'text').execute();
      // An activation that replaces a method (a new target, or a reset authenticator) names it here.
      await db.schema.alterTable('mfa_challenges').addColumn('replaces_method_id', 'integer').execute();
      await db.schema.createIndex('mfa_challenges_user_idx').on('mfa_challenges').columns(['user_id', 'purpose']).execute();
      // One method per kind and destination: two racing activations of one address add it once.
      await db.schema.createIndex('mfa_methods_target_unique').on('mfa_methods').columns(['user_id', 'method', 'target']).unique().execute();
    },
  },
  '2026_11_23_onboarding': {
    async up(db: Kysely<any>) {
      // What an operator imports with a card (`npm run cli -- cards import`): the activation code
      // printed in the holder's letter (a keyed hash, never the code), the card's status, and what
      // the employer told us of the holder, which onboarding offers as defaults.
      await db.schema.alterTable('cards').addColumn('activation_code_hash', 'text').execute();
      // 'issued' (may be activated) or 'blocked' (lost, stolen or withdrawn by an operator).
      await db.schema.alterTable('cards').addColumn('status', 'text', (c) => c.notNull().defaultTo('issued')).execute();
      for (const column of ['holder_firstname', 'holder_lastname', 'holder_email', 'holder_phone', 'holder_language', 'company', 'beneficiary_id']) {
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
    },
  },
  // The durable outbox: every message is written in the transaction of the change that sends it,
  // and a worker delivers it with retries, so neither a crash nor a slow sender shows in an answer.
  '2026_11_24_outbox': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('message_outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        // A code is worth nothing once it expired: such a message is dropped, not sent late.
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        // A worker's lease on the message while it delivers it; another worker takes it after.
        .addColumn('locked_until', 'text')
        .addColumn('failed_at', 'text')
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('message_outbox_due_idx').on('message_outbox').columns(['failed_at', 'next_attempt_at']).execute();

      // Forgotten-password requests, taken as they are typed, real account or not: the worker looks
      // the account up and starts its challenge, so the answer does the same work for both.
      await db.schema
        .createTable('reset_requests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('channel', 'text')
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('device_key', 'text', (c) => c.notNull())
        .addColumn('payload_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrate(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
