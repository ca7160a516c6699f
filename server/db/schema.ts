// Table types for Kysely. Timestamps are ISO-8601 UTC strings and flags are 0/1 integers, so that
// one set of migrations and queries runs unchanged on SQLite and PostgreSQL.

import type { Generated } from 'kysely';

export type Flag = 0 | 1;

export interface UsersTable {
  id: string;
  firstname: string;
  lastname: string;
  birthdate: string | null;
  gender: string | null;
  language: string;
  user_id: string | null;
  customer_user_id: string | null;
  fridom_user_id: string | null;
  password_status: number;
  last_password_change: string | null;
  mfa_forced: Flag;
  mfa_customer: Flag;
  /** Until when a customer who said "not now" to the second factor is not offered it again. */
  mfa_offer_later_until: string | null;
  /** When the person said "not now" to a passkey offered after a password sign-in (not offered again). */
  passkey_offer_later_at: string | null;
  has_sso: Flag;
  sso_only: Flag;
  national_register_number: string | null;
  /** The bank account: the IBAN as stored (no spaces, upper case) and its country. */
  iban: string | null;
  iban_country: string | null;
  created_at: string;
  updated_at: string;
  /** When the account was merged into another (server/fuzzion/): nothing signs in to it again. */
  closed_at: string | null;
}

export interface ContactTable {
  id: string;
  user_id: string;
  value: string;
  is_default: Flag;
  verified: Flag;
  created_at: string;
}

export interface PasswordsTable {
  id: string;
  user_id: string;
  hash: string;
  created_at: string;
}

export interface DevicesTable {
  id: string;
  user_id: string;
  /** The browser's random device id header. */
  device_key: string;
  user_agent: string | null;
  first_seen_at: string;
  last_seen_at: string;
  trusted_until: string | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  device_id: string | null;
  client_id: string | null;
  ip: string | null;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** When this session last passed an MFA check (login or step-up). */
  mfa_at: string | null;
  /** null: a full session; 'enrolment': may only set up a second factor. */
  scope: string | null;
  /** The browser's device id header at sign-in, and its user agent. */
  device_key: string | null;
  user_agent: string | null;
  /** The sign-in event's detail (JSON) while its event and device sighting wait to be written
   * (server/sessions/records.ts); null once written. */
  pending_record: string | null;
  /** The digest of the merge offer this session has open (its ticket), if any. */
  fuzzion_hash: string | null;
  /** How the last second factor was given, where OIDC's amr names it ('hwk', 'swk': a passkey). */
  mfa_amr: string | null;
}

export interface TicketsTable {
  id: string;
  user_id: string;
  /** What the ticket lets its holder do next, e.g. 'weak_password'. */
  kind: string;
  ticket_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** JSON: what the ticket carries besides its user (a sign-in's client_id, a merge offer's target). */
  detail: string | null;
}

export interface SecurityEventsTable {
  id: string;
  user_id: string | null;
  type: string;
  ip: string | null;
  device_key: string | null;
  detail: string | null;
  created_at: string;
}

export interface OAuthClientsTable {
  client_id: string;
  name: string;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  first_party: Flag;
  created_at: string;
  /** JSON object of the name by locale (en, fr_LU, …); `name` is the fallback. */
  names: string | null;
  /** Unused: a link to the partner's own server, before logos were served from ours. */
  logo_uri: string | null;
  /** The digest of the client's logo (oauth_client_logos), the version its address names; null: none. */
  logo_version: string | null;
  policy_uri: string | null;
  tos_uri: string | null;
  /** Where the provider sends a logout token when the person signs out (OIDC back-channel logout). */
  backchannel_logout_uri: string | null;
  /** JSON array of the exact URIs an RP-initiated logout may return to; null: none. */
  post_logout_redirect_uris: string | null;
  /** A confidential client's token endpoint authentication (client_secret_basic or
   * client_secret_post); null: client_secret_basic with a secret, none without. */
  token_endpoint_auth_method: string | null;
  /** 'fapi2': the client follows the FAPI 2.0 Security Profile; null: the plain rules. */
  profile: string | null;
  /** A FAPI client's public keys (a JWKS, JSON), for private_key_jwt; or its jwks_uri. */
  jwks: string | null;
  jwks_uri: string | null;
  /** Where the client's security event tokens are pushed (RFC 8935); null: it hears none. */
  events_endpoint: string | null;
  /** The bearer token its endpoint expects, sealed with the server's key. */
  events_token: string | null;
  /** The administrator who hears a person's request for access. */
  admin_email: string | null;
  /** JSON array of the scopes the client may ask for; null: the standard ones only. */
  scopes: string | null;
  /** A confidential client's secret, hashed (server/oidc/clients.ts); null: a public client. */
  secret_hash: string | null;
  /** The client signs people in only with a second factor. */
  require_mfa: Generated<Flag>;
}

export interface MfaMethodsTable {
  /** A positive number: the spec's method ids are numbers (negative ones mean "target to supply"). */
  id: number;
  user_id: string;
  method: string;
  /** The email or phone (E.164) the codes go to, for email, sms, call and whatsapp. */
  target: string | null;
  /** TOTP secret, encrypted with the server's key. */
  secret: string | null;
  is_primary: Flag;
  /** Last TOTP time step accepted: a code is never accepted twice. */
  last_step: number | null;
  created_at: string;
}

/** A passkey sign-in's challenge, held by its challenge cookie until spent or expired. */
export interface PasskeySignInsTable {
  /** The challenge cookie's value, hashed. */
  cookie_hash: string;
  /** The challenge's keyed hash (server/methods/codes.ts). */
  challenge_hash: string;
  expires_at: string;
}

/** A passkey's credential, beside its method (mfa_methods.id). */
export interface PasskeysTable {
  method_id: number;
  /** Base64url, as WebAuthn names it; unique across accounts. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The last signature counter seen (0 for a synced passkey, which keeps none). */
  counter: number | string;
  /** JSON array of the transports the authenticator reported. */
  transports: string | null;
  aaguid: string;
  /** 1: backed up (synced across the owner's devices); 0: bound to one device. */
  synced: Flag;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface RecoveryKeysTable {
  id: string;
  user_id: string;
  key_hash: string;
  used_at: string | null;
  created_at: string;
}

export interface MfaChallengesTable {
  id: string;
  /** Null for an onboarding challenge: its flow has no user yet. */
  user_id: string | null;
  /** For an onboarding challenge: its flow, which numbers its sends (unique with `sends`). */
  flow_id: string | null;
  /** The method the code belongs to; null while a new method is being activated. */
  method_id: number | null;
  /** 'login' (completes a sign-in), 'sudo' (refreshes a session's MFA check), 'activate' (adds a
   * method), 'reset' (a forgotten password) or 'onboarding' (proves a new account's email or phone). */
  purpose: string;
  new_method: string | null;
  target: string | null;
  /** The opaque payload the browser holds, hashed. */
  payload_hash: string;
  /** The current code, hashed with the server key; null for totp. */
  code_hash: string | null;
  attempts: number;
  sends: number;
  expires_at: string;
  resend_at: string;
  /** For login challenges: the session the success creates binds to this device. */
  device_key: string | null;
  /** For login challenges: the hash of the sign-in's ticket, spent when the code is right. */
  login_ticket_hash: string | null;
  completed_at: string | null;
  created_at: string;
  /** For an activation that replaces a method (new target, reset authenticator): that method. */
  replaces_method_id: number | null;
  /** The challenge this one replaced (a resend): its code, typed, reads as replaced, not wrong. */
  replaced_id: string | null;
  /** The session that asked for it, where only that session may answer (a passkey's step-up or set-up). */
  session_id: string | null;
}

/** A message as stored: the dev outbox's rows (server/delivery/index.ts), and the start of a queued one's. */
export interface OutboxTable {
  id: string;
  channel: string;
  recipient: string;
  subject: string;
  body: string;
  created_at: string;
}

/** Messages waiting for delivery (server/delivery/queue.ts); a delivered one is deleted. */
export interface MessageOutboxTable extends OutboxTable {
  expires_at: string;
  attempts: Generated<number>;
  next_attempt_at: string;
  locked_until: string | null;
  failed_at: string | null;
  last_error: string | null;
  /** The challenge whose code it carries (its fallback stops once the code is spent or replaced). */
  challenge_id: string | null;
  /** The steps still to try if this one does not arrive: JSON, [{channel, subject, body}, …]. */
  fallbacks: string | null;
  /** Which step of its fallback this is (0: the channel chosen). */
  step: Generated<number>;
  /** The step's message a provider took, whose delivery receipt is awaited until next_attempt_at. */
  awaiting_id: string | null;
}

/** A delivery provider's circuit breaker (server/delivery/breaker.ts): closed while open_until is
 * null, skipped until open_until, then one message at a time tries it (trial_until: that one's lease). */
export interface DeliveryCircuitsTable {
  provider: string;
  failures: Generated<number>;
  open_until: string | null;
  trial_until: string | null;
}

/** An answer kept for a repeat of its call (server/http/idempotency.ts). */
export interface KeptAnswersTable {
  /** A hash of what names the call: its Idempotency-Key and device. */
  id: string;
  /** A hash of the call itself: a key reused for another call is refused. */
  fingerprint: string;
  /** The answer (status, headers, body), sealed and bound to the id. */
  sealed: string;
  expires_at: string;
}

/** What became of a message a provider took (server/delivery/receipts.ts). */
export interface MessageDeliveriesTable {
  /** The outbox's id of the message: its Idempotency-Key, which the provider's receipts name. */
  id: string;
  channel: string | null;
  provider: string;
  status: 'sent' | 'unknown' | 'failed' | 'delivered';
  rank: number;
  sent_at: string | null;
  updated_at: string;
  /** For a code: its challenge, and the step of its fallback (server/delivery/fallback.ts). */
  challenge_id: string | null;
  step: Generated<number>;
}

/** Forgotten-password requests waiting for the worker (server/recovery/forgot.ts). */
export interface ResetRequestsTable {
  id: string;
  kind: 'email' | 'phone';
  name: string;
  channel: string | null;
  ip: string;
  device_key: string;
  payload_hash: string;
  created_at: string;
  locked_until: string | null;
}

/** A change to an account's emails or phones that its notice's link may undo (7 days). */
export interface AccountChangeUndosTable {
  id: string;
  user_id: string;
  token_hash: string;
  /** JSON: { kind: 'added' | 'removed' | 'primary', contact: 'email' | 'phone', value, previous? }. */
  change: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** The profile picture: its type and its bytes in base64, without metadata. */
export interface UserPicturesTable {
  user_id: string;
  content_type: string;
  data: string;
  updated_at: string;
}

/** A client's logo, served from our own origin (server/oidc/logos.ts). */
export interface OAuthClientLogosTable {
  client_id: string;
  content_type: string;
  /** The image, base64. */
  data: string;
  updated_at: string;
}

/** A voucher product of a card that its holder switched (no row: active). */
export interface CardProductStatesTable {
  card_id: string;
  product: string;
  active: Flag;
  updated_at: string;
}

export interface CardsTable {
  id: string;
  /** 16 digits, 5065… in Belgium. */
  number: string;
  user_id: string | null;
  activated_at: string | null;
  created_at: string;
  /** Keyed hash of the activation code in the holder's letter (server/methods/activation-code.ts). */
  activation_code_hash: string | null;
  /** 'issued' (may be activated) or 'blocked'. */
  status: Generated<string>;
  /** What the employer told us of the holder: onboarding's defaults. */
  holder_firstname: string | null;
  holder_lastname: string | null;
  holder_email: string | null;
  holder_phone: string | null;
  holder_language: string | null;
  company: string | null;
  /** The consumer platform's id of the holder: the new account's user_id. */
  beneficiary_id: string | null;
}

export interface InvitationsTable {
  id: string;
  code_hash: string;
  email: string;
  firstname: string | null;
  lastname: string | null;
  language: string | null;
  company: string | null;
  user_id: string | null;
  customer_user_id: string | null;
  fridom_user_id: string | null;
  mfa_forced: Flag;
  mfa_customer: Flag;
  expires_at: string;
  used_at: string | null;
  used_by: string | null;
  created_at: string;
}

export interface OnboardingFlowsTable {
  id: string;
  token_hash: string;
  /** 'card' or 'invitation'. */
  source: string;
  card_id: string | null;
  invitation_id: string | null;
  /** How far the flow got (server/onboarding/progress.ts). */
  state: string;
  firstname: string | null;
  lastname: string | null;
  language: string;
  email: string | null;
  email_verified_at: string | null;
  phone: string | null;
  phone_verified_at: string | null;
  terms_accepted_at: string | null;
  /** JSON: the marketing preferences chosen with the terms. */
  marketing: string | null;
  /** Unused since 2026_11_25_challenge_store: onboarding's codes live in mfa_challenges. */
  code_kind: string | null;
  code_target: string | null;
  code_hash: string | null;
  code_attempts: Generated<number>;
  code_sends: Generated<number>;
  code_expires_at: string | null;
  code_resend_at: string | null;
  ip: string | null;
  created_at: string;
  expires_at: string;
  completed_at: string | null;
  user_id: string | null;
  /** 'card_activated', 'card_activation_failed' or 'invitation', once completed. */
  outcome: string | null;
}

export interface ConsentsTable {
  id: string;
  user_id: string;
  /** 'terms', 'privacy', 'marketing_email', 'marketing_sms', 'marketing_partners'. */
  kind: string;
  granted: Flag;
  created_at: string;
}

export interface CaptchaSpentTable {
  /** The challenge's signature. */
  id: string;
  expires_at: string;
}

/** Every oidc-provider model (Session, AccessToken, AuthorizationCode, Grant, …), one row each. */
export interface OidcModelsTable {
  model: string;
  id: string;
  /** The model's payload as JSON text (without `consumed`: consumed_at says it). */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  /** Null: does not expire. */
  expires_at: string | null;
  consumed_at: string | null;
  /** The account and client of a grant (and of what it issues), for the access list. */
  account_id: string | null;
  client_id: string | null;
}

export interface OidcSessionLinksTable {
  /** oidc-provider's Session id (its session cookie's value). */
  provider_session_id: string;
  /** The Tessera session (sessions.id) that signed it in. */
  session_id: string;
  account_id: string;
  issuer: string;
  created_at: string;
}

export interface LoginTicketsTable {
  /** The ticket's digest: the ticket itself is never stored. */
  ticket_hash: string;
  user_id: string;
  /** The first-party client that asked for it; only it may bring it. */
  client_id: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface ConsentAnswersTable {
  /** The authorisation request's interaction uid: one answer each. */
  uid: string;
  user_id: string;
  client_id: string;
  /** JSON array of the scopes the screen asked for. */
  scopes: string;
  approved: Flag;
  answered_at: string;
}

export interface PartnerAccessRequestsTable {
  id: string;
  user_id: string;
  client_id: string;
  created_at: string;
}

export interface OidcSigningKeysTable {
  kid: string;
  /** Key sets are numbered; the highest is the one that signs. */
  generation: number;
  /** 'RS256' or 'ES256'. */
  alg: string;
  /** The public JWK as JSON text. */
  public_jwk: string;
  /** The private JWK, sealed with a key derived from SECRET_KEY (server/config/secrets.ts). */
  private_jwk_sealed: string;
  created_at: string;
  retired_at: string | null;
}

/** What a stale link may bring of an account merged away, and the account it leads to now. */
export interface AccountAliasesTable {
  /** 'sub' (the merged account's id, its OIDC subject) or a platform id's column. */
  kind: string;
  value: string;
  user_id: string;
  created_at: string;
}

/** A proof that the account behind a merge offer's duplicated address is the person's own. */
export interface FuzzionProofsTable {
  ticket_hash: string;
  /** 'card' was written by earlier offers, when a card number counted on its own; it counts for nothing now. */
  proof: 'code' | 'password' | 'mfa' | 'card';
  other_user_id: string;
  proven_at: string;
}

/** A Microsoft identity as stored: its tenant and object ids name it; its email and name as it said them. */
export interface MicrosoftIdentityColumns {
  provider: 'microsoft';
  tenant_id: string;
  object_id: string;
  email: string | null;
  name: string | null;
}

/** A Microsoft identity linked to an account, keyed by tenant and object id. */
export interface SsoIdentitiesTable extends MicrosoftIdentityColumns {
  id: string;
  user_id: string;
  created_at: string;
  last_used_at: string | null;
}

/** A Microsoft sign-in under way: what the callback checks, bound to the browser that started it. */
export interface SsoRequestsTable {
  state_hash: string;
  browser_hash: string;
  tenant_id: string;
  nonce: string;
  code_verifier: string;
  device_key: string | null;
  target: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A one-time ticket naming a Microsoft identity no account has yet (the link-existing screen). */
export interface SsoLinkTicketsTable extends MicrosoftIdentityColumns {
  ticket_hash: string;
  browser_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface Database {
  sso_identities: SsoIdentitiesTable;
  sso_requests: SsoRequestsTable;
  sso_link_tickets: SsoLinkTicketsTable;
  account_aliases: AccountAliasesTable;
  fuzzion_proofs: FuzzionProofsTable;
  oidc_models: OidcModelsTable;
  oidc_signing_keys: OidcSigningKeysTable;
  cards: CardsTable;
  card_product_states: CardProductStatesTable;
  user_pictures: UserPicturesTable;
  account_change_undos: AccountChangeUndosTable;
  invitations: InvitationsTable;
  onboarding_flows: OnboardingFlowsTable;
  consents: ConsentsTable;
  captcha_spent: CaptchaSpentTable;
  mfa_methods: MfaMethodsTable;
  passkeys: PasskeysTable;
  passkey_sign_ins: PasskeySignInsTable;
  recovery_keys: RecoveryKeysTable;
  mfa_challenges: MfaChallengesTable;
  outbox: OutboxTable;
  message_outbox: MessageOutboxTable;
  delivery_circuits: DeliveryCircuitsTable;
  message_deliveries: MessageDeliveriesTable;
  kept_answers: KeptAnswersTable;
  reset_requests: ResetRequestsTable;
  users: UsersTable;
  user_emails: ContactTable;
  user_phones: ContactTable;
  passwords: PasswordsTable;
  devices: DevicesTable;
  sessions: SessionsTable;
  tickets: TicketsTable;
  security_events: SecurityEventsTable;
  oauth_clients: OAuthClientsTable;
  oauth_client_logos: OAuthClientLogosTable;
  partner_access_requests: PartnerAccessRequestsTable;
  oidc_session_links: OidcSessionLinksTable;
  login_tickets: LoginTicketsTable;
  consent_answers: ConsentAnswersTable;
}
