// The route table (spec §2 and §4), as data: every path of the app is declared here once, with who
// may see it, the flow that owns it, whether it is sensitive, and the screen that shows it. The
// guard below, the root machine's decisions and the React routes (src/app/routes.tsx) are derived
// from it. Only the screens that exist are listed: any other path goes home.
import {
  NOT_ME_PATH,
  UNDO_CHANGE_PATH,
  CHOOSER_PATH,
  CONSENT_PATH,
  FORGOT_PASSWORD_PATH,
  INTERACTION_PATH,
  INTERACTION_UID,
  LOGOUT_CONFIRM_PATH,
  LOGOUT_DONE_PATH,
  PARTNER_PATH,
  SIGN_IN_PATH,
  STEP_UP_PATH,
} from '../contract/constants.ts';

/**
 * `public`: anonymous only; `private`: needs a session; `signingIn`: only while a sign-in waits
 * for a further step (its code, a new password); `any`: everyone.
 */
export type Access = 'public' | 'private' | 'any' | 'signingIn';

/** The flows: each is one machine (or none, for plain screens) and one folder of screens. */
export type Flow =
  | 'login'
  | 'mfa'
  | 'weakPassword'
  | 'forgotPassword'
  | 'forgotUsername'
  | 'onboarding'
  | 'dashboard'
  | 'security'
  | 'authenticator'
  | 'setupMfa'
  | 'totpRecovery'
  | 'maintenance'
  | 'consent'
  | 'access'
  | 'partner'
  | 'appLogout'
  | 'profile'
  | 'undoChange'
  | 'notMe'
  | 'notifications'
  | 'fuzzion';

/** The screens: src/app/routes.tsx maps each to its (lazy) component. */
export type ScreenId =
  | 'login'
  | 'mfa'
  | 'weakPassword'
  | 'forgotPassword'
  | 'forgotUsername'
  | 'onboarding'
  | 'dashboard'
  | 'security'
  | 'securityHistory'
  | 'authenticator'
  | 'setupMfa'
  | 'totpRecovery'
  | 'maintenance'
  | 'consent'
  | 'access'
  | 'partner'
  | 'appLogout'
  | 'chooser'
  | 'profile'
  | 'undoChange'
  | 'notMe'
  | 'notifications'
  | 'fuzzion'
  | 'microsoftLogin';

export type Route = {
  path: string;
  access: Access;
  flow: Flow;
  /** The step of the flow this path shows: what the flow's machine names it (`show`, ROUTE). */
  step: string;
  screen: ScreenId;
  /** The screen needs a recent second factor (spec §4 "Route guard"). */
  sensitive?: true;
  /** Arriving here starts the flow; the flow's other paths are reached from inside it. */
  start?: true;
  /** The screen shows on `path` only with this query parameter and value (spec §2: mfa-methods with
   * isFuzzion=true is the merge's); without it, the path's plain entry shows. */
  query?: readonly [name: string, value: string];
};

export const ROUTES = [
  { path: SIGN_IN_PATH, access: 'public', flow: 'login', step: 'email', screen: 'login' },
  { path: '/login/phone', access: 'public', flow: 'login', step: 'phone', screen: 'login' },
  // A Microsoft sign-in's way on to the second factor (contract/sso.ts SSO_MFA_PATH; its payload is in the hash).
  { path: '/login/microsoft', access: 'public', flow: 'login', step: 'microsoft', screen: 'microsoftLogin' },
  { path: '/user/dashboard', access: 'private', flow: 'dashboard', step: 'home', screen: 'dashboard' },
  // The website access chooser (spec §2 "Screen behaviours"): after a sign-in with no target, for a
  // person with several platforms; the spec gives it no path.
  { path: CHOOSER_PATH, access: 'private', flow: 'dashboard', step: 'choose', screen: 'chooser' },
  { path: '/mfa', access: 'signingIn', flow: 'mfa', step: 'code', screen: 'mfa' },
  { path: STEP_UP_PATH, access: 'signingIn', flow: 'mfa', step: 'methods', screen: 'mfa' },
  { path: '/weak-password', access: 'signingIn', flow: 'weakPassword', step: 'renew', screen: 'weakPassword' },
  // The recovery flows, as onboarding: every step starts the flow, which shows it if it can (a
  // reload resumes the code sent or the new password) and its first step otherwise.
  {
    path: '/forgot-username',
    access: 'public',
    flow: 'forgotUsername',
    step: 'ask',
    screen: 'forgotUsername',
    start: true,
  },
  {
    path: '/forgot-username-response',
    access: 'public',
    flow: 'forgotUsername',
    step: 'response',
    screen: 'forgotUsername',
    start: true,
  },
  {
    path: FORGOT_PASSWORD_PATH,
    access: 'public',
    flow: 'forgotPassword',
    step: 'email',
    screen: 'forgotPassword',
    start: true,
  },
  {
    path: '/forgot-password/phone',
    access: 'public',
    flow: 'forgotPassword',
    step: 'phone',
    screen: 'forgotPassword',
    start: true,
  },
  {
    path: '/forgot-password-sent',
    access: 'public',
    flow: 'forgotPassword',
    step: 'sent',
    screen: 'forgotPassword',
    start: true,
  },
  {
    path: '/reset-password',
    access: 'public',
    flow: 'forgotPassword',
    step: 'reset',
    screen: 'forgotPassword',
    start: true,
  },
  {
    path: '/reset-password-confirmed',
    access: 'public',
    flow: 'forgotPassword',
    step: 'confirmed',
    screen: 'forgotPassword',
    start: true,
  },
  // The applications that hold access to the account (spec §2), and revoking one.
  { path: '/user/access', access: 'private', flow: 'access', step: 'list', screen: 'access', start: true },
  // The profile (spec §2): the overview, the personal information's form (from the overview only:
  // its flow decides, see machines/profile.ts), and the sensitive emails and phone numbers
  // (edit-credentials) and bank account (edit-bank), each reached from its own card.
  { path: '/profile', access: 'private', flow: 'profile', step: 'overview', screen: 'profile', start: true },
  { path: '/profile/edit-info', access: 'private', flow: 'profile', step: 'editInfo', screen: 'profile', start: true },
  {
    path: '/profile/edit-credentials',
    access: 'private',
    flow: 'profile',
    step: 'credentials',
    screen: 'profile',
    sensitive: true,
    start: true,
  },
  {
    path: '/profile/edit-bank',
    access: 'private',
    flow: 'profile',
    step: 'bank',
    screen: 'profile',
    sensitive: true,
    start: true,
  },
  // Downloading everything held about the account (GDPR articles 15 and 20): sensitive too.
  {
    path: '/profile/download',
    access: 'private',
    flow: 'profile',
    step: 'download',
    screen: 'profile',
    sensitive: true,
    start: true,
  },
  // What Tessera may send the account: the marketing preferences, and the security alerts always sent.
  {
    path: '/notifications',
    access: 'private',
    flow: 'notifications',
    step: 'settings',
    screen: 'notifications',
    start: true,
  },
  { path: '/mfa/totp-recovery', access: 'private', flow: 'totpRecovery', step: 'keys', screen: 'totpRecovery' },
  { path: '/security', access: 'private', flow: 'security', step: 'overview', screen: 'security', start: true },
  {
    path: '/security/mfa-edit',
    access: 'private',
    flow: 'security',
    step: 'methods',
    screen: 'security',
    sensitive: true,
    start: true,
  },
  {
    path: '/security/edit-recovery',
    access: 'private',
    flow: 'security',
    step: 'recovery',
    screen: 'security',
    sensitive: true,
    start: true,
  },
  // The account's security events (spec §2 /security children): a list, filters and a graph.
  {
    path: '/security/history',
    access: 'private',
    flow: 'security',
    step: 'history',
    screen: 'securityHistory',
    start: true,
  },
  {
    path: '/security/edit-password',
    access: 'private',
    flow: 'security',
    step: 'password',
    screen: 'security',
    sensitive: true,
    start: true,
  },
  {
    path: '/setup-mfa/totp',
    access: 'private',
    flow: 'authenticator',
    step: 'scan',
    screen: 'authenticator',
    sensitive: true,
    start: true,
  },
  { path: '/setup-totp/success', access: 'private', flow: 'authenticator', step: 'success', screen: 'authenticator' },
  { path: '/setup-mfa', access: 'private', flow: 'setupMfa', step: 'intro', screen: 'setupMfa' },
  { path: '/setup-mfa/selection', access: 'private', flow: 'setupMfa', step: 'selection', screen: 'setupMfa' },
  { path: '/setup-mfa/phone', access: 'private', flow: 'setupMfa', step: 'phone', screen: 'setupMfa' },
  { path: '/setup-mfa/email', access: 'private', flow: 'setupMfa', step: 'email', screen: 'setupMfa' },
  { path: '/setup-mfa/confirmation', access: 'private', flow: 'setupMfa', step: 'confirmation', screen: 'setupMfa' },
  { path: '/setup-mfa/passkey', access: 'private', flow: 'setupMfa', step: 'passkey', screen: 'setupMfa' },
  { path: '/setup-mfa/passkey-name', access: 'private', flow: 'setupMfa', step: 'passkeyName', screen: 'setupMfa' },
  { path: '/setup-mfa/success', access: 'private', flow: 'setupMfa', step: 'success', screen: 'setupMfa' },
  // A partner application's consent (spec §2 /approve): the authorisation server sends the browser
  // here with the interaction's uid, and the answer sends it back there.
  { path: CONSENT_PATH, access: 'private', flow: 'consent', step: 'ask', screen: 'consent' },
  // The partner pages (spec §2): the landing shows to everyone; asking for access and the linked
  // account's success need a session (the success a recent second factor too); the choices of a
  // visitor without an account, or with one to link, are for visitors.
  { path: PARTNER_PATH, access: 'any', flow: 'partner', step: 'landing', screen: 'partner', start: true },
  {
    path: '/partner/request-access',
    access: 'private',
    flow: 'partner',
    step: 'requestAccess',
    screen: 'partner',
    start: true,
  },
  { path: '/partner/no-account', access: 'public', flow: 'partner', step: 'noAccount', screen: 'partner', start: true },
  {
    path: '/partner/link-existing',
    access: 'any',
    flow: 'partner',
    step: 'linkExisting',
    screen: 'partner',
    start: true,
  },
  {
    path: '/partner/link-success',
    access: 'private',
    flow: 'partner',
    step: 'linkSuccess',
    screen: 'partner',
    sensitive: true,
    start: true,
  },
  // An application's sign-out (RP-initiated logout): the authorisation server sends the browser to
  // the confirmation with its request's reference, and ends on the success; signed in or not.
  {
    path: LOGOUT_CONFIRM_PATH,
    access: 'any',
    flow: 'appLogout',
    step: 'confirm',
    screen: 'appLogout',
    start: true,
  },
  { path: LOGOUT_DONE_PATH, access: 'any', flow: 'appLogout', step: 'done', screen: 'appLogout', start: true },
  // "This wasn't me": the link of a change notice, for whoever holds it (the screen runs its own flow).
  { path: UNDO_CHANGE_PATH, access: 'any', flow: 'undoChange', step: 'confirm', screen: 'undoChange' },
  // "This wasn't me" from a new-device mail, for whoever holds its link: the screen signs that
  // device out and goes on to choosing a new password (no flow of its own: nothing to ask).
  { path: NOT_ME_PATH, access: 'any', flow: 'notMe', step: 'signOut', screen: 'notMe' },
  // The merge of a duplicated account (spec §2): the offer and its proofs, then what the account now
  // holds. The screen runs its own flow from the offer the "already in use" answer gave; the server
  // asks its recent second factor on every call.
  { path: '/duplicated', access: 'private', flow: 'fuzzion', step: 'offer', screen: 'fuzzion' },
  { path: '/fuzzion-success', access: 'private', flow: 'fuzzion', step: 'success', screen: 'fuzzion' },
  // The merge's further proofs (spec §4: a proof that asks for more goes to mfa-methods, with
  // isFuzzion=true and the methods still counting): the merge's own chooser on the code's path.
  {
    path: STEP_UP_PATH,
    query: ['isFuzzion', 'true'],
    access: 'private',
    flow: 'fuzzion',
    step: 'proofs',
    screen: 'fuzzion',
  },
  { path: '/maintenance', access: 'any', flow: 'maintenance', step: 'notice', screen: 'maintenance' },
  // Onboarding (spec §2): its steps are the machine's steps; which may show is the machine's
  // decision (its predecessor rules), so every step starts the flow.
  { path: '/onboarding', access: 'public', flow: 'onboarding', step: 'onboarding', screen: 'onboarding', start: true },
  { path: '/onboarding/card', access: 'public', flow: 'onboarding', step: 'card', screen: 'onboarding', start: true },
  {
    path: '/onboarding/existing-card',
    access: 'public',
    flow: 'onboarding',
    step: 'existingCard',
    screen: 'onboarding',
    start: true,
  },
  { path: '/onboarding/code', access: 'public', flow: 'onboarding', step: 'code', screen: 'onboarding', start: true },
  {
    path: '/onboarding/welcome',
    access: 'public',
    flow: 'onboarding',
    step: 'welcome',
    screen: 'onboarding',
    start: true,
  },
  {
    path: '/onboarding/terms-conditions',
    access: 'public',
    flow: 'onboarding',
    step: 'terms-conditions',
    screen: 'onboarding',
    start: true,
  },
  {
    path: '/onboarding/create',
    access: 'public',
    flow: 'onboarding',
    step: 'create',
    screen: 'onboarding',
    start: true,
  },
  {
    path: '/onboarding/confirmation',
    access: 'public',
    flow: 'onboarding',
    step: 'confirmation',
    screen: 'onboarding',
    start: true,
  },
  {
    path: '/onboarding/password',
    access: 'public',
    flow: 'onboarding',
    step: 'password',
    screen: 'onboarding',
    start: true,
  },
  {
    path: '/onboarding/phone-verification',
    access: 'public',
    flow: 'onboarding',
    step: 'phone-verification',
    screen: 'onboarding',
    start: true,
  },
  {
    path: '/onboarding/email-verification',
    access: 'public',
    flow: 'onboarding',
    step: 'email-verification',
    screen: 'onboarding',
    start: true,
  },
  {
    path: '/onboarding/onboarding-mfa',
    access: 'public',
    flow: 'onboarding',
    step: 'onboarding-mfa',
    screen: 'onboarding',
    start: true,
  },
] as const satisfies readonly Route[];

/** Paths that are only links, redirects or actions, never screens. */
export const LINKS = {
  home: '/',
  login: '/login',
  logout: '/logout',
  forgotPassword: '/forgot-password',
  /** After an authenticator is set up elsewhere, back home (the saved target is honoured at sign-in). */
  totpRedirect: '/totp/redirect',
} as const;

type Entry = (typeof ROUTES)[number];
/** The steps of a flow, as the table names them. */
export type StepOf<F extends Flow> = Extract<Entry, { flow: F }>['step'];

const plain = (route: Route) => !route.query;
const BY_PATH = new Map<string, Route>(ROUTES.filter(plain).map((route) => [route.path, route]));
/** The entries a query parameter chooses. */
const BY_QUERY: Route[] = ROUTES.filter((route: Route) => route.query);

/** The path of a flow's step, with the query that chooses it where one does. */
export function pathOf<F extends Flow>(flow: F, step: StepOf<F>): string {
  const route: Route = ROUTES.find((route) => route.flow === flow && route.step === step)!;
  return route.query ? `${route.path}?${route.query[0]}=${route.query[1]}` : route.path;
}

/** The paths of a flow, in table order (those a query chooses aside). */
export function pathsOf(flow: Flow): string[] {
  return ROUTES.filter((route) => route.flow === flow && plain(route)).map((route) => route.path);
}

/** A path without its trailing slashes. */
export function normalise(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** The table's entry for a path, if it is a screen; given a location, its query may choose another
 * entry on the same path. */
export function routeOf(at: string | Location): Route | undefined {
  const path = normalise(typeof at === 'string' ? at : at.path);
  if (typeof at !== 'string') {
    const query = new URLSearchParams(at.search);
    const chosen = BY_QUERY.find((route) => route.path === path && query.get(route.query![0]) === route.query![1]);
    if (chosen) return chosen;
  }
  return BY_PATH.get(path);
}

/** Whether a path (or a location, its query read too) is one of the flow's screens. */
export const inFlow = (at: string | Location, flow: Flow): boolean => routeOf(at)?.flow === flow;
/** Whether arriving on a path starts the flow. */
export const startsFlow = (path: string, flow: Flow): boolean => {
  const route = routeOf(path);
  return route?.flow === flow && route.start === true;
};
/** Whether a path needs a recent second factor. */
export const isSensitive = (path: string): boolean => routeOf(path)?.sensitive === true;
/** The step a path (or a location) shows within its flow. */
export function stepOf<F extends Flow>(at: string | Location, flow: F): StepOf<F> | null {
  const route = routeOf(at);
  if (route?.flow !== flow) return null;
  return route.step as never;
}

/** Screens by path, with who may see them. */
export const SCREENS: Record<string, Access> = Object.fromEntries(
  ROUTES.filter(plain).map((route) => [route.path, route.access]),
);

export const LOGIN_PATH = pathOf('login', 'email');
export const HOME_PATH = pathOf('dashboard', 'home');
export const LOGOUT_PATH = LINKS.logout;
export const MAINTENANCE_PATH = pathOf('maintenance', 'notice');

/** Paths that are only redirects, and where they lead. */
export const REDIRECTS: Record<string, string> = {
  [LINKS.home]: HOME_PATH,
  [LINKS.login]: LOGIN_PATH,
  [LINKS.forgotPassword]: pathOf('forgotPassword', 'email'),
  [LINKS.totpRedirect]: LINKS.home,
};

export type Location = { path: string; search: string };

export type GuardDecision =
  | { kind: 'stay' }
  | { kind: 'redirect'; to: string }
  /** Anonymous on a private screen: remember where they wanted to go, then sign in. */
  | { kind: 'login'; target: string }
  | { kind: 'logout' };

export type SessionState = 'anonymous' | 'signedIn' | 'signingIn';

export function guard(location: Location, session: SessionState | boolean): GuardDecision {
  const state: SessionState = session === true ? 'signedIn' : session === false ? 'anonymous' : session;
  const signedIn = state === 'signedIn';
  const path = normalise(location.path);
  if (path === LOGOUT_PATH) return signedIn ? { kind: 'logout' } : { kind: 'redirect', to: LOGIN_PATH };
  const redirect = REDIRECTS[path];
  if (redirect) return { kind: 'redirect', to: redirect };
  // A query chooses a screen only for a session; for anyone else the path's own screen shows.
  const access = routeOf(signedIn ? location : path)?.access;
  if (!access) return { kind: 'redirect', to: LINKS.home };
  if (access === 'signingIn') {
    if (state === 'signingIn' || (signedIn && isAuthorisationStepUp(location))) return { kind: 'stay' };
    // A step-up's code screen reloaded: the screen it was for again, which asks for the code anew.
    return {
      kind: 'redirect',
      to: (signedIn && safeTarget(new URLSearchParams(location.search).get('redirect'))) || LINKS.home,
    };
  }
  if (access === 'private' && !signedIn) return { kind: 'login', target: path + location.search };
  if (access === 'public' && signedIn) return { kind: 'redirect', to: LINKS.home };
  return { kind: 'stay' };
}

/** Whether a target is the way back to a request of the authorisation server (an interaction of
 * ours, by its uid, and nothing more): the one place outside the app a sign-in returns to. */
export function isAuthorisationReturn(target: string | null): boolean {
  if (!target?.startsWith(`${INTERACTION_PATH}/`)) return false;
  return INTERACTION_UID.test(target.slice(INTERACTION_PATH.length + 1));
}

/** Where a sign-out goes back to (`/logout?redirect=`): the request of the authorisation server it
 * was asked from ("Not you?" on the consent screen), whose sign-in then asks for another account;
 * null for any other sign-out, which ends on our sign-in. */
export function logoutReturnAt(location: Location): string | null {
  if (normalise(location.path) !== LOGOUT_PATH) return null;
  const redirect = new URLSearchParams(location.search).get('redirect');
  return redirect && isAuthorisationReturn(redirect) ? redirect : null;
}

/** The sign-out that goes back to an authorisation request once signed out (`logoutReturnAt`). */
export function logoutFor(authorisationReturn: string): string {
  return `${LOGOUT_PATH}?${new URLSearchParams({ redirect: authorisationReturn })}`;
}

/** Whether this location is the code screen an application's request sent a signed-in person to
 * (prompt=login, max_age, a second factor it demands), with the way back to that request. */
export function isAuthorisationStepUp(location: Location): boolean {
  return (
    routeOf(location.path)?.flow === 'mfa' &&
    isAuthorisationReturn(new URLSearchParams(location.search).get('redirect'))
  );
}

/** Where the authorisation server asked our sign-in to send the browser back (`?redirect=`), if
 * this location is a sign-in screen that carries one. */
export function authorisationReturnAt(location: Location): string | null {
  if (routeOf(location.path)?.flow !== 'login') return null;
  const redirect = new URLSearchParams(location.search).get('redirect');
  return redirect && isAuthorisationReturn(redirect) ? redirect : null;
}

/** A saved target is honoured only if it is one of our own screens, or the way back to the
 * authorisation server (no open redirect). */
export function safeTarget(target: string | null): string | null {
  if (!target || !target.startsWith('/') || target.startsWith('//')) return null;
  if (isAuthorisationReturn(target)) return target;
  const path = normalise(target.split(/[?#]/)[0]!);
  return SCREENS[path] === 'private' ? target : null;
}

/** Dashboard `redirect_uri`: only an exactly registered target is followed. */
export function allowedRedirect(search: string, registered: readonly string[]): string | null {
  const value = new URLSearchParams(search).get('redirect_uri');
  return value && registered.includes(value) ? value : null;
}
