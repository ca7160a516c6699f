// One set of migrations for SQLite and PostgreSQL: only portable column types (text, integer).
// One migration per file under migrations/, named by its date; they run in name order.
import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as m2026_11_01_core from './migrations/2026_11_01_core.ts';
import * as m2026_11_10_mfa from './migrations/2026_11_10_mfa.ts';
import * as m2026_11_12_cards from './migrations/2026_11_12_cards.ts';
import * as m2026_11_20_mfa_rules from './migrations/2026_11_20_mfa_rules.ts';
import * as m2026_11_23_onboarding from './migrations/2026_11_23_onboarding.ts';
import * as m2026_11_24_outbox from './migrations/2026_11_24_outbox.ts';
import * as m2026_11_25_challenge_store from './migrations/2026_11_25_challenge_store.ts';
import * as m2026_11_26_mfa_offer_later from './migrations/2026_11_26_mfa_offer_later.ts';
import * as m2026_11_27_sign_in_records from './migrations/2026_11_27_sign_in_records.ts';
import * as m2026_11_28_oidc from './migrations/2026_11_28_oidc.ts';
import * as m2026_11_29_partners from './migrations/2026_11_29_partners.ts';
import * as m2026_11_30_oidc_logout from './migrations/2026_11_30_oidc_logout.ts';
import * as m2026_12_01_login_tickets from './migrations/2026_12_01_login_tickets.ts';
import * as m2026_12_02_consent_answers from './migrations/2026_12_02_consent_answers.ts';
import * as m2026_12_03_banking from './migrations/2026_12_03_banking.ts';
import * as m2026_12_04_card_products from './migrations/2026_12_04_card_products.ts';
import * as m2026_12_05_pictures from './migrations/2026_12_05_pictures.ts';
import * as m2026_12_06_change_undos from './migrations/2026_12_06_change_undos.ts';
import * as m2026_12_07_account_merge from './migrations/2026_12_07_account_merge.ts';
import * as m2026_12_08_fuzzion_proofs from './migrations/2026_12_08_fuzzion_proofs.ts';
import * as m2026_12_09_sso_identities from './migrations/2026_12_09_sso_identities.ts';
import * as m2026_12_10_session_fuzzion from './migrations/2026_12_10_session_fuzzion.ts';
import * as m2026_12_11_replaced_codes from './migrations/2026_12_11_replaced_codes.ts';
import * as m2026_12_12_client_logos from './migrations/2026_12_12_client_logos.ts';
import * as m2026_12_13_client_logout_and_auth from './migrations/2026_12_13_client_logout_and_auth.ts';
import * as m2026_12_14_passkeys from './migrations/2026_12_14_passkeys.ts';
import * as m2026_12_15_passkey_sign_in from './migrations/2026_12_15_passkey_sign_in.ts';
import * as m2026_12_16_fapi_clients from './migrations/2026_12_16_fapi_clients.ts';
import * as m2026_12_17_security_event_streams from './migrations/2026_12_17_security_event_streams.ts';
import * as m2026_12_18_delivery_circuits from './migrations/2026_12_18_delivery_circuits.ts';
import * as m2026_12_19_message_deliveries from './migrations/2026_12_19_message_deliveries.ts';
import * as m2026_12_20_delivery_fallback from './migrations/2026_12_20_delivery_fallback.ts';
import * as m2026_12_21_kept_answers from './migrations/2026_12_21_kept_answers.ts';
import * as m2026_12_22_sign_in_lookup from './migrations/2026_12_22_sign_in_lookup.ts';

const migrations: Record<string, Migration> = {
  '2026_11_01_core': m2026_11_01_core,
  '2026_11_10_mfa': m2026_11_10_mfa,
  '2026_11_12_cards': m2026_11_12_cards,
  '2026_11_20_mfa_rules': m2026_11_20_mfa_rules,
  '2026_11_23_onboarding': m2026_11_23_onboarding,
  '2026_11_24_outbox': m2026_11_24_outbox,
  '2026_11_25_challenge_store': m2026_11_25_challenge_store,
  '2026_11_26_mfa_offer_later': m2026_11_26_mfa_offer_later,
  '2026_11_27_sign_in_records': m2026_11_27_sign_in_records,
  '2026_11_28_oidc': m2026_11_28_oidc,
  '2026_11_29_partners': m2026_11_29_partners,
  '2026_11_30_oidc_logout': m2026_11_30_oidc_logout,
  '2026_12_01_login_tickets': m2026_12_01_login_tickets,
  '2026_12_02_consent_answers': m2026_12_02_consent_answers,
  '2026_12_03_banking': m2026_12_03_banking,
  '2026_12_04_card_products': m2026_12_04_card_products,
  '2026_12_05_pictures': m2026_12_05_pictures,
  '2026_12_06_change_undos': m2026_12_06_change_undos,
  '2026_12_07_account_merge': m2026_12_07_account_merge,
  '2026_12_08_fuzzion_proofs': m2026_12_08_fuzzion_proofs,
  '2026_12_09_sso_identities': m2026_12_09_sso_identities,
  '2026_12_10_session_fuzzion': m2026_12_10_session_fuzzion,
  '2026_12_11_replaced_codes': m2026_12_11_replaced_codes,
  '2026_12_12_client_logos': m2026_12_12_client_logos,
  '2026_12_13_client_logout_and_auth': m2026_12_13_client_logout_and_auth,
  '2026_12_14_passkeys': m2026_12_14_passkeys,
  '2026_12_15_passkey_sign_in': m2026_12_15_passkey_sign_in,
  '2026_12_16_fapi_clients': m2026_12_16_fapi_clients,
  '2026_12_17_security_event_streams': m2026_12_17_security_event_streams,
  '2026_12_18_delivery_circuits': m2026_12_18_delivery_circuits,
  '2026_12_19_message_deliveries': m2026_12_19_message_deliveries,
  '2026_12_20_delivery_fallback': m2026_12_20_delivery_fallback,
  '2026_12_21_kept_answers': m2026_12_21_kept_answers,
  '2026_12_22_sign_in_lookup': m2026_12_22_sign_in_lookup,
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
