// Valibot schemas of every request and answer the browser and the server exchange.
// The server turns them into JSON Schema for validation and OpenAPI; the browser parses answers.
// The first screen's own are in ./baseSchemas.ts, re-exported here.
import * as v from 'valibot';
import { INTERACTION_UID, LOCALES, LOGOUT_REF } from './constants.ts';
import { ONBOARDING_PROGRESS } from './onboarding.ts';
import { PASSKEY_NAME_MAX, SENT_CODE_PATTERN } from './rules.ts';
import {
  CaptchaField,
  MfaMethodKind,
  MfaMethodSummary,
  MfaRequiredAnswer,
  MfaSetup,
  TokenAnswer,
  text,
  trimmedText,
} from './baseSchemas.ts';

export * from './baseSchemas.ts';

export const HealthAnswer = v.object({ status: v.picklist(['ok', 'unavailable']) });

// ---- MFA -------------------------------------------------------------------------------------

/** GET /api/mfa query: `?includeAll` (or includeAll=true) adds the kinds that can still be added. */
export const MfaListQuery = v.strictObject({
  includeAll: v.optional(v.picklist(['', 'true', 'false', '1', '0'])),
});
export type MfaListQuery = v.InferOutput<typeof MfaListQuery>;

export const MfaMethodList = v.object({
  data: v.array(MfaMethodSummary),
  /** With includeAll: methods that can be added, by their negative id (a target must be supplied). */
  available: v.optional(v.array(v.object({ id: v.number(), method: MfaMethodKind }))),
});

/** GET /api/mfa/status: whether the session passed MFA recently (sudo), whether the account has a
 * single method, whether the card is its only way through, and whether it must set one up. */
export const MfaStatus = v.object({
  sudo: v.boolean(),
  single: v.boolean(),
  need_card: v.boolean(),
  enrolment: MfaSetup,
  /** Whether to offer a passkey (the account has none, and did not say "not now" to one). */
  passkey_offer: v.boolean(),
});

/** GET /api/mfa/sudo query: start (or resend) a challenge on one method. */
export const MfaChallengeQuery = v.strictObject({
  mfaId: v.pipe(v.string(), v.regex(/^\d{1,10}$/)),
  /** The login payload from POST /token's 401, when the challenge completes a sign-in. */
  payload: v.optional(text(256)),
  channel: v.optional(v.picklist(['email', 'sms', 'call', 'whatsapp'])),
  single: v.optional(v.picklist(['true', 'false'])),
});
export type MfaChallengeQuery = v.InferOutput<typeof MfaChallengeQuery>;

/** Base64url text, as WebAuthn's JSON forms carry binary values. */
const base64url = (max: number) => v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]*$/), v.maxLength(max));

/** A passkey's answer: WebAuthn's PublicKeyCredential as JSON (@simplewebauthn/browser's
 * RegistrationResponseJSON or AuthenticationResponseJSON), bounded in every field. */
export const PasskeyCredential = v.strictObject({
  id: base64url(1366),
  rawId: base64url(1366),
  type: v.literal('public-key'),
  authenticatorAttachment: v.optional(v.picklist(['platform', 'cross-platform'])),
  clientExtensionResults: v.strictObject({ credProps: v.optional(v.strictObject({ rk: v.optional(v.boolean()) })) }),
  response: v.strictObject({
    clientDataJSON: base64url(4096),
    /** A registration's. */
    attestationObject: v.optional(base64url(65536)),
    authenticatorData: v.optional(base64url(16384)),
    transports: v.optional(v.pipe(v.array(text(16)), v.maxLength(8))),
    publicKeyAlgorithm: v.optional(v.number()),
    publicKey: v.optional(base64url(4096)),
    /** An assertion's: room for the largest the server's algorithms make, ML-DSA's (some 2.4 kB for
     * ML-DSA-44, the first it offers where the runtime has it; 4.6 kB for ML-DSA-87). */
    signature: v.optional(base64url(8192)),
    userHandle: v.optional(base64url(128)),
  }),
});
export type PasskeyCredential = v.InferOutput<typeof PasskeyCredential>;

/** The options a passkey's challenge hands the browser (WebAuthn's creation or request options as
 * JSON, for @simplewebauthn/browser's startRegistration or startAuthentication). */
export const PasskeyOptions = v.objectWithRest({ challenge: v.string() }, v.unknown());
export type PasskeyOptions = v.InferOutput<typeof PasskeyOptions>;

/** POST /api/passkey/sign-in: a passkey's assertion, with the challenge cookie. */
export const PasskeySignInRequest = v.strictObject({
  credential: PasskeyCredential,
  /** The OAuth client the sign-in is for, when it comes from a partner's target URL. */
  client_id: v.optional(text(128)),
  isTrustedDevice: v.optional(v.boolean()),
});
export type PasskeySignInRequest = v.InferOutput<typeof PasskeySignInRequest>;

/** GET /api/passkey/account: what the browser tells the password manager of the account (WebAuthn's
 * Signal API): the relying party, the account's user handle, the passkeys the server still takes
 * (after one was deleted) and the names they show (after the person's changed). */
export const PasskeyAccount = v.object({
  rpId: v.string(),
  userId: v.string(),
  credentialIds: v.array(v.string()),
  name: v.string(),
  displayName: v.string(),
});
export type PasskeyAccount = v.InferOutput<typeof PasskeyAccount>;

/** GET /codes/{payload}/delivery: how a code sent for a challenge is getting there. `channel`: the
 * way of its latest step; `fell_back_from`: the way it left for this one (null at the first). */
export const CodeDelivery = v.object({
  channel: v.picklist(['email', 'sms', 'call', 'whatsapp']),
  status: v.picklist(['sending', 'sent', 'delivered', 'failed', 'unknown']),
  fell_back_from: v.nullable(v.picklist(['email', 'sms', 'call', 'whatsapp'])),
});
export type CodeDelivery = v.InferOutput<typeof CodeDelivery>;

export const MfaChallengeAnswer = v.object({
  payload: v.string(),
  method: MfaMethodKind,
  /** Masked destination, for email, sms, call and whatsapp. */
  target: v.optional(v.string()),
  expires_at: v.string(),
  /** Seconds until expiry: a countdown that does not depend on the browser's clock. */
  expires_in: v.optional(v.number()),
  /** When a new code may be asked for; absent for totp. */
  resend_at: v.optional(v.string()),
  /** Seconds until a new code may be asked for; absent for totp. */
  resend_in: v.optional(v.number()),
  /** For a passkey: what the browser asks the authenticator (no code is sent). */
  passkey: v.optional(PasskeyOptions),
});
export type MfaChallengeAnswer = v.InferOutput<typeof MfaChallengeAnswer>;

/** A code, a recovery key, or a card number (16 digits). */
const MfaCode = v.pipe(v.string(), v.regex(/^[A-Za-z0-9]{4,16}$/));

/** A challenge is answered by a code or, for a passkey, by its credential: one of the two. */
const oneAnswer = <T extends { code?: string; credential?: PasskeyCredential }>(answer: T) =>
  (answer.code === undefined) !== (answer.credential === undefined);

export const MfaVerifyRequest = v.pipe(
  v.strictObject({
    payload: text(256, 1),
    code: v.optional(MfaCode),
    credential: v.optional(PasskeyCredential),
    isTrustedDevice: v.optional(v.boolean()),
  }),
  v.check(oneAnswer, 'Either a code or a passkey credential'),
);
export type MfaVerifyRequest = v.InferOutput<typeof MfaVerifyRequest>;

/** POST /api/mfa/sudo/password: the step-up of an account without a second factor. */
export const PasswordStepUpRequest = v.strictObject({ password: text(1024, 1) });
export type PasswordStepUpRequest = v.InferOutput<typeof PasswordStepUpRequest>;

export const MfaVerifyAnswer = v.object({
  /** After a recovery key: how many unused keys remain (spec: the TOTP recovery screen shows it). */
  recovery_keys_left: v.optional(v.number()),
  access_token: v.optional(v.string()),
  token_type: v.optional(v.literal('Bearer')),
  expires_in: v.optional(v.number()),
});

export const MfaActivateQuery = v.strictObject({
  target: v.optional(text(320)),
  edit: v.optional(v.picklist(['true', 'false'])),
  channel: v.optional(v.picklist(['email', 'sms', 'call', 'whatsapp'])),
  'dry-run': v.optional(v.picklist(['true', 'false'])),
});
export type MfaActivateQuery = v.InferOutput<typeof MfaActivateQuery>;

/** GET /api/mfa/{id}/activate (204 means: nothing to do). */
export const MfaActivateAnswer = v.object({
  payload: v.string(),
  fuzzion: v.boolean(),
  data: v.object({
    method: v.optional(MfaMethodKind),
    target: v.optional(v.string()),
    expires_at: v.optional(v.string()),
    expires_in: v.optional(v.number()),
    resend_at: v.optional(v.string()),
    resend_in: v.optional(v.number()),
    /** For a new authenticator: the secret to type in, and the otpauth:// URL the QR code shows. */
    secret: v.optional(v.string()),
    otpauth_url: v.optional(v.string()),
    /** The otpauth:// URL as a QR code (SVG). */
    qr_svg: v.optional(v.string()),
    /** For a new passkey: what the browser asks the authenticator to create. */
    passkey: v.optional(PasskeyOptions),
    /** For fuzzion: why (email_in_use / phone_in_use) and the spec's message. */
    code: v.optional(v.string()),
    message: v.optional(v.string()),
  }),
});

export const MfaActivateRequest = v.pipe(
  v.strictObject({
    payload: text(256, 1),
    code: v.optional(MfaCode),
    credential: v.optional(PasskeyCredential),
  }),
  v.check(oneAnswer, 'Either a code or a passkey credential'),
);

/** PATCH /api/mfa/{id}: a passkey's new name. */
export const MfaRenameRequest = v.strictObject({ name: trimmedText(PASSKEY_NAME_MAX, 1) });
export type MfaRenameRequest = v.InferOutput<typeof MfaRenameRequest>;
export type MfaActivateRequest = v.InferOutput<typeof MfaActivateRequest>;

export const MfaActivateResult = v.object({
  id: v.number(),
  method: MfaMethodKind,
  /** Shown once, when an authenticator is added or its keys regenerated. */
  recovery_keys: v.optional(v.array(v.string())),
});

export const RecoveryKeysAnswer = v.object({ recovery_keys: v.array(v.string()) });

/** DELETE /api/mfa/{id}: optionally, the method that becomes primary instead of the default backup. */
export const MfaDeleteRequest = v.strictObject({
  // A method id: a database integer.
  target: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2 ** 31 - 1))),
});
export type MfaDeleteRequest = v.InferOutput<typeof MfaDeleteRequest>;

// ---- CAPTCHA (ALTCHA) --------------------------------------------------------------------------

/** How hard a proof of work is: 0 the forms' own, 1 raised past an account-wide ceiling of
 * failures, 2 the top one past 100 failures in a day (server/captcha/ceilings.ts). */
export const CAPTCHA_LEVELS = [0, 1, 2] as const;
export type CaptchaLevel = (typeof CAPTCHA_LEVELS)[number];

/** GET /api/captcha/challenge query: the level asked for (0 unless said). */
export const CaptchaChallengeQuery = v.strictObject({ level: v.optional(v.picklist(['0', '1', '2'])) });
export type CaptchaChallengeQuery = v.InferOutput<typeof CaptchaChallengeQuery>;

/** GET /api/captcha/challenge: altcha-lib's v2 challenge. Its level is in `data`, under the
 * signature: a solution counts at the level it was made for, whatever the browser says. */
export const CaptchaChallenge = v.object({
  parameters: v.object({
    algorithm: v.string(),
    nonce: v.string(),
    salt: v.string(),
    cost: v.number(),
    keyLength: v.number(),
    keyPrefix: v.string(),
    keySignature: v.optional(v.string()),
    expiresAt: v.optional(v.number()),
    data: v.optional(v.object({ level: v.picklist(CAPTCHA_LEVELS) })),
  }),
  signature: v.string(),
});
export type CaptchaChallenge = v.InferOutput<typeof CaptchaChallenge>;

// ---- Onboarding ----------------------------------------------------------------------------------

/** Every call after the start carries the flow's opaque token. */
const FlowToken = text(256, 16);
const OptionalLocale = v.optional(v.picklist(LOCALES));

/** "I received my card": the card's number and the activation code of its letter. */
export const OnboardingCardRequest = v.strictObject({
  cardNumber: text(32),
  activationCode: text(32),
  /** The language the person is using: the flow's messages speak it (docs/decisions/onboarding-language.md). */
  language: OptionalLocale,
  captcha: CaptchaField,
});
export type OnboardingCardRequest = v.InferOutput<typeof OnboardingCardRequest>;

/** "I received an email": the invitation code it carried. */
export const OnboardingInvitationRequest = v.strictObject({
  code: text(32),
  language: OptionalLocale,
  captcha: CaptchaField,
});
export type OnboardingInvitationRequest = v.InferOutput<typeof OnboardingInvitationRequest>;

/** What the employer told us, from the card or the invitation. */
const OnboardingWelcome = v.object({
  firstname: v.nullable(v.string()),
  lastname: v.nullable(v.string()),
  company: v.nullable(v.string()),
  email: v.nullable(v.string()),
  /** The invitation's address is proven by the invitation: it may be kept without a code. */
  emailVerified: v.boolean(),
  phone: v.nullable(v.string()),
  /** The flow's language: what the person uses when the variant offers it, else what the employer said. */
  language: v.picklist(LOCALES),
});

/** What the welcome screen and the following steps start from (what the employer told us). */
export const OnboardingStarted = v.object({
  flow: v.string(),
  source: v.picklist(['card', 'invitation']),
  welcome: OnboardingWelcome,
});
export type OnboardingStarted = v.InferOutput<typeof OnboardingStarted>;

/** 409 card_already_active: the card belongs to an account, whose usernames are shown masked. */
export const CardAlreadyActiveAnswer = v.object({
  code: v.literal('card_already_active'),
  message: v.string(),
  usernames: v.array(v.string()),
});

export const MarketingPreferences = v.strictObject({ email: v.boolean(), sms: v.boolean(), partners: v.boolean() });
export type MarketingPreferences = v.InferOutput<typeof MarketingPreferences>;

/** The security alerts Tessera sends an account whatever its preferences (they protect it). */
export const SECURITY_ALERTS = ['new_device', 'password_changed', 'contact_changed', 'iban_changed'] as const;

/** GET and PUT /api/notifications: the marketing preferences (editable) and the security alerts (always sent). */
export const NotificationsAnswer = v.object({
  marketing: v.object({ email: v.boolean(), sms: v.boolean(), partners: v.boolean() }),
  security_alerts: v.array(v.picklist(SECURITY_ALERTS)),
});
export type NotificationsAnswer = v.InferOutput<typeof NotificationsAnswer>;

export const NotificationsRequest = v.strictObject({ marketing: MarketingPreferences });
export type NotificationsRequest = v.InferOutput<typeof NotificationsRequest>;

export const OnboardingTermsRequest = v.strictObject({
  flow: FlowToken,
  terms: v.boolean(),
  privacy: v.boolean(),
  marketing: MarketingPreferences,
});
export type OnboardingTermsRequest = v.InferOutput<typeof OnboardingTermsRequest>;

export const OnboardingProfileRequest = v.strictObject({
  flow: FlowToken,
  firstname: text(100),
  lastname: text(100),
});
export type OnboardingProfileRequest = v.InferOutput<typeof OnboardingProfileRequest>;

export const OnboardingEmailRequest = v.strictObject({ flow: FlowToken, email: text(320) });
export type OnboardingEmailRequest = v.InferOutput<typeof OnboardingEmailRequest>;

export const OnboardingPhoneRequest = v.strictObject({
  flow: FlowToken,
  phone: text(32),
  channel: v.optional(v.picklist(['sms', 'call', 'whatsapp'])),
});
export type OnboardingPhoneRequest = v.InferOutput<typeof OnboardingPhoneRequest>;

/** A code went to the address or number (masked in target), or none was needed: it is proven already. */
export const OnboardingCodeSent = v.object({
  verified: v.boolean(),
  target: v.string(),
  expires_at: v.optional(v.string()),
  expires_in: v.optional(v.number()),
  resend_at: v.optional(v.string()),
  resend_in: v.optional(v.number()),
});
export type OnboardingCodeSent = v.InferOutput<typeof OnboardingCodeSent>;

export const OnboardingVerifyRequest = v.strictObject({
  flow: FlowToken,
  code: v.pipe(v.string(), v.regex(SENT_CODE_PATTERN)),
});
export type OnboardingVerifyRequest = v.InferOutput<typeof OnboardingVerifyRequest>;

export const OnboardingVerified = v.object({ verified: v.picklist(['email', 'phone']) });

/** A reload asks what the flow holds: POST, so that the token stays out of URLs and logs. */
export const OnboardingStateRequest = v.strictObject({ flow: FlowToken });
export type OnboardingStateRequest = v.InferOutput<typeof OnboardingStateRequest>;

/** What the flow's record holds, for a reload to show the step reached: only what the start
 * answered and what the person gave in this flow. */
export const OnboardingState = v.object({
  progress: v.picklist(ONBOARDING_PROGRESS),
  source: v.picklist(['card', 'invitation']),
  /** As the start answered it. */
  welcome: OnboardingWelcome,
  /** Null until the terms and the privacy policy are accepted. */
  terms: v.nullable(v.object({ marketing: MarketingPreferences })),
  /** Null until the details are saved. */
  profile: v.nullable(v.object({ firstname: v.string(), lastname: v.string() })),
  /** The address and number the flow holds (the employer's until the person gives their own), and whether proven. */
  email: v.nullable(v.object({ address: v.string(), verified: v.boolean() })),
  phone: v.nullable(v.object({ number: v.string(), verified: v.boolean() })),
  /** The code waiting to be typed, timed as the answer that sent it was; null when none is. */
  code: v.nullable(
    v.object({
      kind: v.picklist(['email', 'phone']),
      target: v.string(),
      expires_at: v.string(),
      expires_in: v.number(),
      resend_at: v.string(),
      resend_in: v.number(),
    }),
  ),
});
export type OnboardingState = v.InferOutput<typeof OnboardingState>;

export const OnboardingPasswordRequest = v.strictObject({
  flow: FlowToken,
  password: text(1024),
  confirmation: text(1024),
  /** The language the person reads as they create the account: the account's (one the variant
   * offers; another falls back, docs/decisions/onboarding-language.md). */
  language: v.picklist(LOCALES),
});
export type OnboardingPasswordRequest = v.InferOutput<typeof OnboardingPasswordRequest>;

/** The spec's three outcomes, and the username to sign in with. */
export const OnboardingOutcome = v.picklist(['card_activated', 'card_activation_failed', 'invitation']);
export type OnboardingOutcome = v.InferOutput<typeof OnboardingOutcome>;
/** The new account is signed in as a password sign-in is (server/identity/signInDecision.ts): the session
 * (its cookie set, with the set-up of a second factor the account must have), or a second factor due. */
export const OnboardingSignIn = v.variant('kind', [
  v.object({ kind: v.literal('session'), token: TokenAnswer }),
  v.object({ kind: v.literal('second_factor'), mfa: MfaRequiredAnswer.entries.mfa }),
]);
export type OnboardingSignIn = v.InferOutput<typeof OnboardingSignIn>;
export const OnboardingDone = v.object({ outcome: OnboardingOutcome, username: v.string(), signIn: OnboardingSignIn });
export type OnboardingDone = v.InferOutput<typeof OnboardingDone>;

// ---- Recovery ----------------------------------------------------------------------------------

export const ResetPasswordRequest = v.strictObject({
  payload: text(256, 1),
  password: text(1024),
  confirmation: text(1024),
});
export type ResetPasswordRequest = v.InferOutput<typeof ResetPasswordRequest>;

/** POST /api/user/password: the signed-in person changes their password (after a recent second
 * factor); `keepThisSession` keeps this device signed in, every other session ends anyway. */
export const ChangePasswordRequest = v.strictObject({
  current: text(1024, 1),
  password: text(1024),
  confirmation: text(1024),
  keepThisSession: v.boolean(),
});
export type ChangePasswordRequest = v.InferOutput<typeof ChangePasswordRequest>;

export const ChangePasswordAnswer = v.object({
  /** This session ended with the others: the browser is signed out. */
  session_ended: v.boolean(),
});
export type ChangePasswordAnswer = v.InferOutput<typeof ChangePasswordAnswer>;

export const ForgotPasswordRequest = v.strictObject({
  username: text(320, 1),
  /** For a phone: how the code comes (SMS by default). */
  channel: v.optional(v.picklist(['sms', 'call', 'whatsapp'])),
  captcha: CaptchaField,
});
export type ForgotPasswordRequest = v.InferOutput<typeof ForgotPasswordRequest>;

/** The same shape whether the account exists or not. */
export const ForgotPasswordAnswer = v.object({
  recipient: v.array(v.string()),
  technology: v.picklist(['EMAIL', 'sms', 'call', 'whatsapp']),
  payload: v.string(),
  /** Seconds until the code expires, and until a new one may be asked for (the same for every account). */
  expires_in: v.number(),
  resend_in: v.number(),
});

export const ForgotPasswordVerifyRequest = v.strictObject({
  payload: text(256, 1),
  code: v.pipe(v.string(), v.regex(SENT_CODE_PATTERN)),
});
export type ForgotPasswordVerifyRequest = v.InferOutput<typeof ForgotPasswordVerifyRequest>;

export const ForgotPasswordVerifyAnswer = v.object({ payload: v.string() });

/** Exactly one of the two. */
export const ForgotUsernameRequest = v.strictObject({
  cardNumber: v.optional(text(32)),
  nationalRegisterNumber: v.optional(text(32)),
  captcha: CaptchaField,
});
export type ForgotUsernameRequest = v.InferOutput<typeof ForgotUsernameRequest>;

/** The account's usernames (emails and phones), masked; empty when none was found. */
export const ForgotUsernameAnswer = v.object({ usernames: v.array(v.string()) });

// ---- Partner applications: GET/POST /api/authorize, GET /api/tokens, DELETE /api/token/{client_id}

/** A client application as the person sees it: its name in the person's language, its logo and links. */
export const PartnerClient = v.object({
  client_id: v.string(),
  name: v.string(),
  logo_uri: v.nullable(v.string()),
  policy_uri: v.nullable(v.string()),
  tos_uri: v.nullable(v.string()),
});
export type PartnerClient = v.InferOutput<typeof PartnerClient>;

const InteractionUid = v.pipe(v.string(), v.regex(INTERACTION_UID));

export const AuthorizeQuery = v.strictObject({ uid: InteractionUid });
export type AuthorizeQuery = v.InferOutput<typeof AuthorizeQuery>;

/** The spec's authorize response: the scopes to approve (`approvalType`), or, when nothing is left
 * to approve, where the browser goes on (`target`); with the client and what it holds already. */
export const AuthorizeAnswer = v.object({
  client: PartnerClient,
  approvalType: v.optional(v.array(v.string())),
  target: v.optional(v.string()),
  granted: v.array(v.string()),
});
export type AuthorizeAnswer = v.InferOutput<typeof AuthorizeAnswer>;

/** Send-approval: the person's answer to the consent screen. */
export const ApprovalRequest = v.strictObject({ uid: InteractionUid, approve: v.boolean() });
export type ApprovalRequest = v.InferOutput<typeof ApprovalRequest>;
/** Where the browser goes on: back through the authorisation server to the client. */
export const ApprovalAnswer = v.object({ target: v.string() });
export type ApprovalAnswer = v.InferOutput<typeof ApprovalAnswer>;

/** A partner application's access to the account (spec §3 "Access grant"): the scopes are names,
 * which the app translates. `last_used_at` is when it last got a token. */
export const AccessGrant = v.object({
  client_id: v.string(),
  name: v.string(),
  logo_uri: v.nullable(v.string()),
  scopes: v.array(v.string()),
  granted_at: v.string(),
  last_used_at: v.nullable(v.string()),
});
export type AccessGrant = v.InferOutput<typeof AccessGrant>;
export const AccessGrantList = v.object({ data: v.array(AccessGrant) });
export type AccessGrantList = v.InferOutput<typeof AccessGrantList>;

/** The path of DELETE /api/token/{client_id}: a registered client's id (letters, digits, `.`, `_`,
 * `:`, `-`); anything else is refused before it reaches the database. */
export const CLIENT_ID = /^[\w.:-]{1,100}$/;
export const AccessGrantParams = v.strictObject({ client_id: v.pipe(v.string(), v.regex(CLIENT_ID)) });
export type AccessGrantParams = v.InferOutput<typeof AccessGrantParams>;

// ---- Partner pages: GET /api/partners/{client_id}, POST /api/partners/{client_id}/access-requests

export const PartnerParams = AccessGrantParams;
export type PartnerParams = AccessGrantParams;

/** A partner as its landing page shows it: the client, and the scopes it may ask for (names, which
 * the app translates). First-party clients have no landing page. */
/** An application's sign-out waiting for the person's answer (GET /api/logout-requests/{ref}): the
 * application (null when the request named none), and the form the answer posts to the provider. */
export const LogoutRequestParams = v.strictObject({ ref: v.pipe(v.string(), v.regex(LOGOUT_REF)) });
export type LogoutRequestParams = v.InferOutput<typeof LogoutRequestParams>;
export const LogoutRequestAnswer = v.object({
  client: v.nullable(PartnerClient),
  action: v.string(),
  xsrf: v.string(),
});
export type LogoutRequestAnswer = v.InferOutput<typeof LogoutRequestAnswer>;

export const PartnerAnswer = v.object({ client: PartnerClient, scopes: v.array(v.string()) });
export type PartnerAnswer = v.InferOutput<typeof PartnerAnswer>;

/** An access request to a partner's administrator: asking again answers the same request. */
export const AccessRequestAnswer = v.object({ client_id: v.string(), requested_at: v.string() });
export type AccessRequestAnswer = v.InferOutput<typeof AccessRequestAnswer>;

/** Where a signed-in person stands with a partner, before asking its administrator: `granted` (the
 * person gave it access already), `requested` (asked already, at `requested_at`), `unavailable` (no
 * administrator is registered to ask) or `none` (may ask). */
export const PartnerAccessAnswer = v.object({
  client_id: v.string(),
  access: v.picklist(['granted', 'requested', 'unavailable', 'none']),
  requested_at: v.nullable(v.string()),
});
export type PartnerAccessAnswer = v.InferOutput<typeof PartnerAccessAnswer>;
// ---- Sign-in by URL hash: POST /api/login-tickets (a platform), POST /api/token/ticket (the browser)

/** A one-time sign-in ticket for the browser, valid `expires_in` seconds. */
export const LoginTicketAnswer = v.object({ ticket: v.string(), expires_in: v.number() });
export type LoginTicketAnswer = v.InferOutput<typeof LoginTicketAnswer>;

export const LoginTicketRequest = v.strictObject({
  ticket: v.pipe(v.string(), v.regex(/^[\w-]{16,128}$/)),
  client_id: v.pipe(v.string(), v.regex(/^[\w.-]{1,64}$/)),
});
export type LoginTicketRequest = v.InferOutput<typeof LoginTicketRequest>;

// ---- Security history: GET /api/history, GET /api/history/summary

/** The filters of the history: a date range (YYYY-MM-DD, UTC, both ends included; either end may be
 * left out for the default of contract/history.ts) and the categories (comma-separated; none: all).
 * The days are checked by the handler, which answers `invalid_date_range` for a day that is no day
 * or a range turned round. `cursor` is the `next` of the previous page. */
export const HistoryQuery = v.strictObject({
  from: v.optional(text(40)),
  to: v.optional(text(40)),
  categories: v.optional(v.pipe(v.string(), v.regex(/^[a-z_]{1,40}(,[a-z_]{1,40}){0,20}$/))),
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[\w-]{1,300}$/))),
});
export type HistoryQuery = v.InferOutput<typeof HistoryQuery>;
export const HistorySummaryQuery = v.strictObject({ from: v.optional(text(40)), to: v.optional(text(40)) });
export type HistorySummaryQuery = v.InferOutput<typeof HistorySummaryQuery>;

/** One security event as the history shows it: when, what (the raw type and its category), and from
 * where: the device's browser and operating system (from its user agent) and the country (and,
 * with a city database, the city) of the address; null when unknown. */
export const HistoryEvent = v.object({
  id: v.string(),
  at: v.string(),
  type: v.string(),
  category: v.string(),
  browser: v.nullable(v.string()),
  os: v.nullable(v.string()),
  platform: v.nullable(v.string()),
  country: v.nullable(v.string()),
  /** Known only where the server has a city database. */
  city: v.nullable(v.string()),
});
export type HistoryEvent = v.InferOutput<typeof HistoryEvent>;
/** A page of events, newest first; `next` asks for the following page (null on the last). */
export const HistoryPage = v.object({
  data: v.array(HistoryEvent),
  next: v.nullable(v.string()),
  from: v.string(),
  to: v.string(),
});
export type HistoryPage = v.InferOutput<typeof HistoryPage>;
/** Successful sign-ins per day of the range, every day listed (zero included), oldest first. */
export const HistorySummary = v.object({
  from: v.string(),
  to: v.string(),
  days: v.array(v.object({ date: v.string(), sign_ins: v.number() })),
});
export type HistorySummary = v.InferOutput<typeof HistorySummary>;
// ---- Devices and sessions (spec §3 "Session/device"): GET /api/devices, DELETE /api/devices/{id}/sessions,
// DELETE /api/sessions/others, DELETE /api/sessions

/** A platform or application a device signed in to: its client, named. */
export const DeviceService = v.object({ client_id: v.string(), name: v.string() });
export type DeviceService = v.InferOutput<typeof DeviceService>;

/** A device of the account, in words a person recognises. A missing browser, system, platform or
 * country is null, which the screen words as "unknown"; so is the city, known only where the server
 * has a city database. `status` is
 * `active` while the device holds a live session (`sessions` counts them), `signed_out` after. */
export const Device = v.object({
  id: v.string(),
  user_agent: v.nullable(v.string()),
  browser: v.nullable(v.string()),
  os: v.nullable(v.string()),
  /** desktop, mobile, tablet or tv: the screen names the device by it. */
  platform: v.nullable(v.string()),
  /** ISO 3166 country of the address its latest session came from. */
  country: v.nullable(v.string()),
  city: v.nullable(v.string()),
  first_seen_at: v.string(),
  last_seen_at: v.string(),
  trusted_until: v.nullable(v.string()),
  current: v.boolean(),
  status: v.picklist(['active', 'signed_out']),
  sessions: v.number(),
  services: v.array(DeviceService),
});
export type Device = v.InferOutput<typeof Device>;
export const DeviceList = v.object({ data: v.array(Device) });
export type DeviceList = v.InferOutput<typeof DeviceList>;

/** POST /devices/not-me: the ticket of a new-device mail's "this wasn't me" link (its hash). */
export const NotMeRequest = v.strictObject({ ticket: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{20,100}$/)) });
export type NotMeRequest = v.InferOutput<typeof NotMeRequest>;
