// Binds the root machine to the real world: the API client, the router, storage, analytics.
// The router only changes screens when the machine says so (`navigate`), and every location
// change (link, back button, reload) goes back to the machine as ROUTE.
/** Where the machine's navigation requests go: set by RouteSync once the router is mounted. */
export type Navigator = { current: ((to: string) => void) | null; pending: string | null };
import { createActor, fromPromise, type ActorOptions, type AnyActorLogic } from 'xstate';
import type { UserProfile } from '../../contract/schemas.ts';
import { rootMachine } from '../../machines/root.ts';
import { loginMachine } from '../../machines/login.ts';
import {
  confirmActivation, confirmTotp, deleteMethod, fetchUser, findUsernames, listMethods, loadConfig, logout, regenerateRecoveryKeys, resetAuthenticator, resetPassword,
  requestPasswordCode, secondFactorStatus, startActivation, verifyPasswordCode,
  startChallenge, startTotp, submitLogin, switchPrimary, verifyCode,
} from '../api/calls.ts';
import { totpSetupMachine, type TotpStart } from '../../machines/totpSetup.ts';
import { weakPasswordMachine } from '../../machines/weakPassword.ts';
import { forgotPasswordMachine } from '../../machines/forgotPassword.ts';
import { forgotUsernameMachine } from '../../machines/forgotUsername.ts';
import { onboardingMachine } from '../../machines/onboarding.ts';
import { pathOf } from '../../machines/routes.ts';
import {
  acceptTerms, createAccount, saveProfile, sendEmailCode, sendPhoneCode, startWithCard, startWithInvitation, verifyOnboardingCode,
} from '../api/calls.ts';
import i18next from 'i18next';
import { mfaSettingsMachine } from '../../machines/mfaSettings.ts';
import { forcedMfaMachine } from '../../machines/forcedMfa.ts';
import { mfaCodeMachine } from '../../machines/mfaCode.ts';
import { totpRecoveryMachine } from '../../machines/totpRecovery.ts';
import { configureAnalytics, trackPageView } from '../analytics.ts';

const ACCOUNT_KEY = 'account';
const TARGET_KEY = 'targetUrl';

function readJson<T>(storage: Storage, key: string): T | null {
  try {
    const raw = storage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

function write(storage: Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // storage unavailable: the session lives in memory only
  }
}

export function createRootActor(navigator: Navigator, inspect?: ActorOptions<AnyActorLogic>['inspect']) {
  const go = (to: string) => {
    // Before the router mounts (while the session settles) the request waits for it.
    if (navigator.current) navigator.current(to);
    else navigator.pending = to;
  };
  const machine = rootMachine.provide({
    actors: {
      loadConfig: fromPromise(async () => {
        const config = await loadConfig();
        configureAnalytics(config.analyticsUrl);
        return config;
      }),
      fetchUser: fromPromise(fetchUser),
      logout: fromPromise(logout),
      login: loginMachine.provide({ actors: { submitLogin: fromPromise(({ input }) => submitLogin(input)) } }),
      mfaCode: mfaCodeMachine.provide({
        actors: {
          startChallenge: fromPromise(({ input }) => startChallenge(input)),
          verifyCode: fromPromise(({ input }) => verifyCode(input)),
        },
        actions: { show: (_, { screen }) => go(pathOf('mfa', screen)) },
      }),
      mfaSettings: mfaSettingsMachine.provide({
        actors: {
          listMethods: fromPromise(() => listMethods()),
          switchPrimary: fromPromise(({ input }) => switchPrimary(input)),
          deleteMethod: fromPromise(({ input }) => deleteMethod(input)),
          regenerate: fromPromise(() => regenerateRecoveryKeys()),
        },
      }),
      secondFactorStatus: fromPromise(() => secondFactorStatus()),
      weakPassword: weakPasswordMachine.provide({ actors: { resetPassword: fromPromise(({ input }) => resetPassword(input)) } }),
      forgotUsername: forgotUsernameMachine.provide({
        actors: { findUsernames: fromPromise(({ input }) => findUsernames(input)) },
        actions: { show: (_, { screen }) => go(pathOf('forgotUsername', screen)) },
      }),
      forgotPassword: forgotPasswordMachine.provide({
        actors: {
          requestCode: fromPromise(({ input }) => requestPasswordCode(input)),
          verifyCode: fromPromise(({ input }) => verifyPasswordCode(input)),
          newPassword: weakPasswordMachine.provide({ actors: { resetPassword: fromPromise(({ input }) => resetPassword(input)) } }),
        },
        actions: { show: (_, { screen }) => go(pathOf('forgotPassword', screen)) },
      }),
      onboarding: onboardingMachine.provide({
        actors: {
          // The language the person reads goes with the start: the flow's messages speak it.
          startWithCard: fromPromise(({ input }) => startWithCard({ ...input, language: i18next.language })),
          startWithInvitation: fromPromise(({ input }) => startWithInvitation({ ...input, language: i18next.language })),
          acceptTerms: fromPromise(({ input }) => acceptTerms(input)),
          saveProfile: fromPromise(({ input }) => saveProfile(input)),
          sendEmailCode: fromPromise(({ input }) => sendEmailCode(input)),
          sendPhoneCode: fromPromise(({ input }) => sendPhoneCode(input)),
          verifyCode: fromPromise(({ input }) => verifyOnboardingCode(input)),
          newPassword: weakPasswordMachine.provide({ actors: { resetPassword: fromPromise(({ input }) => createAccount(input)) } }),
        },
        actions: { show: (_, { step }) => go(pathOf('onboarding', step)) },
      }),
      totpSetup: totpSetupMachine.provide({
        actors: { startTotp: fromPromise<TotpStart>(() => startTotp()), confirmTotp: fromPromise(({ input }) => confirmTotp(input)) },
        actions: { show: (_, { screen }) => go(pathOf('authenticator', screen)) },
      }),
      totpRecovery: totpRecoveryMachine.provide({
        actors: { regenerate: fromPromise(() => regenerateRecoveryKeys()), resetAuthenticator: fromPromise(() => resetAuthenticator()) },
      }),
      forcedMfa: forcedMfaMachine.provide({
        actors: {
          startActivation: fromPromise(({ input }) => startActivation(input)),
          confirmActivation: fromPromise(({ input }) => confirmActivation(input)),
        },
        actions: { show: (_, { screen }) => go(pathOf('setupMfa', screen)) },
      }),
    },
    actions: {
      navigate: (_, { to }) => go(to),
      leaveTo: (_, { url }) => { window.location.assign(url); },
      trackPageView: (_, { path }) => trackPageView(path),
      persistAccount: (_, { user }) => write(localStorage, ACCOUNT_KEY, user ? JSON.stringify(user) : null),
      persistTarget: (_, { target }) => write(sessionStorage, TARGET_KEY, target),
      storeSession: (_, { key, value }) => write(sessionStorage, key, value),
      clearSession: () => {
        try {
          sessionStorage.clear();
        } catch {
          // nothing stored
        }
      },
    },
  });
  const location = window.location;
  const actor = createActor(machine, {
    input: {
      storedAccount: readJson<UserProfile>(localStorage, ACCOUNT_KEY),
      storedTarget: (() => { try { return sessionStorage.getItem(TARGET_KEY); } catch { return null; } })(),
      location: { path: location.pathname, search: location.search },
    },
    inspect,
  });
  return actor;
}

export type RootActor = ReturnType<typeof createRootActor>;
