// How the recovery flows (a weak password's renewal, the forgotten username and password) meet the
// real world: their machines (imported here, each in its own chunk), their API calls, their screen
// requests (`show`, to the route table's path of the step) and the memory a reload resumes from.
// Loaded with the first of them the root starts (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import { pathOf } from '../../machines/routes.ts';
import type { CodeRequest, ResetMemory } from '../../machines/forgotPassword.ts';
import { flowMemory } from '../shell/storage.ts';
import { codeEntryChecking, newPassword, type Go, type KeepUsername } from '../shell/bindings.ts';
import { findUsernames, requestPasswordCode, resetPassword, verifyPasswordCode } from '../api/flowCalls.ts';

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
  const [{ forgotPasswordMachine, newCodeOf }, { newPasswordMachine }] = await Promise.all([
    import('../../machines/forgotPassword.ts'),
    newPassword(),
  ]);
  const memory = flowMemory<ResetMemory>('forgotPassword');
  return forgotPasswordMachine.provide({
    actors: {
      recall: fromPromise(memory.recall),
      requestCode: fromPromise(({ input }) => requestPasswordCode(input)),
      codeEntry: codeEntryChecking(
        ({ ticket, code, captcha }) => verifyPasswordCode({ payload: ticket, code, captcha }),
        ({ request, captcha }: { request: CodeRequest; captcha: string | null }) =>
          requestPasswordCode({ ...request, captcha }).then(newCodeOf),
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
