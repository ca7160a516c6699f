// The root machine's setup: its context, events, children (one per flow, each started by the
// route table's flow of the current path) and the guards it decides with. Pure XState: every side
// effect is an action or actor the app provides with `.provide()`.
import { assign, fromPromise, setup, type AnyActorLogic } from 'xstate';
import { isApiFailure } from '../../contract/api.ts';
import { looksLikeEmail } from '../../contract/rules.ts';
import { DEFAULT_PASSWORD_POLICY } from '../../contract/password.ts';
import type { AppConfig, UserProfile } from '../../contract/baseSchemas.ts';
import { errorOf } from '../failures.ts';
import { loginMachine, type LoginMode, type LoginOutput } from '../login.ts';
import type { MfaCodeOutput, mfaCodeMachine } from '../mfaCode.ts';
import type { totpRecoveryMachine } from '../totpRecovery.ts';
import type { forcedMfaMachine, EnrolmentOutput } from '../forcedMfa.ts';
import type { mfaSettingsMachine } from '../mfaSettings.ts';
import type { accessGrantsMachine } from '../accessGrants.ts';
import type { historyMachine } from '../history.ts';
import type { devicesMachine } from '../devices.ts';
import type { editPasswordMachine } from '../editPassword.ts';
import type { notificationsMachine } from '../notifications.ts';
import type { totpSetupMachine } from '../totpSetup.ts';
import type { newPasswordMachine } from '../newPassword.ts';
import type { forgotPasswordMachine } from '../forgotPassword.ts';
import type { forgotUsernameMachine } from '../forgotUsername.ts';
import type { onboardingMachine } from '../onboarding.ts';
import type { consentMachine } from '../consent.ts';
import type { partnerMachine, PartnerInput } from '../partner.ts';
import type { profileMachine, ProfileInput } from '../profile.ts';
import {
  HOME_PATH,
  guard,
  routeOf,
  inFlow,
  isAuthorisationReturn,
  isAuthorisationStepUp,
  isSensitive,
  safeTarget,
  startsFlow,
  stepOf,
  type Flow,
  type Location,
  type StepOf,
} from '../routes.ts';
import type { MfaMethodSummary } from '../../contract/baseSchemas.ts';
import { afterCode, type AfterCode } from '../afterCode.ts';

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
  signingInTo?: { client_id: string } | null;
  location: Location;
};

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
  | { type: 'USER_UPDATED'; user: UserProfile };

/** A message the current screen shows once: e.g. the weak-password notice on the login page. */
/** `ticket_invalid`: a sign-in ticket brought in the URL hash was refused (expired, spent). */
export type Notice =
  | 'weak_password'
  | 'password_renewed'
  | 'account_created'
  | 'logout_failed'
  | 'session_ended'
  | 'ticket_invalid'
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
  /** A customer who skipped the offered second factor is not asked again in this session. */
  enrolmentSkipped: boolean;
  /** The ticket a sign-in with a weak password handed out, for choosing a new one. */
  weakPayload: string | null;
  /** Where the last right second-factor code leads (./afterCode.ts), until the root has gone there. */
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
  context: Pick<Context, 'mfa' | 'weakPayload'>,
  path: string,
): 'mfa' | 'weakPassword' | null {
  if (context.mfa && inFlow(path, 'mfa')) return 'mfa';
  if (context.weakPayload && inFlow(path, 'weakPassword')) return 'weakPassword';
  return null;
}

/** The query of a step-up's code screen: back to the sensitive screen afterwards, with the action and
 * method it was opened for. */
export function stepUpSearch(location: Location): string {
  const asked = new URLSearchParams(location.search);
  // The screen's own query goes with the way back (a partner's redirect_uri); the action and the
  // method travel beside it, as the spec's code screen carries them.
  const own = new URLSearchParams(asked);
  for (const key of ['action', 'targetMfaId']) own.delete(key);
  const back = own.size > 0 ? `${location.path}?${own.toString()}` : location.path;
  const query = new URLSearchParams({ single: 'true', redirect: back });
  for (const key of ['action', 'targetMfaId']) {
    const value = asked.get(key);
    if (value) query.set(key, value);
  }
  return `?${query.toString()}`;
}

/** signIn: a sign-in's code; stepUp: a sensitive screen's; authorisation: the one an application's
 * request asked for (its way back is in the code screen's own query). */
export type CodePurpose = 'signIn' | 'stepUp' | 'authorisation';

/** Where a right code leads (../afterCode.ts). During a step-up the location is still the sensitive
 * screen: its code screen's query is rebuilt from it. */
export function decisionAfterCode(
  context: Context,
  output: Pick<MfaCodeOutput, 'method' | 'mfaId'>,
  purpose: CodePurpose,
): AfterCode {
  return afterCode({
    method: output.method,
    mfaId: output.mfaId,
    search: purpose === 'stepUp' ? stepUpSearch(context.location) : context.location.search,
    // A partner's sign-in goes back to its request (rule 2), but not before a weak password is
    // renewed: that sign-in opens no session until then, so the request would only ask again.
    partnerRedirect:
      context.partnerLogin &&
      isAuthorisationReturn(context.target) &&
      new URLSearchParams(context.location.search).get('weakPassword') !== 'true'
        ? context.target
        : null,
    signIn: purpose === 'signIn',
    target: context.target,
  });
}

/** What a partner page's flow starts with: its step, its query, the addresses a redirect_uri may name. */
export function partnerInput(context: Pick<Context, 'location' | 'config'>): PartnerInput {
  return {
    step: stepOf(context.location.path, 'partner') ?? 'landing',
    search: context.location.search,
    redirectTargets: context.config?.redirectTargets ?? [],
  };
}

/** What the profile's flow starts with: its step, the profile, and the day it is (no birth date after it). */
export function profileInput(context: Pick<Context, 'location' | 'user'>, now = new Date()): ProfileInput {
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

/** The set-up's steps that Security opens to add a method. */
const ADDING_STEPS: ReadonlySet<string> = new Set(['selection', 'phone', 'email']);

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

/**
 * A flow declared by its type only: the root does not import the flows beyond login, so each can
 * load in its own chunk. The app binds the real machine (src/app/actor.ts, loaded on first use);
 * tests bind `FLOW_MACHINES` (./flows.ts).
 */
function flow<T extends AnyActorLogic>(name: string): T {
  return fromPromise(async () => {
    throw new Error(`the ${name} flow is provided by the app`);
  }) as unknown as T;
}

export const rootSetup = setup({
  types: {
    context: {} as Context,
    events: {} as RootEvent,
    input: {} as RootInput,
    // Every child by its id, so views read `snapshot.children.login` with its own type.
    children: {} as {
      loadConfig: 'loadConfig';
      checkAgain: 'loadConfig';
      restoreUser: 'fetchUser';
      loadUser: 'fetchUser';
      logout: 'logout';
      exchangeTicket: 'exchangeTicket';
      login: 'login';
      mfaCode: 'mfaCode';
      stepUp: 'mfaCode';
      secondFactorStatus: 'secondFactorStatus';
      totpRecovery: 'totpRecovery';
      forcedMfa: 'forcedMfa';
      mfaSettings: 'mfaSettings';
      accessGrants: 'accessGrants';
      securityHistory: 'securityHistory';
      devices: 'devices';
      editPassword: 'editPassword';
      notifications: 'notifications';
      totpSetup: 'totpSetup';
      weakPassword: 'weakPassword';
      forgotPassword: 'forgotPassword';
      forgotUsername: 'forgotUsername';
      onboarding: 'onboarding';
      consent: 'consent';
      partner: 'partner';
      profile: 'profile';
    },
  },
  actors: {
    loadConfig: fromPromise<AppConfig>(async () => {
      throw new Error('loadConfig is provided by the app');
    }),
    fetchUser: fromPromise<UserProfile>(async () => {
      throw new Error('fetchUser is provided by the app');
    }),
    logout: fromPromise<void>(async () => {
      throw new Error('logout is provided by the app');
    }),
    exchangeTicket: fromPromise<unknown, { ticket: string; clientId: string }>(async () => {
      throw new Error('exchangeTicket is provided by the app');
    }),
    login: loginMachine,
    mfaCode: flow<typeof mfaCodeMachine>('mfaCode'),
    totpRecovery: flow<typeof totpRecoveryMachine>('totpRecovery'),
    forcedMfa: flow<typeof forcedMfaMachine>('forcedMfa'),
    mfaSettings: flow<typeof mfaSettingsMachine>('mfaSettings'),
    accessGrants: flow<typeof accessGrantsMachine>('accessGrants'),
    securityHistory: flow<typeof historyMachine>('securityHistory'),
    devices: flow<typeof devicesMachine>('devices'),
    editPassword: flow<typeof editPasswordMachine>('editPassword'),
    notifications: flow<typeof notificationsMachine>('notifications'),
    totpSetup: flow<typeof totpSetupMachine>('totpSetup'),
    weakPassword: flow<typeof newPasswordMachine>('weakPassword'),
    forgotPassword: flow<typeof forgotPasswordMachine>('forgotPassword'),
    forgotUsername: flow<typeof forgotUsernameMachine>('forgotUsername'),
    onboarding: flow<typeof onboardingMachine>('onboarding'),
    consent: flow<typeof consentMachine>('consent'),
    partner: flow<typeof partnerMachine>('partner'),
    profile: flow<typeof profileMachine>('profile'),
    /** Whether this session passed MFA recently, and the methods to check it with. */
    secondFactorStatus: fromPromise<{ sudo: boolean; methods: MfaMethodSummary[] }>(async () => {
      throw new Error('secondFactorStatus is provided by the app');
    }),
  },
  actions: {
    // Side effects, provided by the app (router, storage, analytics, window.location).
    navigate: (_, _params: { to: string }) => {},
    leaveTo: (_, _params: { url: string }) => {},
    /** Back in the browser's history, by as many entries. */
    goBack: (_, _params: { steps: number }) => {},
    trackPageView: (_, _params: { path: string }) => {},
    persistAccount: (_, _params: { user: UserProfile | null }) => {},
    persistTarget: (_, _params: { target: string | null }) => {},
    /** Keeps a value in the tab's session storage (null removes it). */
    storeSession: (_, _params: { key: 'mfaPayload' | 'loginPayload' | 'mfa_forced'; value: string | null }) => {},
    clearSession: () => {},
    /** Asks once where the right code leads (../afterCode.ts), from the code entry's answer. */
    decideAfterCode: assign({
      afterCode: ({ context, event }, { purpose }: { purpose: CodePurpose }) =>
        decisionAfterCode(context, (event as unknown as { output: MfaCodeOutput }).output, purpose),
    }),
  },
  delays: {
    /** How often the maintenance page checks by itself whether the API is back. */
    MAINTENANCE_RETRY: 60_000,
  },
  guards: {
    isMaintenance: ({ event }) => is503(errorOf(event)),
    isUnauthorised: ({ event }) => is401(errorOf(event)),
    hasStoredUser: ({ context }) => context.user !== null,
    hasLoginTicket: ({ context }) => context.loginTicket !== null,
    loginSucceeded: ({ event }) => (event as { output?: LoginOutput }).output?.kind === 'success',
    /** A new password that ended this session with the others (machines/editPassword.ts). */
    passwordEndedSession: ({ event }) =>
      (event as { output?: { sessionEnded?: boolean } }).output?.sessionEnded === true,
    loginNeedsMfa: ({ event }) => (event as { output?: LoginOutput }).output?.kind === 'mfa',
    loginWeakPassword: ({ event }) => (event as { output?: LoginOutput }).output?.kind === 'weakPassword',
    // Where a location is, by the route table: a path belongs to a flow; some of its paths start it.
    /** A sign-in's second factor resumes after a reload, from what the tab kept. */
    resumesSignIn: ({ context, event }) =>
      event.type === 'ROUTE' && resumedFlow(context, event.location.path) === 'mfa',
    /** A weak password's renewal resumes after a reload, from what the tab kept. */
    resumesRenewal: ({ context, event }) =>
      event.type === 'ROUTE' && resumedFlow(context, event.location.path) === 'weakPassword',
    routeStartsFlow: ({ event }, { flow }: { flow: Flow }) =>
      event.type === 'ROUTE' && startsFlow(event.location.path, flow),
    /** A path that starts the flow and may show to a visitor (a private one sends to sign-in first). */
    routeOpensToVisitor: ({ event }, { flow }: { flow: Flow }) =>
      event.type === 'ROUTE' && opensToVisitor(event.location.path, flow),
    routeInFlow: ({ event }, { flow }: { flow: Flow }) => event.type === 'ROUTE' && inFlow(event.location.path, flow),
    routeLeavesFlow: ({ event }, { flow }: { flow: Flow }) =>
      event.type === 'ROUTE' && !inFlow(event.location.path, flow),
    routeIsLogout: ({ event }) => event.type === 'ROUTE' && guard(event.location, true).kind === 'logout',
    /** What the last right code leads to (spec §4 "MFA": the order after a code). */
    afterCodeIs: ({ context }, { kind }: { kind: AfterCode['kind'] }) => context.afterCode?.kind === kind,
    /** Forced users (and customers, once) without a second factor set one up first (spec §4 "Forced MFA"). */
    needsEnrolment: ({ context, event }) => {
      const user = (event as { output?: UserProfile }).output ?? context.user;
      // Spec §9: the diversion applies when the client id is absent or first-party.
      if (context.partnerLogin) return false;
      return (
        !!user &&
        !user.mfa_enrolled &&
        (user.mfa_forced || (user.mfa_customer && !user.mfa_offer_later && !context.enrolmentSkipped))
      );
    },
    /** The location is a screen of this flow (a reload or a deep link lands there). */
    atFlow: ({ context }, { flow }: { flow: Flow }) => inFlow(context.location.path, flow),
    /** The code screen an application's request sent a signed-in person to (prompt=login, max_age, a
     * second factor it demands), with the way back to that request. */
    atAuthorisationStepUp: ({ context }) => isAuthorisationStepUp(context.location),
    routeToSecurity: ({ event }) => event.type === 'ROUTE' && inSecurity(event.location.path),
    atSecurity: ({ context }) => inSecurity(context.location.path),
    /** A screen of the flow that needs no fresh proof: the running flow shows it. */
    routeStaysIn: ({ event }, { flow }: { flow: Flow }) =>
      event.type === 'ROUTE' && inFlow(event.location.path, flow) && !isSensitive(event.location.path),
    /** The screen needs a recent second factor (the route table's `sensitive`). */
    atSensitive: ({ context }) => isSensitive(context.location.path),
    atTotpRecoveryWithMethod: ({ context }) =>
      inFlow(context.location.path, 'totpRecovery') && !!new URLSearchParams(context.location.search).get('mfaId'),
    /** The second factor's set-up, for an account that has none yet: a customer who skipped it comes back. */
    atSetupWithoutMethod: ({ context }) =>
      inFlow(context.location.path, 'setupMfa') && context.user?.mfa_enrolled === false,
    atSetupAdding: ({ context }) => ADDING_STEPS.has(stepOf(context.location.path, 'setupMfa') ?? 'intro'),
    choseAuthenticator: ({ event }) => (event as { output?: EnrolmentOutput }).output?.outcome === 'authenticator',
    enrolledFromSecurity: ({ event }) => (event as { output?: EnrolmentOutput }).output?.voluntary === true,
    authenticatorReset: ({ event }) => (event as { output?: { outcome?: string } }).output?.outcome === 'reset',
    onAuthenticatorPath: ({ context }) => startsFlow(context.location.path, 'authenticator'),
    /** The security area's screen the location asks for. */
    atSecurityStep: ({ context }, { step }: { step: StepOf<'security'> }) =>
      stepOf(context.location.path, 'security') === step,
    stepUpNeeded: ({ context, event }) =>
      isSensitive(context.location.path) && !(event as { output?: { sudo: boolean } }).output?.sudo,
    forced: ({ context }) => mustEnrol(context.user),
    enrolled: ({ event }) => (event as { output?: EnrolmentOutput }).output?.outcome === 'enrolled',
  },
});
