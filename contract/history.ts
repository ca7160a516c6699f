// The security history (spec §2 /security/history): the raw security-event types grouped into the
// categories a person filters by, and the rules of the date range. One place for both: the server
// filters and counts with them, the browser offers and words them. A type not listed here (one added
// later) shows under `other` until it is given a category.

export const HISTORY_CATEGORIES = [
  'sign_in',
  'failed_sign_in',
  'second_factor',
  'password',
  'contact',
  'banking',
  'device',
  'access',
  'session',
  'account',
  'other',
] as const;
export type HistoryCategory = (typeof HISTORY_CATEGORIES)[number];

/** The categories with raw types of their own (`other` is whatever none of them lists). */
export const HISTORY_TYPES: Record<Exclude<HistoryCategory, 'other'>, readonly string[]> = {
  sign_in: ['login_succeeded', 'sso_sign_in'],
  failed_sign_in: [
    'login_failed',
    'login_throttled',
    'mfa_failed',
    'card_activation_failed',
    'passkey_counter_regressed',
  ],
  second_factor: [
    'mfa_method_added',
    'mfa_method_replaced',
    'mfa_method_removed',
    'mfa_primary_changed',
    'mfa_step_up',
    'recovery_key_used',
    'recovery_keys_regenerated',
    'passkey_used',
    'passkey_renamed',
  ],
  password: ['password_changed', 'password_reset', 'login_weak_password'],
  contact: [
    'email_added',
    'email_removed',
    'email_primary_changed',
    'phone_added',
    'phone_removed',
    'phone_primary_changed',
  ],
  banking: ['iban_changed'],
  device: ['device_new', 'new_device_alert', 'new_device_rejected', 'device_trusted', 'device_trust_revoked'],
  access: ['partner_consent_given', 'partner_consent_refused', 'partner_access_revoked', 'partner_access_requested'],
  session: ['logout', 'device_logged_out', 'logout_others', 'logout_everywhere', 'sessions_ended', 'change_undone'],
  account: [
    'account_created',
    'card_activated',
    'profile_updated',
    'card_product_changed',
    'data_exported',
    'picture_changed',
    'accounts_merged',
    'account_merged_away',
    'sso_linked',
    'sso_unlinked',
    'sso_only_on',
    'sso_only_off',
  ],
};

const CATEGORY_OF = new Map<string, HistoryCategory>(
  Object.entries(HISTORY_TYPES).flatMap(([category, types]) =>
    types.map((type) => [type, category as HistoryCategory] as const),
  ),
);

/** Every raw type that has a category. */
export const KNOWN_HISTORY_TYPES: readonly string[] = [...CATEGORY_OF.keys()];

/** The category a raw event type shows under. */
export function categoryOf(type: string): HistoryCategory {
  return CATEGORY_OF.get(type) ?? 'other';
}

/** Whether a raw type has a category of its own (a screen words the others by their category). */
export function isKnownHistoryType(type: string): boolean {
  return CATEGORY_OF.has(type);
}

/** Events per page of GET /api/history. */
export const HISTORY_PAGE_SIZE = 20;
/** The range shown when none is asked for: the last 30 days, today included. */
export const HISTORY_DEFAULT_DAYS = 30;
/** The longest range one request may ask for (a year, leap day included). */
export const HISTORY_MAX_DAYS = 366;

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day (YYYY-MM-DD) as its UTC midnight in milliseconds, or null when it is no real day. */
export function dayToMs(day: string): number | null {
  const match = DATE.exec(day);
  if (!match) return null;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, date);
  const back = new Date(ms);
  return back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === date ? ms : null;
}

/** The UTC day (YYYY-MM-DD) of a moment. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The day `days` after (or before) a day. */
export function addDays(day: string, days: number): string {
  return dayOf((dayToMs(day) ?? 0) + days * DAY_MS);
}

/** The days of a range, both ends included. */
export function daysBetween(from: string, to: string): string[] {
  const start = dayToMs(from)!;
  const end = dayToMs(to)!;
  const out: string[] = [];
  for (let ms = start; ms <= end; ms += DAY_MS) out.push(dayOf(ms));
  return out;
}

/** The default range: the last HISTORY_DEFAULT_DAYS days up to today (UTC). */
export function defaultHistoryRange(now = Date.now()): { from: string; to: string } {
  const to = dayOf(now);
  return { from: addDays(to, 1 - HISTORY_DEFAULT_DAYS), to };
}

/** A range as asked (either end may be missing: the default fills it), or null when a day is not a
 * real YYYY-MM-DD day, `from` comes after `to`, or the range is longer than HISTORY_MAX_DAYS. */
export function historyRange(
  from: string | undefined,
  to: string | undefined,
  now = Date.now(),
): { from: string; to: string } | null {
  const fallback = defaultHistoryRange(now);
  const end = to ?? (from !== undefined && (dayToMs(from) ?? 0) > (dayToMs(fallback.to) ?? 0) ? from : fallback.to);
  const start = from ?? addDays(end, 1 - HISTORY_DEFAULT_DAYS);
  const startMs = dayToMs(start);
  const endMs = dayToMs(end);
  if (startMs === null || endMs === null || startMs > endMs) return null;
  if ((endMs - startMs) / DAY_MS + 1 > HISTORY_MAX_DAYS) return null;
  return { from: start, to: end };
}
