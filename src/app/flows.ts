// The root's flows beyond login, bound to the real world and loaded when first needed: each
// machine comes in its own chunk when the root first starts it (see lazyFlow.ts). The API calls,
// the screen requests (`show`, to the route table's path of the step) and the language a flow
// speaks are bound here.
import i18next from 'i18next';
import { fromPromise } from 'xstate';
import type { FLOW_MACHINES } from '../../machines/root/flows.ts';
import { pathOf } from '../../machines/routes.ts';
import type { TotpStart } from '../../machines/totpSetup.ts';
import {
  acceptTerms, confirmActivation, confirmTotp, createAccount, deleteMethod, findUsernames, listMethods, regenerateRecoveryKeys, requestPasswordCode,
  resetAuthenticator, resetPassword, saveProfile, sendEmailCode, sendPhoneCode, startActivation, startChallenge, startTotp, startWithCard,
  startWithInvitation, switchPrimary, verifyCode, verifyOnboardingCode, verifyPasswordCode,
} from '../api/calls.ts';
import { lazyFlow } from './lazyFlow.ts';

type Flows = typeof FLOW_MACHINES;

const newPassword = () => import('../../machines/weakPassword.ts').then(({ weakPasswordMachine }) => weakPasswordMachine);

/** Each flow's actor logic for the root's `.provide()`; `go` asks the router for a path. */
export function flowsOf(go: (to: string) => void): Flows {
  const flows = {
    mfaCode: lazyFlow(() => import('../../machines/mfaCode.ts').then(({ mfaCodeMachine }) => mfaCodeMachine.provide({
      actors: {
        startChallenge: fromPromise(({ input }) => startChallenge(input)),
        verifyCode: fromPromise(({ input }) => verifyCode(input)),
      },
      actions: { show: (_, { screen }) => go(pathOf('mfa', screen)) },
    }))),
    mfaSettings: lazyFlow(() => import('../../machines/mfaSettings.ts').then(({ mfaSettingsMachine }) => mfaSettingsMachine.provide({
      actors: {
        listMethods: fromPromise(() => listMethods()),
        switchPrimary: fromPromise(({ input }) => switchPrimary(input)),
        deleteMethod: fromPromise(({ input }) => deleteMethod(input)),
        regenerate: fromPromise(() => regenerateRecoveryKeys()),
      },
    }))),
    weakPassword: lazyFlow(() => newPassword().then((machine) => machine.provide({
      actors: { resetPassword: fromPromise(({ input }) => resetPassword(input)) },
    }))),
    forgotUsername: lazyFlow(() => import('../../machines/forgotUsername.ts').then(({ forgotUsernameMachine }) => forgotUsernameMachine.provide({
      actors: { findUsernames: fromPromise(({ input }) => findUsernames(input)) },
      actions: { show: (_, { screen }) => go(pathOf('forgotUsername', screen)) },
    }))),
    forgotPassword: lazyFlow(async () => {
      const [{ forgotPasswordMachine }, weakPasswordMachine] = await Promise.all([import('../../machines/forgotPassword.ts'), newPassword()]);
      return forgotPasswordMachine.provide({
        actors: {
          requestCode: fromPromise(({ input }) => requestPasswordCode(input)),
          verifyCode: fromPromise(({ input }) => verifyPasswordCode(input)),
          newPassword: weakPasswordMachine.provide({ actors: { resetPassword: fromPromise(({ input }) => resetPassword(input)) } }),
        },
        actions: { show: (_, { screen }) => go(pathOf('forgotPassword', screen)) },
      });
    }),
    onboarding: lazyFlow(async () => {
      const [{ onboardingMachine }, weakPasswordMachine] = await Promise.all([import('../../machines/onboarding.ts'), newPassword()]);
      return onboardingMachine.provide({
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
      });
    }),
    totpSetup: lazyFlow(() => import('../../machines/totpSetup.ts').then(({ totpSetupMachine }) => totpSetupMachine.provide({
      actors: { startTotp: fromPromise<TotpStart>(() => startTotp()), confirmTotp: fromPromise(({ input }) => confirmTotp(input)) },
      actions: { show: (_, { screen }) => go(pathOf('authenticator', screen)) },
    }))),
    totpRecovery: lazyFlow(() => import('../../machines/totpRecovery.ts').then(({ totpRecoveryMachine }) => totpRecoveryMachine.provide({
      actors: { regenerate: fromPromise(() => regenerateRecoveryKeys()), resetAuthenticator: fromPromise(() => resetAuthenticator()) },
    }))),
    forcedMfa: lazyFlow(() => import('../../machines/forcedMfa.ts').then(({ forcedMfaMachine }) => forcedMfaMachine.provide({
      actors: {
        startActivation: fromPromise(({ input }) => startActivation(input)),
        confirmActivation: fromPromise(({ input }) => confirmActivation(input)),
      },
      actions: { show: (_, { screen }) => go(pathOf('setupMfa', screen)) },
    }))),
  };
  return Object.fromEntries(Object.entries(flows).map(([name, { logic }]) => [name, logic])) as unknown as Flows;
}
