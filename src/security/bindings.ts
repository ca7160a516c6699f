// How the security settings' flows (the methods, the password, the history, the devices, the
// authenticator) meet the real world: their machines (imported here, each in its own chunk), their
// API calls, their screen requests (`show`, to the route table's path of the step) and the memory a
// reload resumes from. Loaded with the first of them the root starts (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import { pathOf } from '../../machines/routes.ts';
import type { TotpStart } from '../../machines/authenticator.ts';
import type { HistoryFilters } from '../../machines/history.ts';
import { flowMemory } from '../shell/storage.ts';
import { variant } from '../variant.ts';
import { codeEntryChecking, type Go } from '../shell/bindings.ts';
import {
  changePassword,
  confirmTotp,
  deleteMethod,
  listDevices,
  listMethods,
  loadHistory,
  loadHistoryPage,
  regenerateRecoveryKeys,
  renamePasskey,
  runDeviceAction,
  startTotp,
  switchPrimary,
} from '../api/flowCalls.ts';

/** Passkeys, with their library: loaded once a method is deleted. */
const passkeys = () => import('../api/passkeys.ts');

export const security = (_go: Go) =>
  import('../../machines/security.ts').then(({ securityMachine }) =>
    securityMachine.provide({
      actors: {
        listMethods: fromPromise(() => listMethods()),
        switchPrimary: fromPromise(({ input }) => switchPrimary(input)),
        deleteMethod: fromPromise(async ({ input }) => {
          const answer = await deleteMethod(input);
          // A passkey deleted here is still in the password manager: it is told which remain.
          void passkeys().then((p) => p.tellPasswordManager('deleted', variant));
          return answer;
        }),
        regenerate: fromPromise(() => regenerateRecoveryKeys()),
        renamePasskey: fromPromise(({ input }) => renamePasskey(input)),
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

export const authenticator = (go: Go) =>
  import('../../machines/authenticator.ts').then(({ authenticatorMachine }) =>
    authenticatorMachine.provide({
      actors: {
        startTotp: fromPromise<TotpStart, { reset: boolean }>(({ input }) => startTotp(input)),
        codeEntry: codeEntryChecking<{ recovery_keys?: string[] }>(({ ticket, code, captcha }) =>
          confirmTotp({ payload: ticket, code, captcha }),
        ),
      },
      actions: {
        show: (_, { screen, regenerated }) =>
          go(pathOf('authenticator', screen) + (regenerated ? '?isRegenerated=true' : '')),
      },
    }),
  );
