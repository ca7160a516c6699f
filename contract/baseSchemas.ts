// The schemas the first screen needs: errors, the sign-in's request and answers, the profile, the
// config and what the page carries. contract/schemas.ts re-exports them beside every other, so the
// server and the flows import from there; the first screen's modules import from here, and so load
// none of the flows' schemas.
import * as v from 'valibot';
import { LOCALES } from './constants.ts';

/** What no text field takes: control characters (C0, DEL, C1) and unpaired surrogate halves.
 * PostgreSQL cannot store NUL, and none of them belongs in a name, an address, a code or a ticket. */
export const PLAIN_TEXT = /^[^\p{Cc}\p{Cs}]*$/u;

/** A text field of a request: plain text, from `min` to `max` characters. Every request string
 * that is not an enum or matched by a stricter pattern of its own is one of these (JSON Schema
 * carries a single pattern per field, so the two cannot be combined). */
export function text(max: number, min = 0) {
  return v.pipe(
    v.string(),
    v.regex(PLAIN_TEXT, 'Control characters are not allowed'),
    v.minLength(min),
    v.maxLength(max),
  );
}

/** The same, trimmed (the server's JSON Schema does not trim: the handler does where it matters). */
export function trimmedText(max: number, min = 0) {
  return v.pipe(
    v.string(),
    v.regex(PLAIN_TEXT, 'Control characters are not allowed'),
    v.trim(),
    v.minLength(min),
    v.maxLength(max),
  );
}

export const ErrorBody = v.object({
  code: v.string(),
  message: v.string(),
  /** Field-level problems for validation_failed. */
  fields: v.optional(v.array(v.object({ field: v.string(), code: v.string() }))),
  /** Seconds to wait, with too_many_attempts. */
  retry_after: v.optional(v.number()),
});
export type ErrorBody = v.InferOutput<typeof ErrorBody>;

/** The solved CAPTCHA challenge a protected form sends (base64 of ALTCHA's JSON payload). */
export const CaptchaField = v.optional(text(4096));

// ---- POST /api/token -------------------------------------------------------------------------

/** Email, or phone in any common format (normalised to E.164 by the server), plus password. */
export const LoginRequest = v.strictObject({
  username: trimmedText(320, 1),
  password: text(1024, 1),
  /** The OAuth client the sign-in is for, when it comes from a partner's target URL. */
  client_id: v.optional(text(128)),
  /** After repeated failures the sign-in needs a CAPTCHA solution (the failure answers say `captcha: true`). */
  captcha: CaptchaField,
});
export type LoginRequest = v.InferOutput<typeof LoginRequest>;

/** Whether the user must set up a second factor before anything else ('required'), may do so or
 * skip ('offered': a company customer who is not forced), or neither ('none'). */
export const MfaSetup = v.picklist(['required', 'offered', 'none']);
export type MfaSetup = v.InferOutput<typeof MfaSetup>;

export const TokenAnswer = v.object({
  access_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.number(),
  /** Present when the user has no second factor and must ('required') or may ('offered') set one up. */
  mfa_enrolment: v.optional(v.picklist(['required', 'offered'])),
});
export type TokenAnswer = v.InferOutput<typeof TokenAnswer>;

export const MfaMethodKind = v.picklist([
  'email',
  'sms',
  'call',
  'whatsapp',
  'totp',
  'totpRecovery',
  'card',
  'passkey',
]);
export type MfaMethodKind = v.InferOutput<typeof MfaMethodKind>;

export const MfaMethodSummary = v.object({
  id: v.number(),
  method: MfaMethodKind,
  /** Masked destination (email or phone) when the method has one. */
  target: v.optional(v.string()),
  primary: v.optional(v.boolean()),
  /** On a card entry: the last four digits of each activated card (any of them is the answer), so
   * the screens can say which card. */
  card_endings: v.optional(v.array(v.string())),
  /** On the totpRecovery entry of GET /mfa: how many recovery keys are still unused. */
  recovery_keys_left: v.optional(v.number()),
  /** On a passkey: the name its owner gave it, or none yet. */
  name: v.optional(v.string()),
  /** On a passkey: who keeps it (Google Password Manager, iCloud Keychain, …), when its AAGUID is known. */
  provider: v.optional(v.string()),
  /** On a passkey: when it was added, and last used. */
  created_at: v.optional(v.string()),
  last_used_at: v.optional(v.string()),
  /** On a passkey: true when it is synced across the owner's devices, false when bound to one device. */
  synced: v.optional(v.boolean()),
});
export type MfaMethodSummary = v.InferOutput<typeof MfaMethodSummary>;

/** 401 answer of POST /api/token when a second factor is needed. */
export const MfaRequiredAnswer = v.object({
  code: v.literal('mfa_required'),
  message: v.string(),
  mfa: v.object({ payload: v.string(), methods: v.array(MfaMethodSummary) }),
});
export type MfaRequiredAnswer = v.InferOutput<typeof MfaRequiredAnswer>;

/** 403 answer of POST /api/token for password_status 1 or 2: no session, a ticket to renew it. */
export const WeakPasswordAnswer = v.object({
  code: v.literal('weak_password'),
  message: v.string(),
  payload: v.string(),
});
export type WeakPasswordAnswer = v.InferOutput<typeof WeakPasswordAnswer>;

// ---- GET /api/user ---------------------------------------------------------------------------

export const ContactEntry = v.object({
  value: v.string(),
  default: v.boolean(),
  verified: v.boolean(),
});
export type ContactEntry = v.InferOutput<typeof ContactEntry>;

export const UserProfile = v.object({
  id: v.string(),
  firstname: v.string(),
  lastname: v.string(),
  birthdate: v.nullable(v.string()),
  gender: v.nullable(v.string()),
  language: v.string(),
  /** Sorted with the default entry first. */
  email: v.array(ContactEntry),
  phone: v.array(ContactEntry),
  user_id: v.nullable(v.string()),
  customer_user_id: v.nullable(v.string()),
  fridom_user_id: v.nullable(v.string()),
  password_status: v.picklist([0, 1, 2]),
  last_password_change: v.nullable(v.string()),
  mfa_forced: v.boolean(),
  mfa_customer: v.boolean(),
  /** The customer said "not now" to the offered second factor, less than 30 days ago. */
  mfa_offer_later: v.boolean(),
  has_sso: v.boolean(),
  sso_only: v.boolean(),
  /** Whether the account has a second factor (forced enrolment diverts users without one). */
  mfa_enrolled: v.boolean(),
  /** How many of its recovery keys are unused (spec §3 "totpRecovery"); 0 without an authenticator. */
  totpRecovery: v.number(),
  /** Until when this session's merge offer is open (spec §6 "duplicated-logged": the app keeps the
   * person on the merge's screens); absent when the session has none. */
  fuzzion_until: v.optional(v.string()),
  /** When the profile picture was last set (its address changes with it); null without one. */
  picture: v.nullable(v.string()),
  /** The bank account, its IBAN masked (contract/profile.ts maskIban); null until one is given. */
  banking: v.nullable(v.object({ iban: v.string(), country: v.string() })),
});
export type UserProfile = v.InferOutput<typeof UserProfile>;

export const UserAnswer = v.object({ data: UserProfile });
export type UserAnswer = v.InferOutput<typeof UserAnswer>;

// ---- GET /api/config -------------------------------------------------------------------------

/** The bounds of a new password (server configuration); the browser's checklist shows them. */
export const PasswordPolicySchema = v.object({
  minLength: v.number(),
  minLetters: v.number(),
  minDigits: v.number(),
  minSpecial: v.number(),
  maxLength: v.number(),
});

/** What the browser needs before it renders: variant, languages, where it may redirect. */
export const AppConfig = v.object({
  variant: v.picklist(['be', 'lu']),
  locales: v.array(v.picklist(LOCALES)),
  defaultLocale: v.picklist(LOCALES),
  /** Exact redirect URIs registered for OAuth clients: the only targets of a dashboard redirect_uri. */
  redirectTargets: v.array(v.string()),
  /** Analytics endpoint for virtual page views; null means page views go nowhere. */
  analyticsUrl: v.nullable(v.string()),
  passwordPolicy: PasswordPolicySchema,
  /** Whether the forms a robot would abuse carry an ALTCHA proof of work. */
  captcha: v.boolean(),
  /** The Microsoft sign-in: its button shows when this is an object, and its beta notice names the
   * companies (tenants) allowed. The server always says (null when it is off). */
  microsoft: v.optional(
    v.nullable(
      v.object({
        tenants: v.array(v.object({ id: v.string(), name: v.nullable(v.string()) })),
      }),
    ),
  ),
});
export type AppConfig = v.InferOutput<typeof AppConfig>;

/** What the server knew when it sent the page, written into it (BOOT_ELEMENT_ID) so that the first
 * screen waits on no request: the config (null when the server could not read it), the locale it
 * drew the page in, and whether the browser sent a session cookie at all (without one, there is no
 * session to ask about). */
export const Boot = v.object({
  config: v.nullable(AppConfig),
  locale: v.picklist(LOCALES),
  sessionCookie: v.boolean(),
  /** The application an authorisation request is signing the visitor in to (the sign-in names it). */
  signingInTo: v.optional(
    v.object({ client_id: v.string(), name: v.string(), logo_uri: v.nullable(v.string()), first_party: v.boolean() }),
  ),
  /** What the authorisation request the page belongs to (its sign-in, second factor or consent)
   * asks of the screens: the first of its `ui_locales` the variant offers, and its `login_hint`. */
  authorisationRequest: v.optional(
    v.object({ locale: v.optional(v.picklist(LOCALES)), login_hint: v.optional(v.string()) }),
  ),
});
export type Boot = v.InferOutput<typeof Boot>;
