// The root machine: owns the session (anonymous / signed in), the route guard of spec §4, and
// invokes the flows. The URL reflects it: the app sends ROUTE on every location change and the
// machine answers with `navigate` (the only way the app changes screens).
import { assign, fromPromise, sendTo, setup } from 'xstate';
import { isApiFailure } from '../contract/api.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import type { AppConfig, UserProfile } from '../contract/schemas.ts';
import { errorOf } from './failures.ts';
import { loginMachine, type LoginMode, type LoginOutput } from './login.ts';
import { mfaCodeMachine, type MfaCodeOutput } from './mfaCode.ts';
import { totpRecoveryMachine } from './totpRecovery.ts';
import { forcedMfaMachine, type EnrolmentOutput } from './forcedMfa.ts';
import { mfaSettingsMachine } from './mfaSettings.ts';
import { totpSetupMachine } from './totpSetup.ts';
import { weakPasswordMachine } from './weakPassword.ts';
import { forgotPasswordMachine } from './forgotPassword.ts';
import { forgotUsernameMachine } from './forgotUsername.ts';
import { onboardingMachine, onboardingStepOf } from './onboarding.ts';
import {
  HOME_PATH, LOGIN_PATH, MAINTENANCE_PATH, allowedRedirect, guard, safeTarget, type Location, type SessionState,
} from './routes.ts';
import type { MfaMethodSummary } from '../contract/schemas.ts';

export type RootInput = {
  /** The local copy of the user kept under `account`, if any. */
  storedAccount: UserProfile | null;
  /** The target URL saved before a sign-in, if any (session storage). */
  storedTarget: string | null;
  location: Location;
};

export type RootEvent =
  | { type: 'ROUTE'; location: Location }
  | { type: 'DISMISS_NOTICE' };

/** A message the current screen shows once: e.g. the weak-password notice on the login page. */
export type Notice = 'weak_password' | 'password_renewed' | 'account_created' | 'logout_failed' | null;

type Context = {
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
};

const is503 = (error: unknown) => isApiFailure(error) && error.status === 503;
const is401 = (error: unknown) => isApiFailure(error) && error.status === 401;

/** The security area; the sensitive screens need a recent second-factor check (spec §4 "Route guard"). */
export const AUTHENTICATOR_PATH = '/setup-mfa/totp';
export const AUTHENTICATOR_DONE_PATH = '/setup-totp/success';
export const SECURITY_PATHS = ['/security', '/security/mfa-edit', '/security/edit-recovery', AUTHENTICATOR_PATH, AUTHENTICATOR_DONE_PATH];
export const SENSITIVE_PATHS = ['/security/mfa-edit', '/security/edit-recovery', AUTHENTICATOR_PATH];

/** Forgotten password: where it starts, and the screens of its later steps. */
export const FORGOT_START_PATHS = ['/forgot-password/email', '/forgot-password/phone'];
export const FORGOT_FLOW_PATHS = ['/forgot-password-sent', '/reset-password', '/reset-password-confirmed'];

/** The enrolment screens; leaving them while forced signs the user out. */
export const ENROLMENT_PATHS = ['/setup-mfa', '/setup-mfa/selection', '/setup-mfa/phone', '/setup-mfa/email', '/setup-mfa/confirmation', '/setup-mfa/success'];

function locationOf(url: string): Location {
  const at = url.indexOf('?');
  return at < 0 ? { path: url, search: '' } : { path: url.slice(0, at), search: url.slice(at) };
}

/** The password rules of the server, or the defaults while the config is unknown (the server checks again). */
const policyOf = (config: AppConfig | null) => config?.passwordPolicy ?? DEFAULT_PASSWORD_POLICY;

function loginModeOf(path: string): LoginMode {
  return path.startsWith('/login/phone') ? 'phone' : 'email';
}

const rootSetup = setup({
  types: {
    context: {} as Context,
    events: {} as RootEvent,
    input: {} as RootInput,
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
    login: loginMachine,
    mfaCode: mfaCodeMachine,
    totpRecovery: totpRecoveryMachine,
    forcedMfa: forcedMfaMachine,
    mfaSettings: mfaSettingsMachine,
    totpSetup: totpSetupMachine,
    weakPassword: weakPasswordMachine,
    forgotPassword: forgotPasswordMachine,
    forgotUsername: forgotUsernameMachine,
    onboarding: onboardingMachine,
    /** Whether this session passed MFA recently, and the methods to check it with. */
    secondFactorStatus: fromPromise<{ sudo: boolean; methods: MfaMethodSummary[] }>(async () => {
      throw new Error('secondFactorStatus is provided by the app');
    }),
  },
  actions: {
    // Side effects, provided by the app (router, storage, analytics, window.location).
    navigate: (_, _params: { to: string }) => {},
    leaveTo: (_, _params: { url: string }) => {},
    trackPageView: (_, _params: { path: string }) => {},
    persistAccount: (_, _params: { user: UserProfile | null }) => {},
    persistTarget: (_, _params: { target: string | null }) => {},
    storeSession: (_, _params: { key: 'mfaPayload' | 'loginPayload'; value: string }) => {},
    clearSession: () => {},
  },
  guards: {
    isMaintenance: ({ event }) => is503(errorOf(event)),
    isUnauthorised: ({ event }) => is401(errorOf(event)),
    hasStoredUser: ({ context }) => context.user !== null,
    loginSucceeded: ({ event }) => (event as { output?: LoginOutput }).output?.kind === 'success',
    loginNeedsMfa: ({ event }) => (event as { output?: LoginOutput }).output?.kind === 'mfa',
    loginWeakPassword: ({ event }) => (event as { output?: LoginOutput }).output?.kind === 'weakPassword',
    routeIsLogout: ({ event }) => event.type === 'ROUTE' && guard(event.location, true).kind === 'logout',
    /** Leaving the second-factor screens abandons that sign-in. */
    routeLeavesSecondFactor: ({ event }) => event.type === 'ROUTE' && !['/mfa', '/mfa/methods'].includes(event.location.path),
    routeIsMethods: ({ event }) => event.type === 'ROUTE' && event.location.path === '/mfa/methods',
    usedRecoveryKey: ({ context }) => context.recoveryKeysLeft !== null,
    /** Forced users (and customers, once) without a second factor set one up first (spec §4 "Forced MFA"). */
    needsEnrolment: ({ context, event }) => {
      const user = (event as { output?: UserProfile }).output ?? context.user;
      return !!user && !user.mfa_enrolled && (user.mfa_forced || (user.mfa_customer && !context.enrolmentSkipped));
    },
    routeToSecurity: ({ event }) => event.type === 'ROUTE' && SECURITY_PATHS.includes(event.location.path),
    routeToStepUpScreens: ({ event }) => event.type === 'ROUTE' && ['/mfa', '/mfa/methods'].includes(event.location.path),
    authenticatorReset: ({ event }) => (event as { output?: { outcome?: string } }).output?.outcome === 'reset',
    routeToForgotUsername: ({ event }) => event.type === 'ROUTE' && event.location.path === '/forgot-username',
    routeInForgotUsername: ({ event }) => event.type === 'ROUTE' && ['/forgot-username', '/forgot-username-response'].includes(event.location.path),
    routeToForgot: ({ event }) => event.type === 'ROUTE' && FORGOT_START_PATHS.includes(event.location.path),
    routeInForgot: ({ event }) => event.type === 'ROUTE' && [...FORGOT_START_PATHS, ...FORGOT_FLOW_PATHS].includes(event.location.path),
    routeIsWeakPassword: ({ event }) => event.type === 'ROUTE' && event.location.path === '/weak-password',
    routeToOnboarding: ({ event }) => event.type === 'ROUTE' && onboardingStepOf(event.location.path) !== null,
    routeInAuthenticatorSetup: ({ event }) => event.type === 'ROUTE' && [AUTHENTICATOR_PATH, AUTHENTICATOR_DONE_PATH].includes(event.location.path),
    onAuthenticatorPath: ({ context }) => context.location.path === AUTHENTICATOR_PATH,
    stepUpNeeded: ({ context, event }) =>
      SENSITIVE_PATHS.includes(context.location.path) && !(event as { output?: { sudo: boolean } }).output?.sudo,
    routeInEnrolment: ({ event }) => event.type === 'ROUTE' && ENROLMENT_PATHS.includes(event.location.path),
    forced: ({ context }) => context.user?.mfa_forced === true,
    enrolled: ({ event }) => (event as { output?: EnrolmentOutput }).output?.outcome === 'enrolled',
    routeLeavesRecovery: ({ event }) => event.type === 'ROUTE' && event.location.path !== '/mfa/totp-recovery',
  },
});

/** Applies the route guard (spec §4) to the current location. */
const applyGuard = (session: SessionState) => rootSetup.enqueueActions(({ context, enqueue }) => {
  const signedIn = session === 'signedIn';
  const decision = guard(context.location, session);
  if (decision.kind === 'redirect') {
    enqueue({ type: 'navigate', params: { to: decision.to } });
  } else if (decision.kind === 'login') {
    enqueue.assign({ target: decision.target });
    enqueue({ type: 'persistTarget', params: { target: decision.target } });
    enqueue({ type: 'navigate', params: { to: LOGIN_PATH } });
  } else if (decision.kind === 'logout') {
    enqueue.raise({ type: 'ROUTE', location: context.location });
  } else {
    enqueue({ type: 'trackPageView', params: { path: context.location.path } });
    const away = signedIn && context.location.path === HOME_PATH
      ? allowedRedirect(context.location.search, context.config?.redirectTargets ?? []) : null;
    if (away) enqueue({ type: 'leaveTo', params: { url: away } });
  }
});

/** Forgets everything about the signed-out user: local copy and session storage (context is reset beside it). */
const forgetSession = [{ type: 'persistAccount', params: { user: null } }, 'clearSession'] as const;

export const rootMachine = rootSetup.createMachine({
  id: 'root',
  context: ({ input }) => ({
    config: null,
    user: input.storedAccount,
    target: input.storedTarget,
    location: input.location,
    notice: null,
    mfa: null,
    recoveryKeysLeft: null,
    enrolmentSkipped: false,
    weakPayload: null,
  }),
  initial: 'booting',
  on: {
    DISMISS_NOTICE: { actions: assign({ notice: null }) },
  },
  states: {
    booting: {
      on: { ROUTE: { actions: assign({ location: ({ event }) => event.location }) } },
      invoke: {
        id: 'loadConfig',
        src: 'loadConfig',
        onDone: { target: 'restoring', actions: assign({ config: ({ event }) => event.output }) },
        onError: [
          { guard: 'isMaintenance', target: 'maintenance' },
          // Without the config the app still works with the host's defaults.
          { target: 'restoring' },
        ],
      },
    },
    restoring: {
      on: { ROUTE: { actions: assign({ location: ({ event }) => event.location }) } },
      invoke: {
        id: 'restoreUser',
        src: 'fetchUser',
        onDone: [
          {
            guard: 'needsEnrolment',
            target: 'signedIn.enrolling',
            actions: [
              assign({ user: ({ event }) => event.output, location: locationOf('/setup-mfa') }),
              { type: 'persistAccount', params: ({ event }) => ({ user: event.output }) },
            ],
          },
          {
            target: 'signedIn',
            actions: [assign({ user: ({ event }) => event.output }), { type: 'persistAccount', params: ({ event }) => ({ user: event.output }) }],
          },
        ],
        onError: [
          { guard: 'isMaintenance', target: 'maintenance' },
          { guard: 'isUnauthorised', target: 'anonymous', actions: [assign({ user: null }), { type: 'persistAccount', params: { user: null } }] },
          // Offline or failing: keep the local copy if there is one.
          { guard: 'hasStoredUser', target: 'signedIn' },
          { target: 'anonymous' },
        ],
      },
    },
    anonymous: {
      entry: [
        applyGuard('anonymous'),
        // Arriving on a forgotten-password or -username or an onboarding screen (deep link, reload) starts that flow.
        rootSetup.enqueueActions(({ context, enqueue }) => {
          const path = context.location.path;
          if ([...FORGOT_START_PATHS, '/forgot-username'].includes(path) || onboardingStepOf(path) !== null) enqueue.raise({ type: 'ROUTE', location: context.location });
        }),
      ],
      on: {
        ROUTE: { actions: [assign({ location: ({ event }) => event.location }), applyGuard('anonymous')] },
      },
      initial: 'signingIn',
      states: {
        signingIn: {
          on: {
            ROUTE: [{
              guard: 'routeToOnboarding',
              target: 'onboarding',
              actions: [assign({ location: ({ event }) => event.location }), applyGuard('anonymous')],
            }, {
              guard: 'routeToForgotUsername',
              target: 'findingUsername',
              actions: [assign({ location: ({ event }) => event.location }), applyGuard('anonymous')],
            }, {
              guard: 'routeToForgot',
              target: 'recoveringPassword',
              actions: [assign({ location: ({ event }) => event.location }), applyGuard('anonymous')],
            }, {
              actions: [
                assign({ location: ({ event }) => event.location }),
                applyGuard('anonymous'),
                sendTo('login', ({ event }) => ({ type: 'SET_MODE', mode: loginModeOf(event.location.path) })),
              ],
            }],
          },
          invoke: {
            id: 'login',
            src: 'login',
            input: ({ context }) => ({ mode: loginModeOf(context.location.path) }),
            onDone: [
              { guard: 'loginSucceeded', target: 'loadingUser', actions: assign({ notice: null }) },
              {
                guard: 'loginNeedsMfa',
                target: 'secondFactor',
                actions: [
                  { type: 'storeSession', params: ({ event }) => ({ key: 'mfaPayload', value: JSON.stringify(event.output) }) },
                  assign({ mfa: ({ event }) => {
                    const output = event.output as Extract<LoginOutput, { kind: 'mfa' }>;
                    return { payload: output.payload, methods: output.methods };
                  } }),
                ],
              },
              {
                guard: 'loginWeakPassword',
                target: 'renewingPassword',
                actions: [
                  { type: 'storeSession', params: ({ event }) => ({ key: 'loginPayload', value: (event.output as { payload: string }).payload }) },
                  assign({ notice: 'weak_password', weakPayload: ({ event }) => (event.output as { payload: string }).payload }),
                  { type: 'navigate', params: { to: '/weak-password' } },
                ],
              },
              { target: '#root.maintenance' },
            ],
          },
        },
        // Activating a card or an invitation (spec §4 Onboarding): the flow decides which step may
        // show; every location change inside it goes to the flow as the step asked for.
        onboarding: {
          on: {
            ROUTE: [
              {
                guard: 'routeToOnboarding',
                actions: [
                  assign({ location: ({ event }) => event.location }),
                  applyGuard('anonymous'),
                  sendTo('onboarding', ({ event }) => ({ type: 'ROUTE', step: onboardingStepOf(event.location.path)! })),
                ],
              },
              { target: 'signingIn', actions: [assign({ location: ({ event }) => event.location }), applyGuard('anonymous')] },
            ],
          },
          invoke: {
            id: 'onboarding',
            src: 'onboarding',
            input: ({ context }) => ({
              entry: onboardingStepOf(context.location.path) ?? 'onboarding', policy: policyOf(context.config), language: context.config?.defaultLocale ?? 'en',
            }),
            onDone: { target: 'signingIn', actions: [assign({ notice: 'account_created' }), { type: 'navigate', params: { to: LOGIN_PATH } }] },
          },
        },
        findingUsername: {
          on: {
            ROUTE: [
              { guard: 'routeInForgotUsername', actions: assign({ location: ({ event }) => event.location }) },
              { target: 'signingIn', actions: [assign({ location: ({ event }) => event.location }), applyGuard('anonymous')] },
            ],
          },
          invoke: { id: 'forgotUsername', src: 'forgotUsername' },
        },
        recoveringPassword: {
          on: {
            ROUTE: [
              {
                guard: 'routeToForgot',
                actions: [
                  assign({ location: ({ event }) => event.location }),
                  sendTo('forgotPassword', ({ event }) => ({ type: 'SET_MODE', mode: event.location.path.endsWith('/phone') ? 'phone' : 'email' })),
                ],
              },
              { guard: 'routeInForgot', actions: assign({ location: ({ event }) => event.location }) },
              { target: 'signingIn', actions: [assign({ location: ({ event }) => event.location }), applyGuard('anonymous')] },
            ],
          },
          invoke: {
            id: 'forgotPassword',
            src: 'forgotPassword',
            input: ({ context }) => ({ mode: context.location.path.endsWith('/phone') ? 'phone' as const : 'email' as const, policy: policyOf(context.config) }),
            onDone: { target: 'signingIn', actions: [assign({ notice: 'password_renewed' }), { type: 'navigate', params: { to: LOGIN_PATH } }] },
          },
        },
        renewingPassword: {
          on: {
            ROUTE: [
              { guard: 'routeIsWeakPassword', actions: assign({ location: ({ event }) => event.location }) },
              // Leaving abandons the renewal: the account still cannot be used until it is done.
              { target: 'signingIn', actions: [assign({ location: ({ event }) => event.location, weakPayload: null, notice: null }), applyGuard('anonymous')] },
            ],
          },
          invoke: {
            id: 'weakPassword',
            src: 'weakPassword',
            input: ({ context }) => ({ payload: context.weakPayload ?? '', policy: policyOf(context.config) }),
            onDone: {
              target: 'signingIn',
              actions: [assign({ weakPayload: null, notice: 'password_renewed' }), { type: 'navigate', params: { to: LOGIN_PATH } }],
            },
          },
        },
        secondFactor: {
          on: {
            ROUTE: [
              { guard: 'routeLeavesSecondFactor', target: 'signingIn', actions: [assign({ location: ({ event }) => event.location, mfa: null }), applyGuard('anonymous')] },
              { guard: 'routeIsMethods', actions: [assign({ location: ({ event }) => event.location }), sendTo('mfaCode', { type: 'CHANGE_METHOD' })] },
              { actions: assign({ location: ({ event }) => event.location }) },
            ],
          },
          invoke: {
            id: 'mfaCode',
            src: 'mfaCode',
            input: ({ context }) => ({ methods: context.mfa?.methods ?? [], loginPayload: context.mfa?.payload ?? null }),
            onDone: {
              target: 'loadingUser',
              actions: assign({
                mfa: null,
                recoveryKeysLeft: ({ event }) => (event.output as MfaCodeOutput).recoveryKeysLeft,
              }),
            },
          },
        },
        loadingUser: {
          invoke: {
            id: 'loadUser',
            src: 'fetchUser',
            onDone: [{
              guard: 'needsEnrolment',
              target: '#root.signedIn.enrolling',
              actions: [
                // The guard entering signedIn judges the set-up screen, where the user is going.
                assign({ user: ({ event }) => event.output, location: locationOf('/setup-mfa') }),
                { type: 'persistAccount', params: ({ event }) => ({ user: event.output }) },
              ],
            }, {
              guard: 'usedRecoveryKey',
              target: '#root.signedIn.recovering',
              actions: [
                assign({ user: ({ event }) => event.output, location: locationOf('/mfa/totp-recovery') }),
                { type: 'persistAccount', params: ({ event }) => ({ user: event.output }) },
                { type: 'navigate', params: { to: '/mfa/totp-recovery' } },
              ],
            }, {
              target: '#root.signedIn',
              actions: [
                assign({ user: ({ event }) => event.output }),
                { type: 'persistAccount', params: ({ event }) => ({ user: event.output }) },
                // Where the user goes next is known now: the guard on entering signedIn must judge
                // that location, not the login screen the URL still shows.
                assign({ location: ({ context }) => locationOf(safeTarget(context.target) ?? HOME_PATH) }),
                { type: 'navigate', params: ({ context }) => ({ to: context.location.path + context.location.search }) },
                assign({ target: null }),
                { type: 'persistTarget', params: { target: null } },
              ],
            }],
            onError: [
              { guard: 'isMaintenance', target: '#root.maintenance' },
              { target: 'signingIn', actions: assign({ notice: null }) },
            ],
          },
        },
      },
    },
    signedIn: {
      entry: applyGuard('signedIn'),
      initial: 'idle',
      states: {
        idle: {
          on: {
            ROUTE: [
              { guard: 'routeIsLogout', target: 'loggingOut', actions: assign({ location: ({ event }) => event.location }) },
              { guard: 'routeToSecurity', target: 'security', actions: [assign({ location: ({ event }) => event.location }), applyGuard('signedIn')] },
              { actions: [assign({ location: ({ event }) => event.location }), applyGuard('signedIn')] },
            ],
          },
        },
        enrolling: {
          on: {
            ROUTE: [
              { guard: 'routeInEnrolment', actions: assign({ location: ({ event }) => event.location }) },
              // Leaving the set-up while it is mandatory signs the user out; a customer leaving skips it.
              { guard: 'forced', target: 'loggingOut', actions: assign({ location: ({ event }) => event.location }) },
              { target: 'idle', actions: [assign({ location: ({ event }) => event.location, enrolmentSkipped: true }), applyGuard('signedIn')] },
            ],
          },
          invoke: {
            id: 'forcedMfa',
            src: 'forcedMfa',
            input: ({ context }) => ({
              forced: context.user?.mfa_forced === true,
              customer: context.user?.mfa_customer === true,
              hasSms: false,
            }),
            onDone: [
              {
                guard: 'enrolled',
                target: 'idle',
                actions: [
                  assign({ user: ({ context }) => (context.user ? { ...context.user, mfa_enrolled: true } : null) }),
                  { type: 'persistAccount', params: ({ context }) => ({ user: context.user }) },
                  assign({ location: ({ context }) => locationOf(safeTarget(context.target) ?? HOME_PATH) }),
                  { type: 'navigate', params: ({ context }) => ({ to: context.location.path + context.location.search }) },
                  assign({ target: null }),
                ],
              },
              {
                target: 'idle',
                actions: [
                  assign({ enrolmentSkipped: true, location: ({ context }) => locationOf(safeTarget(context.target) ?? HOME_PATH) }),
                  { type: 'navigate', params: ({ context }) => ({ to: context.location.path + context.location.search }) },
                  assign({ target: null }),
                ],
              },
            ],
          },
        },
        security: {
          on: {
            ROUTE: [
              { guard: 'routeIsLogout', target: 'loggingOut', actions: assign({ location: ({ event }) => event.location }) },
              { guard: 'routeToSecurity', target: 'security', reenter: true, actions: [assign({ location: ({ event }) => event.location }), applyGuard('signedIn')] },
              { target: 'idle', actions: [assign({ location: ({ event }) => event.location }), applyGuard('signedIn')] },
            ],
          },
          initial: 'checking',
          states: {
            checking: {
              invoke: {
                id: 'secondFactorStatus',
                src: 'secondFactorStatus',
                onDone: [
                  {
                    guard: 'stepUpNeeded',
                    target: 'steppingUp',
                    actions: assign({ mfa: ({ event }) => ({ payload: '', methods: event.output.methods }) }),
                  },
                  { guard: 'onAuthenticatorPath', target: 'authenticator' },
                  { target: 'open' },
                ],
                onError: { target: 'open' },
              },
            },
            // The sensitive screen waits behind /mfa/methods?single=true&redirect=…, then comes back.
            steppingUp: {
              entry: { type: 'navigate', params: ({ context }) => ({ to: `/mfa/methods?single=true&redirect=${encodeURIComponent(context.location.path)}` }) },
              on: {
                ROUTE: [
                  { guard: 'routeIsMethods', actions: sendTo('stepUp', { type: 'CHANGE_METHOD' }) },
                  { guard: 'routeToStepUpScreens' },
                  { guard: 'routeIsLogout', target: '#root.signedIn.loggingOut', actions: assign({ location: ({ event }) => event.location }) },
                  { target: '#root.signedIn.idle', actions: [assign({ location: ({ event }) => event.location, mfa: null }), applyGuard('signedIn')] },
                ],
              },
              invoke: {
                id: 'stepUp',
                src: 'mfaCode',
                input: ({ context }) => ({ methods: context.mfa?.methods ?? [], loginPayload: null }),
                onDone: [
                  {
                    guard: 'onAuthenticatorPath',
                    target: 'authenticator',
                    actions: [assign({ mfa: null }), { type: 'navigate', params: ({ context }) => ({ to: context.location.path }) }],
                  },
                  {
                    target: 'open',
                    actions: [assign({ mfa: null }), { type: 'navigate', params: ({ context }) => ({ to: context.location.path }) }],
                  },
                ],
              },
            },
            open: {
              invoke: { id: 'mfaSettings', src: 'mfaSettings' },
            },
            authenticator: {
              on: {
                // The set-up moves between its two screens by itself.
                ROUTE: { guard: 'routeInAuthenticatorSetup', actions: assign({ location: ({ event }) => event.location }) },
              },
              invoke: {
                id: 'totpSetup',
                src: 'totpSetup',
                onDone: { actions: { type: 'navigate', params: { to: '/security' } } },
              },
            },
          },
        },
        recovering: {
          on: {
            ROUTE: [
              { guard: 'routeIsLogout', target: 'loggingOut', actions: assign({ location: ({ event }) => event.location }) },
              // Leaving the screen is skipping it.
              { guard: 'routeLeavesRecovery', target: 'idle', actions: [assign({ location: ({ event }) => event.location, recoveryKeysLeft: null }), applyGuard('signedIn')] },
              { actions: assign({ location: ({ event }) => event.location }) },
            ],
          },
          invoke: {
            id: 'totpRecovery',
            src: 'totpRecovery',
            input: ({ context }) => ({ keysLeft: context.recoveryKeysLeft ?? 0 }),
            onDone: [{
              // Resetting the authenticator continues with the set-up of a new one.
              guard: 'authenticatorReset',
              target: 'idle',
              actions: [assign({ recoveryKeysLeft: null }), { type: 'navigate', params: { to: AUTHENTICATOR_PATH } }],
            }, {
              target: 'idle',
              actions: [
                assign({ recoveryKeysLeft: null, location: ({ context }) => locationOf(safeTarget(context.target) ?? HOME_PATH) }),
                { type: 'navigate', params: ({ context }) => ({ to: context.location.path + context.location.search }) },
                assign({ target: null }),
                { type: 'persistTarget', params: { target: null } },
              ],
            }],
          },
        },
        loggingOut: {
          invoke: {
            id: 'logout',
            src: 'logout',
            onDone: {
              target: '#root.anonymous',
              actions: [assign({ user: null, target: null }), ...forgetSession, { type: 'navigate', params: { to: LOGIN_PATH } }],
            },
            onError: [
              // The server no longer knows the token: the user is signed out all the same.
              { guard: 'isUnauthorised', target: '#root.anonymous', actions: [assign({ user: null, target: null }), ...forgetSession, { type: 'navigate', params: { to: LOGIN_PATH } }] },
              { target: 'idle', actions: [assign({ notice: 'logout_failed' }), { type: 'navigate', params: { to: HOME_PATH } }] },
            ],
          },
        },
      },
    },
    maintenance: {
      entry: { type: 'navigate', params: { to: MAINTENANCE_PATH } },
      on: {
        ROUTE: {
          guard: ({ event }) => event.location.path !== MAINTENANCE_PATH,
          actions: { type: 'navigate', params: { to: MAINTENANCE_PATH } },
        },
      },
    },
  },
});
