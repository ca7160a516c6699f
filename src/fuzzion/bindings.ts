// How the merge of a duplicated account meets the real world: its machine (imported here, in its own
// chunk), its API calls, what this tab keeps of it (session storage, src/shell/fuzzionMemory.ts) and
// its two screens. Loaded when the root first starts it (see src/app/flows.ts). What this browser can
// do with passkeys on this host is known before the choice shows (`noPasskeyHere`), as for a sign-in's
// second factor (src/mfa/bindings.ts).
import { fromPromise } from 'xstate';
import type { FuzzionAnswer } from '../../contract/fuzzion.ts';
import type { FuzzionResend } from '../../machines/fuzzion.ts';
import { pathOf } from '../../machines/routes.ts';
import type { Go } from '../shell/bindings.ts';
import { codeEntryChecking } from '../shell/bindings.ts';
import { intentMemory, offerMemory, resultMemory, storedFuzzion } from '../shell/fuzzionMemory.ts';
import {
  cancelFuzzion,
  finishFuzzion,
  proveFuzzionCode,
  proveFuzzionPassword,
  readFuzzionOffer,
  startFuzzionMethod,
} from '../api/flowCalls.ts';
import { askPasskey, noPasskeyHere, passkeySupport } from '../api/passkeys.ts';
import { variant } from '../variant.ts';

export const fuzzion = (go: Go) =>
  Promise.all([import('../../machines/fuzzion.ts'), passkeySupport(variant)]).then(
    ([{ fuzzionMachine, fuzzionTicket, readFuzzionTicket }]) =>
      fuzzionMachine.provide({
        actors: {
          recall: fromPromise(async () => storedFuzzion()),
          readOffer: fromPromise(({ input }) => readFuzzionOffer(input)),
          startMethod: fromPromise(({ input }) => startFuzzionMethod(input)),
          proveByPassword: fromPromise(({ input }) => proveFuzzionPassword(input)),
          finish: fromPromise(({ input }) => finishFuzzion(input)),
          cancel: fromPromise(() => cancelFuzzion()),
          askPasskey: fromPromise(({ input, signal }) => askPasskey(input, signal)),
          // The passkey's signed answer takes the place of a typed one.
          checkPasskey: fromPromise(({ input }) => proveFuzzionCode(input)),
          // The code goes with the offer, the choice and the method's challenge (the entry's ticket).
          // A new code's ticket carries the method's new challenge.
          fuzzionCode: codeEntryChecking<FuzzionAnswer, FuzzionResend>(
            ({ ticket, code, captcha }) => proveFuzzionCode({ ...readFuzzionTicket(ticket), code, captcha }),
            async ({ request: { method, intent } }) => {
              const answer = await startFuzzionMethod(method);
              return {
                ticket: fuzzionTicket({ payload: method.payload, intent, challenge: answer.payload }),
                sent: answer,
              };
            },
            (ticket) => readFuzzionTicket(ticket).challenge,
          ),
        },
        guards: { noPasskeyHere },
        actions: {
          // The outcome is kept for Back and reload; the offer is spent.
          finished: (_, { result }) => {
            resultMemory.keep(result);
            offerMemory.keep(null);
            intentMemory.keep(null);
          },
          chose: (_, { intent }) => intentMemory.keep(intent),
          // The further proofs' screen carries the methods that still count, as the spec's query does.
          show: (_, { screen, methods }) =>
            go(
              methods
                ? `${pathOf('fuzzion', screen)}&methods=${encodeURIComponent(JSON.stringify(methods))}`
                : pathOf('fuzzion', screen),
            ),
          // Given up: the offer is forgotten, and another address is added where the last one was.
          leave: () => {
            offerMemory.keep(null);
            intentMemory.keep(null);
            go(pathOf('profile', 'credentials'));
          },
        },
      }),
  );
