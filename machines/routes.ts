// The route table the root machine guards (spec §2 and §4), as data and pure functions. Only the
// screens that exist are listed: any other path goes home.
import { ONBOARDING_PATHS } from './onboarding.ts';

/** `public`: anonymous only; `private`: needs a session; `secondFactor`: only while a sign-in waits for a further step (its code, a new password). */
export type Access = 'public' | 'private' | 'any' | 'secondFactor';

/** Screens by path: `public` is for anonymous users only, `private` needs a session. */
export const SCREENS: Record<string, Access> = {
  '/login/email': 'public',
  '/login/phone': 'public',
  '/user/dashboard': 'private',
  '/mfa/methods': 'secondFactor',
  '/weak-password': 'secondFactor',
  '/forgot-username': 'public',
  '/forgot-username-response': 'secondFactor',
  '/forgot-password/email': 'public',
  '/forgot-password/phone': 'public',
  '/forgot-password-sent': 'secondFactor',
  '/reset-password': 'secondFactor',
  '/reset-password-confirmed': 'secondFactor',
  '/mfa': 'secondFactor',
  '/mfa/totp-recovery': 'private',
  '/security': 'private',
  '/security/mfa-edit': 'private',
  '/security/edit-recovery': 'private',
  '/setup-mfa': 'private',
  '/setup-mfa/totp': 'private',
  '/setup-totp/success': 'private',
  '/setup-mfa/selection': 'private',
  '/setup-mfa/phone': 'private',
  '/setup-mfa/email': 'private',
  '/setup-mfa/confirmation': 'private',
  '/setup-mfa/success': 'private',
  '/maintenance': 'any',
  // Onboarding (spec §2): which of its steps may show is the onboarding machine's decision.
  ...Object.fromEntries(Object.values(ONBOARDING_PATHS).map((path) => [path, 'public' as const])),
};

/** Paths that are only redirects or actions, never screens. */
export const REDIRECTS: Record<string, string> = {
  '/': '/user/dashboard',
  '/login': '/login/email',
  '/forgot-password': '/forgot-password/email',
  // After an authenticator is set up elsewhere, back home (the saved target is honoured at sign-in).
  '/totp/redirect': '/',
};

export const LOGIN_PATH = '/login/email';
export const HOME_PATH = '/user/dashboard';
export const LOGOUT_PATH = '/logout';
export const MAINTENANCE_PATH = '/maintenance';

export type Location = { path: string; search: string };

export type GuardDecision =
  | { kind: 'stay' }
  | { kind: 'redirect'; to: string }
  /** Anonymous on a private screen: remember where they wanted to go, then sign in. */
  | { kind: 'login'; target: string }
  | { kind: 'logout' };

function normalise(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

export type SessionState = 'anonymous' | 'signedIn' | 'secondFactor';

export function guard(location: Location, session: SessionState | boolean): GuardDecision {
  const state: SessionState = session === true ? 'signedIn' : session === false ? 'anonymous' : session;
  const signedIn = state === 'signedIn';
  const path = normalise(location.path);
  if (path === LOGOUT_PATH) return signedIn ? { kind: 'logout' } : { kind: 'redirect', to: LOGIN_PATH };
  const redirect = REDIRECTS[path];
  if (redirect) return { kind: 'redirect', to: redirect };
  const access = SCREENS[path];
  if (!access) return { kind: 'redirect', to: '/' };
  if (access === 'secondFactor') return state === 'secondFactor' ? { kind: 'stay' } : { kind: 'redirect', to: '/' };
  if (access === 'private' && !signedIn) return { kind: 'login', target: path + location.search };
  if (access === 'public' && signedIn) return { kind: 'redirect', to: '/' };
  return { kind: 'stay' };
}

/** A saved target is honoured only if it is one of our own screens (no open redirect). */
export function safeTarget(target: string | null): string | null {
  if (!target || !target.startsWith('/') || target.startsWith('//')) return null;
  const path = normalise(target.split(/[?#]/)[0]!);
  return SCREENS[path] === 'private' ? target : null;
}

/** Dashboard `redirect_uri`: only an exactly registered target is followed. */
export function allowedRedirect(search: string, registered: readonly string[]): string | null {
  const value = new URLSearchParams(search).get('redirect_uri');
  return value && registered.includes(value) ? value : null;
}

/** A login is a partner login when the client_id in the target URL is not a first-party id. */
export function isPartnerLogin(targetUrl: string | null, firstParty: readonly string[]): boolean {
  if (!targetUrl) return false;
  const query = targetUrl.includes('?') ? targetUrl.slice(targetUrl.indexOf('?')) : '';
  const clientId = new URLSearchParams(query).get('client_id');
  return clientId !== null && !firstParty.includes(clientId);
}
