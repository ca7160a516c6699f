// How the second factor's flows (the code, the recovery keys, the enrolment) meet the real world:
// their machines (imported here, each in its own chunk), their API calls and their screen requests
// (`show`, to the route table's path of the step). Loaded with the first of them the root starts
// (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import { pathOf } from '../../machines/routes.ts';
import type { ChallengeRequest, MfaMemory } from '../../machines/mfaCode.ts';
import type { ActivationRequest } from '../../machines/forcedMfa.ts';
import { apiFailure } from '../../contract/api.ts';
import { flowMemory } from '../shell/storage.ts';
import { codeEntryChecking, type Go } from '../shell/bindings.ts';
import { keepOffer } from '../shell/mergeMemory.ts';
import {
  confirmActivation,
  listMethods,
  offerLater,
  regenerateRecoveryKeys,
  resetAuthenticator,
  startActivation,
  startChallenge,
  stepUpWithPassword,
  verifyCode,
} from '../api/flowCalls.ts';

const mfaMemory = flowMemory<MfaMemory>('mfaCode');

export const mfaCode = (go: Go) =>
  import('../../machines/mfaCode.ts').then(({ mfaCodeMachine }) =>
    mfaCodeMachine.provide({
      actors: {
        recall: fromPromise(mfaMemory.recall),
        startChallenge: fromPromise(({ input }) => startChallenge(input)),
        codeEntry: codeEntryChecking(
          ({ ticket, code, remember, captcha }) => verifyCode({ payload: ticket, code, trust: remember, captcha }),
          ({ request }: { request: ChallengeRequest }) =>
            startChallenge(request).then((answer) => ({ ticket: answer.payload, sent: answer })),
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
        codeEntry: codeEntryChecking<unknown, ActivationRequest>(
          ({ ticket, code, captcha }) => confirmActivation({ payload: ticket, code, captcha }),
          async ({ request }) => {
            const answer = await startActivation(request);
            // Nothing to send any more: the destination was proven meanwhile (another tab). Choose it again.
            if (answer === null) throw apiFailure(409, { code: 'challenge_closed', message: '' });
            return { ticket: answer.payload, sent: answer.data };
          },
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
