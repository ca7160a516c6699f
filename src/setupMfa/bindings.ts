// How setting up a second factor (/setup-mfa) meets the real world: its machine (imported here, in
// its own chunk), its API calls and its screen requests (`show`, to the route table's path of the
// step). Loaded when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import { apiFailure } from '../../contract/api.ts';
import { pathOf } from '../../machines/routes.ts';
import type { ActivationRequest } from '../../machines/setupMfa.ts';
import { codeEntryChecking, type Go } from '../shell/bindings.ts';
import { keepOffer } from '../shell/fuzzionMemory.ts';
import {
  confirmActivation,
  confirmPasskey,
  listMethods,
  offerLater,
  renamePasskey,
  startActivation,
  startPasskey,
} from '../api/flowCalls.ts';
import { createPasskey, noPasskeyHere, passkeySupport } from '../api/passkeys.ts';
import { variant } from '../variant.ts';

export const setupMfa = (go: Go) =>
  import('../../machines/setupMfa.ts').then(({ setupMfaMachine }) =>
    setupMfaMachine.provide({
      actors: {
        // What this browser can do with passkeys here is known before the choice shows (`noPasskeyHere`).
        methodKinds: fromPromise(async (): Promise<string[]> => {
          const [methods] = await Promise.all([listMethods(), passkeySupport(variant)]);
          return methods.map((m) => m.method);
        }),
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
        startPasskey: fromPromise(() => startPasskey()),
        createPasskey: fromPromise(({ input, signal }) => createPasskey(input, signal)),
        confirmPasskey: fromPromise(({ input }) => confirmPasskey(input)),
        renamePasskey: fromPromise(({ input }) => renamePasskey(input)),
      },
      guards: { noPasskeyHere },
      actions: {
        show: (_, { screen }) => go(pathOf('setupMfa', screen)),
        // The code came back and the destination is another account's: the offer, as the profile's.
        offerFuzzion: (_, { payload }) => {
          keepOffer(payload);
          go(pathOf('fuzzion', 'offer'));
        },
      },
    }),
  );
