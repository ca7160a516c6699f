// How onboarding meets the real world: its machine (imported here, in its own chunk), its API
// calls, its screen requests (`show`, to the route table's path of the step), the memory a reload
// resumes from and the language it speaks. Loaded when the root first starts it (see
// src/app/flows.ts).
import i18next from 'i18next';
import { fromPromise } from 'xstate';
import { pathOf } from '../../machines/routes.ts';
import type { CodeRequest, OnboardingMemory } from '../../machines/onboarding.ts';
import type { Locale } from '../../contract/constants.ts';
import type { OnboardingDone } from '../../contract/schemas.ts';
import { flowMemory } from '../shell/storage.ts';
import { codeEntryChecking, newPassword, type Go } from '../shell/bindings.ts';
import {
  acceptTerms,
  createAccount,
  onboardingState,
  saveProfile,
  sendEmailCode,
  sendPhoneCode,
  startWithCard,
  startWithInvitation,
  verifyOnboardingCode,
} from '../api/flowCalls.ts';

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
      codeEntry: codeEntryChecking(
        ({ ticket, code }) => verifyOnboardingCode({ flow: ticket, code }),
        async ({ request }: { request: CodeRequest }) => ({
          ticket: request.flow,
          sent: await (request.kind === 'email'
            ? sendEmailCode({ flow: request.flow, email: request.email })
            : sendPhoneCode({ flow: request.flow, phone: request.phone, channel: request.channel })),
        }),
      ),
      newPassword: newPasswordMachineOf<OnboardingDone>().provide({
        // The account speaks the language the person reads as they create it (the server checks
        // that the variant offers it).
        actors: {
          resetPassword: fromPromise(({ input }) => createAccount({ ...input, language: i18next.language as Locale })),
        },
      }),
    },
    actions: { show: (_, { step }) => go(pathOf('onboarding', step)), keep: (_, value) => memory.keep(value) },
  });
};
