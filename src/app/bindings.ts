// How each flow beyond login meets the real world: its machine (imported here, each in its own
// chunk), its API calls, its screen requests (`show`, to the route table's path of the step) and
// the language it speaks. Loaded with the first flow the root starts (see flows.ts).
import i18next from 'i18next';
import { fromPromise } from 'xstate';
import { apiFailure } from '../../contract/api.ts';
import { pathOf } from '../../machines/routes.ts';
import { codeEntryMachineOf } from '../../machines/codeEntry.ts';
import type { TotpStart } from '../../machines/totpSetup.ts';
import type { ResetMemory } from '../../machines/forgotPassword.ts';
import type { MfaMemory } from '../../machines/mfaCode.ts';
import type { OnboardingMemory } from '../../machines/onboarding.ts';
import { flowMemory } from '../shell/storage.ts';
import type { HistoryFilters } from '../../machines/history.ts';
import type { OnboardingDone } from '../../contract/schemas.ts';
import {
  acceptTerms,
  confirmActivation,
  listAccessGrants,
  loadHistory,
  loadHistoryPage,
  revokeAccessGrant,
  listDevices,
  runDeviceAction,
  confirmTotp,
  createAccount,
  deleteMethod,
  findUsernames,
  listMethods,
  offerLater,
  onboardingState,
  regenerateRecoveryKeys,
  requestPasswordCode,
  resetAuthenticator,
  resetPassword,
  saveProfile,
  sendEmailCode,
  sendPhoneCode,
  startActivation,
  startChallenge,
  startTotp,
  startWithCard,
  startWithInvitation,
  stepUpWithPassword,
  switchPrimary,
  verifyCode,
  verifyOnboardingCode,
  verifyPasswordCode,
  readAuthorization,
  sendApproval,
  readPartner,
  requestPartnerAccess,
  saveProfileInfo,
  saveIban,
  startContact,
  confirmContact,
  deleteContact,
  makeContactPrimary,
  exportAccountData,
  uploadPicture,
  removePicture,
  changePassword,
  loadNotifications,
  saveNotifications,
  readSsoTicket,
  linkAccount,
} from '../api/flowCalls.ts';
import { switchLocale } from '../i18n.ts';
import type { Locale } from '../../contract/constants.ts';
import { keepOffer } from '../fuzzion/memory.ts';

/** Asks the router for a path. */
type Go = (to: string) => void;
/** Tells the root the address a form has typed (it carries to sign-in and back). */
type KeepUsername = (value: string) => void;

const newPassword = () => import('../../machines/newPassword.ts');

/** The shared code entry, specialised by the call that checks the code: `ticket` is what goes with it. */
const codeEntryChecking = <TResult>(
  check: (input: { ticket: string; code: string; remember: boolean; captcha: string | null }) => Promise<TResult>,
) => codeEntryMachineOf<TResult>().provide({ actors: { check: fromPromise(({ input }) => check(input)) } });

const mfaMemory = flowMemory<MfaMemory>('mfaCode');

export const mfaCode = (go: Go) =>
  import('../../machines/mfaCode.ts').then(({ mfaCodeMachine }) =>
    mfaCodeMachine.provide({
      actors: {
        recall: fromPromise(mfaMemory.recall),
        startChallenge: fromPromise(({ input }) => startChallenge(input)),
        codeEntry: codeEntryChecking(({ ticket, code, remember, captcha }) =>
          verifyCode({ payload: ticket, code, trust: remember, captcha }),
        ),
        confirmPassword: fromPromise(({ input }) => stepUpWithPassword(input)),
      },
      actions: {
        // A step-up's screens keep the way back to the screen they are for (a reload asks for it again).
        show: (_, { screen }) => {
          const { search } = window.location;
          go(pathOf('mfa', screen) + (new URLSearchParams(search).has('redirect') ? search : ''));
        },
        keep: (_, memory) => {
          if (memory.loginPayload) mfaMemory.keep(memory);
        },
      },
    }),
  );

export const mfaSettings = (_go: Go) =>
  import('../../machines/mfaSettings.ts').then(({ mfaSettingsMachine }) =>
    mfaSettingsMachine.provide({
      actors: {
        listMethods: fromPromise(() => listMethods()),
        switchPrimary: fromPromise(({ input }) => switchPrimary(input)),
        deleteMethod: fromPromise(({ input }) => deleteMethod(input)),
        regenerate: fromPromise(() => regenerateRecoveryKeys()),
      },
    }),
  );

export const editPassword = (_go: Go) =>
  import('../../machines/editPassword.ts').then(({ editPasswordMachine, changeMachine }) =>
    editPasswordMachine.provide({
      actors: {
        newPassword: changeMachine.provide({
          actors: {
            resetPassword: fromPromise(({ input }) =>
              changePassword({
                ...input.payload,
                password: input.password,
                confirmation: input.confirmation,
                captcha: input.captcha,
              }),
            ),
          },
        }),
      },
    }),
  );

export const notifications = (_go: Go) =>
  import('../../machines/notifications.ts').then(({ notificationsMachine }) =>
    notificationsMachine.provide({
      actors: {
        loadNotifications: fromPromise(() => loadNotifications()),
        saveNotifications: fromPromise(({ input }) => saveNotifications(input)),
      },
    }),
  );

export const accessGrants = (_go: Go) =>
  import('../../machines/accessGrants.ts').then(({ accessGrantsMachine }) =>
    accessGrantsMachine.provide({
      actors: {
        listGrants: fromPromise(() => listAccessGrants()),
        revokeGrant: fromPromise(({ input }) => revokeAccessGrant(input)),
      },
    }),
  );

const historyMemory = flowMemory<HistoryFilters>('securityHistory');

export const securityHistory = (_go: Go) =>
  import('../../machines/history.ts').then(({ historyMachine }) =>
    historyMachine.provide({
      actors: {
        recall: fromPromise(historyMemory.recall),
        loadHistory: fromPromise(({ input }) => {
          historyMemory.keep(input);
          return loadHistory(input);
        }),
        loadPage: fromPromise(({ input }) => loadHistoryPage(input)),
      },
    }),
  );

export const devices = (_go: Go) =>
  import('../../machines/devices.ts').then(({ devicesMachine }) =>
    devicesMachine.provide({
      actors: {
        listDevices: fromPromise(() => listDevices()),
        runAction: fromPromise(({ input }) => runDeviceAction(input)),
      },
    }),
  );

export const weakPassword = (_go: Go) =>
  newPassword().then(({ newPasswordMachine }) =>
    newPasswordMachine.provide({
      actors: { resetPassword: fromPromise(({ input }) => resetPassword(input)) },
    }),
  );

export const forgotUsername = (go: Go) =>
  import('../../machines/forgotUsername.ts').then(({ forgotUsernameMachine }) =>
    forgotUsernameMachine.provide({
      actors: { findUsernames: fromPromise(({ input }) => findUsernames(input)) },
      actions: { show: (_, { screen }) => go(pathOf('forgotUsername', screen)) },
    }),
  );

export const forgotPassword = async (go: Go, keepUsername: KeepUsername) => {
  const [{ forgotPasswordMachine }, { newPasswordMachine }] = await Promise.all([
    import('../../machines/forgotPassword.ts'),
    newPassword(),
  ]);
  const memory = flowMemory<ResetMemory>('forgotPassword');
  return forgotPasswordMachine.provide({
    actors: {
      recall: fromPromise(memory.recall),
      requestCode: fromPromise(({ input }) => requestPasswordCode(input)),
      codeEntry: codeEntryChecking(({ ticket, code, captcha }) =>
        verifyPasswordCode({ payload: ticket, code, captcha }),
      ),
      newPassword: newPasswordMachine.provide({
        actors: { resetPassword: fromPromise(({ input }) => resetPassword(input)) },
      }),
    },
    actions: {
      show: (_, { screen }) => go(pathOf('forgotPassword', screen)),
      keep: (_, value) => memory.keep(value),
      typed: (_, { value }) => keepUsername(value),
    },
  });
};

export const onboarding = async (go: Go) => {
  const [{ onboardingMachine }, { newPasswordMachineOf }] = await Promise.all([
    import('../../machines/onboarding.ts'),
    newPassword(),
  ]);
  const memory = flowMemory<OnboardingMemory>('onboarding');
  return onboardingMachine.provide({
    actors: {
      // The token the tab kept, with what the server holds of its flow (an expired one fails the call).
      recall: fromPromise(async () => {
        const kept = await memory.recall();
        return kept && { ...kept, state: await onboardingState({ flow: kept.flow }) };
      }),
      // The language the person reads goes with the start: the flow's messages speak it.
      startWithCard: fromPromise(({ input }) => startWithCard({ ...input, language: i18next.language })),
      startWithInvitation: fromPromise(({ input }) => startWithInvitation({ ...input, language: i18next.language })),
      acceptTerms: fromPromise(({ input }) => acceptTerms(input)),
      saveProfile: fromPromise(({ input }) => saveProfile(input)),
      sendEmailCode: fromPromise(({ input }) => sendEmailCode(input)),
      sendPhoneCode: fromPromise(({ input }) => sendPhoneCode(input)),
      codeEntry: codeEntryChecking(({ ticket, code }) => verifyOnboardingCode({ flow: ticket, code })),
      newPassword: newPasswordMachineOf<OnboardingDone>().provide({
        actors: { resetPassword: fromPromise(({ input }) => createAccount(input)) },
      }),
    },
    actions: { show: (_, { step }) => go(pathOf('onboarding', step)), keep: (_, value) => memory.keep(value) },
  });
};

export const totpSetup = (go: Go) =>
  import('../../machines/totpSetup.ts').then(({ totpSetupMachine }) =>
    totpSetupMachine.provide({
      actors: {
        startTotp: fromPromise<TotpStart>(() => startTotp()),
        codeEntry: codeEntryChecking<{ recovery_keys?: string[] }>(({ ticket, code, captcha }) =>
          confirmTotp({ payload: ticket, code, captcha }),
        ),
      },
      actions: { show: (_, { screen }) => go(pathOf('authenticator', screen)) },
    }),
  );

export const totpRecovery = (_go: Go) =>
  import('../../machines/totpRecovery.ts').then(({ totpRecoveryMachine }) =>
    totpRecoveryMachine.provide({
      actors: {
        countKeys: fromPromise(
          async () => (await listMethods()).find((m) => m.method === 'totpRecovery')?.recovery_keys_left ?? 0,
        ),
        regenerate: fromPromise(() => regenerateRecoveryKeys()),
        resetAuthenticator: fromPromise(() => resetAuthenticator()),
      },
    }),
  );

export const forcedMfa = (go: Go) =>
  import('../../machines/forcedMfa.ts').then(({ forcedMfaMachine }) =>
    forcedMfaMachine.provide({
      actors: {
        methodKinds: fromPromise(async (): Promise<string[]> => (await listMethods()).map((m) => m.method)),
        remindLater: fromPromise(() => offerLater()),
        startActivation: fromPromise(({ input }) => startActivation(input)),
        codeEntry: codeEntryChecking<unknown>(({ ticket, code, captcha }) =>
          confirmActivation({ payload: ticket, code, captcha }),
        ),
      },
      actions: {
        show: (_, { screen }) => go(pathOf('setupMfa', screen)),
        // The code came back and the destination is another account's: the offer, as the profile's.
        offerMerge: (_, { payload }) => {
          keepOffer(payload);
          go(pathOf('fuzzion', 'offer'));
        },
      },
    }),
  );

export const consent = (_go: Go) =>
  import('../../machines/consent.ts').then(({ consentMachine }) =>
    consentMachine.provide({
      actors: {
        readRequest: fromPromise(({ input }) => readAuthorization(input)),
        sendApproval: fromPromise(({ input }) => sendApproval(input)),
      },
      // Back through the authorisation server: a page of the server, not of the app.
      actions: {
        leaveTo: (_, { url }) => {
          window.location.assign(url);
        },
      },
    }),
  );

/** Whether a partner page's way on is a screen of the app (the router) rather than a page of the
 * server or another site (a full load). */
const inApp = (url: string) => url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/oidc/');

/** The Microsoft sign-in's link ticket, kept in the tab across the sign-in that links it. */
const linkTicket = flowMemory<string>('ssoLinkTicket');

export const partner = (go: Go) =>
  import('../../machines/partner.ts').then(({ partnerMachine }) =>
    partnerMachine.provide({
      actors: {
        readPartner: fromPromise(({ input }) => readPartner(input)),
        requestAccess: fromPromise(({ input }) => requestPartnerAccess(input)),
        readTicket: fromPromise(({ input }) => readSsoTicket(input)),
        recallTicket: fromPromise(linkTicket.recall),
        linkAccount: fromPromise(({ input }) => linkAccount(input)),
      },
      actions: {
        leaveTo: (_, { url }) => {
          if (inApp(url)) go(url);
          else window.location.assign(url);
        },
        keepTicket: (_, { ticket }) => linkTicket.keep(ticket),
      },
    }),
  );

export const profile = (go: Go) =>
  import('../../machines/profile.ts').then(({ profileMachine }) =>
    profileMachine.provide({
      actors: {
        // The language chosen is the portal's at once, as the switch in the top bar would make it.
        saveInfo: fromPromise(async ({ input }) => {
          const user = await saveProfileInfo({
            ...input,
            birthdate: input.birthdate.trim() || null,
            gender: input.gender || null,
          });
          await switchLocale(user.language as Locale, true);
          return user;
        }),
        saveIban: fromPromise(({ input }) => saveIban(input)),
        startContact: fromPromise(({ input }) => startContact(input)),
        contactCode: codeEntryChecking(({ ticket, code, captcha }) =>
          confirmContact({ payload: ticket, code, captcha }),
        ),
        deleteContact: fromPromise(({ input }) => deleteContact(input)),
        makePrimary: fromPromise(({ input }) => makeContactPrimary(input)),
        exportData: fromPromise(() => exportAccountData()),
        uploadPicture: fromPromise(async ({ input }) => uploadPicture(await shrunk(input.file))),
        removePicture: fromPromise(() => removePicture()),
      },
      actions: {
        show: (_, { step }) => go(pathOf('profile', step)),
        offerMerge: (_, { payload }) => {
          keepOffer(payload);
          go(pathOf('fuzzion', 'offer'));
        },
        save: (_, { name, text }) => {
          const link = document.createElement('a');
          link.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
          link.download = name;
          link.click();
          setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
        },
      },
    }),
  );

/** The longest side of a profile picture as sent: enough for any screen that shows it. */
const PICTURE_SIDE = 512;

/** A picture redrawn at most PICTURE_SIDE pixels a side, as JPEG: smaller to send, and drawing it
 * again leaves behind what the file carried besides the picture (the server strips it too). */
async function shrunk(file: Blob): Promise<Blob> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw apiFailure(415, { code: 'invalid_picture' });
  }
  const scale = Math.min(1, PICTURE_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(apiFailure(415, { code: 'invalid_picture' }))),
      'image/jpeg',
      0.85,
    ),
  );
}
