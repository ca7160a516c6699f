// How the second factor's flows (the code, the recovery keys) meet the real world:
// their machines (imported here, each in its own chunk), their API calls and their screen requests
// (`show`, to the route table's path of the step). Loaded with the first of them the root starts
// (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import { pathOf } from '../../machines/routes.ts';
import type { ChallengeRequest, MfaMemory } from '../../machines/mfa.ts';
import { flowMemory } from '../shell/storage.ts';
import { codeEntryChecking, type Go } from '../shell/bindings.ts';
import {
  listMethods,
  regenerateRecoveryKeys,
  resetAuthenticator,
  startChallenge,
  stepUpWithPassword,
  verifyCode,
  verifyPasskey,
} from '../api/flowCalls.ts';
import { askPasskey, noPasskeyHere, passkeySupport } from '../api/passkeys.ts';
import { variant } from '../variant.ts';

const mfaMemory = flowMemory<MfaMemory>('mfa');

// What this browser can do with passkeys on this host is known before the choice shows
// (`noPasskeyHere`): on the Luxembourg host without related origins, none is offered.
export const mfa = (go: Go) =>
  Promise.all([import('../../machines/mfa.ts'), passkeySupport(variant)]).then(([{ mfaMachine }]) =>
    mfaMachine.provide({
      actors: {
        recall: fromPromise(mfaMemory.recall),
        startChallenge: fromPromise(({ input }) => startChallenge(input)),
        codeEntry: codeEntryChecking(
          ({ ticket, code, remember, captcha }) => verifyCode({ payload: ticket, code, trust: remember, captcha }),
          ({ request }: { request: ChallengeRequest }) =>
            startChallenge(request).then((answer) => ({ ticket: answer.payload, sent: answer })),
        ),
        askPasskey: fromPromise(({ input, signal }) => askPasskey(input, signal)),
        checkPasskey: fromPromise(({ input }) =>
          verifyPasskey({ payload: input.payload, credential: input.credential, trust: input.remember }),
        ),
        confirmPassword: fromPromise(({ input }) => stepUpWithPassword(input)),
      },
      guards: { noPasskeyHere },
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
      // The set-up that follows replaces the method anyway: the failure is only noted (spec §8).
      actions: { note: (_, { failure }) => console.warn(`The authenticator could not be deleted (${failure}).`) },
    }),
  );
