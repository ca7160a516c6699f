// Business constants of the spec (section 9) shared by browser and server.

/** First-party OAuth client ids: never a partner login; forced-MFA diversion applies to them. */
export const FIRST_PARTY_CLIENT_IDS = ['2', '17', '51', '66'] as const;

/** The one rule of a first-party client (spec §9: 2, 17, 51, 66), or one its row flags so: it never
 * asks for consent, and a sign-in for it is no partner's. The server decides with it and tells the
 * browser (the page's `signingInTo.first_party`). */
export const isFirstPartyClient = (clientId: string, flagged: boolean): boolean =>
  (FIRST_PARTY_CLIENT_IDS as readonly string[]).includes(clientId) || flagged;

/** The voucher products (spec §1); each names a consent scope and its `my` twin (spec §3). */
export const PRODUCT_KINDS = ['activ', 'eco', 'emv', 'gift'] as const;

/** The OpenID scopes every client may ask for. */
export const STANDARD_SCOPES = ['openid', 'offline_access', 'profile', 'email', 'phone'] as const;

/** The spec's consent scopes (§3): they grant API access and carry no claims. A client asks only
 * for those its registration allows. */
export const CONSENT_SCOPES = [
  'balance',
  'clientarea',
  'company',
  'customerwrite',
  'fridom',
  'history',
  'mobile',
  ...PRODUCT_KINDS,
  ...PRODUCT_KINDS.map((kind) => `my${kind}` as const),
  'notification',
  'payment',
  'reimbursemoney',
  'transaction',
  'user',
  'userwrite',
] as const;
export type Scope = (typeof STANDARD_SCOPES)[number] | (typeof CONSENT_SCOPES)[number];

/** Where the authorisation server's interactions live: our sign-in sends the browser back to
 * `${INTERACTION_PATH}/<uid>`, the only address outside the app it ever returns to. */
export const INTERACTION_PATH = '/oidc/interaction';
/** An interaction's uid, as the provider makes them (21 url-safe characters); longer ones are refused. */
export const INTERACTION_UID = /^[\w-]{1,64}$/;

/** Cookie name; production prefixes it with `__Secure-`. */
export const AUTH_COOKIE_BASENAME = 'tessera_token';
/** The language a person chose (not a secret): the server draws the first screen in it. */
export const LANGUAGE_COOKIE = 'language';
/** The element of the page that carries what the server knew when it sent it (contract/schemas.ts `Boot`). */
export const BOOT_ELEMENT_ID = 'boot';
export const DEVICE_ID_HEADER = 'x-device-id';
/** A call that changes something names itself with this header; its repeat names itself the same
 * (server/http/idempotency.ts). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

export const CODE_EXPIRY_S = 900;
export const RESEND_FIRST_WAIT_S = 30;
export const RESEND_NEXT_WAIT_S = 15;
export const LINK_SUCCESS_REDIRECT_MS = 3000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** The sign-in screen (machines/routes.ts lists it in the route table; the server sends the browser
 * there from an OpenID interaction that has no session). */
export const SIGN_IN_PATH = '/login/email';

/** Where a second factor (or, for an account without one, the password) is asked again
 * (machines/routes.ts lists it; the server sends the browser there when an application's request
 * needs a fresh or a stronger proof than the session holds). */
export const STEP_UP_PATH = '/mfa/methods';

/** Choosing a new password after a forgotten one (machines/routes.ts lists it; a new-device mail's
 * "this wasn't me" page sends the browser there). */
export const FORGOT_PASSWORD_PATH = '/forgot-password/email';

/** The consent screen of a partner application (machines/routes.ts lists it; the server sends the
 * browser there from an OpenID interaction that needs the person's consent). */
export const CONSENT_PATH = '/approve';
/** An application's sign-out (RP-initiated logout): our confirmation (`?ref=`, the provider's
 * logout request kept on the server) and our success screen (`?client_id=` when the person stayed
 * signed in to Tessera). */
export const LOGOUT_CONFIRM_PATH = '/logout/confirm';
export const LOGOUT_DONE_PATH = '/logout/done';
/** The reference to a logout request: 32 random bytes, base64url. */
export const LOGOUT_REF = /^[\w-]{43}$/;

/** A partner application's landing (machines/routes.ts lists it with the other partner pages):
 * `?client_id=…&redirect=…`, the way on being the authorisation server's request. */
export const PARTNER_PATH = '/partner';

/** The website access chooser shown after a sign-in to a person with several platforms (the spec
 * names the screen, not its path; docs/architecture.md). */
export const CHOOSER_PATH = '/user/choose-platform';
/** "This wasn't me": where a change notice's link leads, its token in the hash (never sent to a server log). */
export const UNDO_CHANGE_PATH = '/undo-change';
/** How long a change notice's link can undo the change. */
export const UNDO_CHANGE_DAYS = 7;
/** "This wasn't me": where a new-device mail's link leads, its ticket in the hash (never sent to a
 * server, a log or a Referer); the page hands it to POST /api/devices/not-me. */
export const NOT_ME_PATH = '/devices/not-me';

/** Where a visitor without an account becomes a customer (the provider's public site). */
export const BECOME_CUSTOMER_URL = 'https://www.tessera.example/become-a-customer';

/** All API routes live under this prefix so that they never collide with the SPA's routes. */
export const API_PREFIX = '/api';

export const LOCALES = ['en', 'en_LU', 'fr', 'fr_LU', 'nl', 'de_LU'] as const;
export type Locale = (typeof LOCALES)[number];

export type Variant = 'be' | 'lu';
/** Languages each variant offers, the first part of the browser language mapping to a locale. */
export const VARIANT_LOCALES: Record<Variant, { locales: Record<string, Locale>; fallback: Locale; default: Locale }> =
  {
    be: { locales: { en: 'en', fr: 'fr', nl: 'nl' }, fallback: 'en', default: 'nl' },
    lu: { locales: { fr: 'fr_LU', en: 'en_LU' }, fallback: 'fr_LU', default: 'fr_LU' },
  };

/** The locale to start with: a remembered choice the variant offers, else the browser's first
 * language, else the fallback. The browser and the server (drawing the first screen) both use it. */
export function chooseLocale(
  variant: Variant,
  browserLanguages: readonly string[],
  stored: string | null | undefined,
): Locale {
  const offer = VARIANT_LOCALES[variant];
  if (stored && (Object.values(offer.locales) as string[]).includes(stored)) return stored as Locale;
  const first = browserLanguages[0]?.split(/[-_]/)[0]?.toLowerCase();
  return (first && offer.locales[first]) || offer.fallback;
}

/** The locale of the variant a language tag names ("fr-LU", "nl"), if it offers it: the first part
 * decides, as for the browser's language. */
export function variantLocaleOf(tag: string | undefined, variant: Variant): Locale | null {
  const first = tag?.split(',')[0]?.trim().split(/[-_;]/)[0]?.toLowerCase();
  return (first && VARIANT_LOCALES[variant].locales[first]) || null;
}

/** The first locale of a space-separated list of language tags (an authorisation request's
 * `ui_locales`, "de-LU fr en") that the variant offers, if any. */
export function firstOfferedLocale(tags: string, variant: Variant): Locale | null {
  for (const tag of tags.split(' ')) {
    const locale = tag ? variantLocaleOf(tag, variant) : null;
    if (locale) return locale;
  }
  return null;
}

/** Host names starting with `account.lu.` (or containing `.lu`) are the Luxembourg variant. */
export function variantOfHost(host: string): Variant {
  const name = host.split(':')[0]!.toLowerCase();
  return /(^|\.)lu(\.|$)/.test(name) ? 'lu' : 'be';
}

/** Tile host: the spec replaces 'account' in the host with client, my or fridom. */
export function serviceHost(host: string, service: 'client' | 'my' | 'fridom'): string {
  return host.replace('account', service);
}

/** Password status flags of the user profile: 0 fine, 1 or 2 weak. */
export const PASSWORD_STATUS_WEAK = [1, 2] as const;

/** Negative MFA method ids name a method to add; the target comes with the request (spec §3). */
export const NEW_METHOD_IDS = { email: -1, sms: -2, totp: -3, call: -4, whatsapp: -5, passkey: -6 } as const;

/** Wrong codes a challenge takes before it dies. */
export const MFA_MAX_ATTEMPTS = 5;
/** Recovery keys issued with an authenticator (and on regeneration). */
export const RECOVERY_KEY_COUNT = 10;
