// The session the root machine keeps (machines/root/): its input, context and events, and what it
// reads off them and the route table, as plain functions: what each flow starts with, who must set
// up a second factor, which screens belong together. Views read the same context (src/shell).
import { isApiFailure } from '../contract/api.ts';
import { formatPhone, looksLikeEmail } from '../contract/rules.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import type { DoneActorEvent } from 'xstate';
import type { AppConfig, MfaMethodSummary, UserProfile } from '../contract/baseSchemas.ts';
import type { AfterCode } from './afterCode.ts';
import type { FuzzionInput, FuzzionNews } from './fuzzion.ts';
import type { SetupMfaOutput } from './setupMfa.ts';
import type { TotpRecoveryOutput } from './totpRecovery.ts';
import type { LoginMode, LoginOutput } from './login.ts';
import type { MfaOutput } from './mfa.ts';
import type { PartnerInput } from './partner.ts';
import type { AppLogoutInput } from './appLogout.ts';
import type { ProfileInput } from './profile.ts';
import {
  HOME_PATH,
  inFlow,
  pathOf,
  routeOf,
  safeTarget,
  startsFlow,
  stepOf,
  type Flow,
  type Location,
} from './routes.ts';

export type RootInput = {
  /** The local copy of the user kept under `account`, if any. */
  storedAccount: UserProfile | null;
  /** The target URL saved before a sign-in, if any (session storage). */
  storedTarget: string | null;
  /** A sign-in waiting for its second factor when the tab reloaded (session storage `mfaPayload`). */
  storedSignIn?: { payload: string; methods: MfaMethodSummary[] } | null;
  /** A sign-in waiting for a new password when the tab reloaded (session storage `loginPayload`). */
  storedRenewal?: string | null;
  /** A one-time sign-in ticket the page's URL hash brought (src/app/loginTicket.ts). */
  loginTicket?: { ticket: string; clientId: string } | null;
  /** The client an authorisation request is signing the visitor in to (the page names it). */
  signingInTo?: { client_id: string; first_party: boolean } | null;
  /** The login_hint of that request: the sign-in starts with it filled in. */
  loginHint?: string | null;
  location: Location;
};

/** The status of a session's second factor: recent or not, and the methods to prove it with. */
export type MfaStatusAndMethods = { sudo: boolean; methods: MfaMethodSummary[] };

export type RootEvent =
  | { type: 'ROUTE'; location: Location }
  | { type: 'DISMISS_NOTICE' }
  /** The server no longer knows the session (a 401), or another tab signed out. */
  | { type: 'SESSION_ENDED' }
  /** On the maintenance page: check now whether the API is back. */
  | { type: 'RETRY' }
  /** From sign-in or the forgotten password (their `typed` action, bound by the app): the address typed. */
  | { type: 'USERNAME'; value: string }
  /** From a flow that changed the profile: the profile as the server now has it. */
  | { type: 'USER_UPDATED'; user: UserProfile }
  /** From the merge: an offer is open until a time, or closed (spec §6 "duplicated-logged"). */
  | FuzzionNews
  // The ends of the children whose output the guards read, by the child's id.
  | DoneActorEvent<LoginOutput, 'login'>
  | DoneActorEvent<MfaOutput, 'mfa' | 'stepUp'>
  | DoneActorEvent<UserProfile, 'restoreUser' | 'loadUser'>
  | DoneActorEvent<MfaStatusAndMethods, 'mfaStatus'>
  | DoneActorEvent<SetupMfaOutput, 'setupMfa'>
  | DoneActorEvent<TotpRecoveryOutput, 'totpRecovery'>
  | DoneActorEvent<{ regenerated: boolean }, 'authenticator'>
  | DoneActorEvent<{ sessionEnded: boolean }, 'editPassword'>;

/** A message the current screen shows once: e.g. the weak-password notice on the login page.
 * `ticket_invalid`: a sign-in ticket brought in the URL hash was refused (expired, spent). */
export type Notice =
  | 'weak_password'
  | 'password_renewed'
  | 'logout_failed'
  | 'session_ended'
  | 'ticket_invalid'
  | 'signed_out_everywhere'
  | null;

export type Context = {
  config: AppConfig | null;
  user: UserProfile | null;
  target: string | null;
  location: Location;
  notice: Notice;
  /** A sign-in waiting for its second factor. */
  mfa: { payload: string; methods: MfaMethodSummary[] } | null;
  /** After signing in with a recovery key: how many keys remain (the TOTP recovery screen shows it). */
  recoveryKeysLeft: number | null;
  /** New recovery keys the recovery screen had made, until the authenticator's success page shows
   * them (spec §4: /setup-totp/success?isRegenerated=true). Never stored: a reload has none. */
  regeneratedKeys: string[] | null;
  /** A method was just added from Security: its screen says so once (spec §8 "MFA added"). */
  methodAdded: boolean;
  /** This tab signed in with a password (then perhaps a code): the dashboard offers a passkey. */
  passwordSignIn: boolean;
  /** A customer who skipped the offered second factor is not asked again in this session. */
  setupMfaSkipped: boolean;
  /** The ticket a sign-in with a weak password handed out, for choosing a new one. */
  weakPayload: string | null;
  /** Where the last right second-factor code leads (../afterCode.ts), until the root has gone there. */
  afterCode: AfterCode | null;
  /** The address the person typed last (sign-in, forgotten password) or was given (a new account):
   * the next form for it starts with it. Never sent by itself. */
  username: string;
  /** The sign-in ticket to spend before the session is asked for, if the page brought one. */
  loginTicket: { ticket: string; clientId: string } | null;
  /** This sign-in is a partner's (spec §4: a client id other than 2, 17, 51, 66): no forced set-up
   * of a second factor, and the partner's redirect comes second after a code. */
  partnerLogin: boolean;
};

/** What a form in this mode starts with: the address kept, if it is of the mode's kind. */
export function usernameFor(mode: 'email' | 'phone', username: string): string {
  return looksLikeEmail(username) === (mode === 'email') ? username : '';
}

/** The flow of a sign-in that a path resumes from what the tab kept (its second factor or its new
 * password), if any. */
export function resumedFlow(
  kept: { mfa: { payload: string; methods: MfaMethodSummary[] } | null; weakPayload: string | null },
  path: string,
): 'mfa' | 'weakPassword' | null {
  if (kept.mfa && inFlow(path, 'mfa')) return 'mfa';
  if (kept.weakPayload && inFlow(path, 'weakPassword')) return 'weakPassword';
  return null;
}

/** What a partner page's flow starts with: its step, its query, the addresses a redirect_uri may name. */
export function partnerInput(context: { location: Location; config: AppConfig | null }): PartnerInput {
  return {
    step: stepOf(context.location.path, 'partner') ?? 'landing',
    search: context.location.search,
    redirectTargets: context.config?.redirectTargets ?? [],
  };
}

/** What an application's sign-out starts with: its step and the page's query (the request's reference). */
export function appLogoutInput(context: { location: Location }): AppLogoutInput {
  return { step: stepOf(context.location.path, 'appLogout') ?? 'confirm', search: context.location.search };
}

/** What the profile's flow starts with: its step, the profile, and the day it is (no birth date after it). */
export function profileInput(
  context: { location: Location; user: UserProfile | null },
  now = new Date(),
): ProfileInput {
  return {
    step: stepOf(context.location.path, 'profile') ?? 'overview',
    user: context.user!,
    today: now.toISOString().slice(0, 10),
  };
}

/** The platforms an account belongs to (the dashboard's tiles but the deals one, which everyone in
 * the Belgian variant gets): several of them, and the sign-in offers the website access chooser. */
export function hasSeveralPlatforms(
  user: Pick<UserProfile, 'user_id' | 'customer_user_id' | 'fridom_user_id'> | null | undefined,
): boolean {
  return !!user && [user.user_id, user.customer_user_id, user.fridom_user_id].filter(Boolean).length >= 2;
}

/** Where a sign-in goes when it had no target of its own: the dashboard, where home leads. */
export const noOwnTarget = (afterCode: AfterCode | null) =>
  afterCode?.kind === 'target' && safeTarget(afterCode.to) === HOME_PATH;

/** A forced account without a second factor: it may do nothing else until it has one. */
export const mustEnrol = (user: UserProfile | null) => user?.mfa_forced === true && user.mfa_enrolled === false;

/** The account's phone number (its default, else its first), as people read it; empty without one. */
export const knownPhoneOf = (user: UserProfile | null): string => {
  const phones = user?.phone ?? [];
  const phone = phones.find((p) => p.default) ?? phones[0];
  return phone ? formatPhone(phone.value) : '';
};

/** The screens the set-up does not divert (spec §4 "Forced MFA"): the merge's (/duplicated,
 * /fuzzion-success) and the code's (/mfa, which the merge's step-up asks on), and the set-up's own
 * way on (its steps, the authenticator's set-up once the app was chosen). */
export const setupMfaExempt = (path: string) =>
  inFlow(path, 'fuzzion') || inFlow(path, 'mfa') || inFlow(path, 'setupMfa') || inFlow(path, 'authenticator');

/** The session is in the middle of a merge (spec §6 "duplicated-logged"): the server holds an open
 * offer for it, until its expiry. */
export const inMerge = (user: UserProfile | null, now = Date.now()) =>
  !!user?.fuzzion_until && Date.parse(user.fuzzion_until) > now;

/** What the merge's flow starts with: the step its screen shows, and /duplicated's query (spec §2). */
export function fuzzionInput(location: Location): FuzzionInput {
  const query = new URLSearchParams(location.search);
  const method = Number(query.get('method') ?? NaN);
  return {
    step: stepOf(location, 'fuzzion') ?? 'offer',
    target: query.get('target'),
    method: Number.isSafeInteger(method) ? method : null,
  };
}

export const is503 = (error: unknown) => isApiFailure(error) && error.status === 503;
export const is401 = (error: unknown) => isApiFailure(error) && error.status === 401;

/** A path that starts the flow and shows to a visitor too. */
export const opensToVisitor = (path: string, flow: Flow) =>
  startsFlow(path, flow) && routeOf(path)?.access !== 'private';

/** The security area: the settings and the authenticator's set-up (spec §4 "Route guard"). */
export const inSecurity = (path: string) => inFlow(path, 'security') || inFlow(path, 'authenticator');

export function locationOf(url: string): Location {
  const at = url.indexOf('?');
  return at < 0 ? { path: url, search: '' } : { path: url.slice(0, at), search: url.slice(at) };
}

/** The password rules of the server, or the defaults while the config is unknown (the server checks again). */
export const policyOf = (config: AppConfig | null) => config?.passwordPolicy ?? DEFAULT_PASSWORD_POLICY;

export function loginModeOf(path: string): LoginMode {
  return stepOf(path, 'login') === 'phone' ? 'phone' : 'email';
}

export const forgotModeOf = (path: string) =>
  stepOf(path, 'forgotPassword') === 'phone' ? ('phone' as const) : ('email' as const);

/** Where a forgotten password leads from a way of signing in: the same way, so that the address or
 * number typed there fills its form. */
export const forgotPasswordPathOf = (mode: LoginMode) => pathOf('forgotPassword', mode);
