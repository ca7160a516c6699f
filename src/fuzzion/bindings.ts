// How the merge of a duplicated account meets the real world: its machine (imported here, in its own
// chunk), its API calls, what this tab keeps of it (session storage, src/shell/fuzzionMemory.ts) and
// its two screens. Loaded when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import type { FuzzionAnswer } from '../../contract/fuzzion.ts';
import type { FuzzionResend } from '../../machines/fuzzion.ts';
import { pathOf } from '../../machines/routes.ts';
import type { Go } from '../shell/bindings.ts';
import { codeEntryChecking } from '../shell/bindings.ts';
import { offerMemory, resultMemory, storedFuzzion } from '../shell/fuzzionMemory.ts';
import {
  finishFuzzion,
  proveFuzzionCode,
  proveFuzzionPassword,
  readFuzzionOffer,
  startFuzzionMethod,
} from '../api/flowCalls.ts';

export const fuzzion = (go: Go) =>
  import('../../machines/fuzzion.ts').then(({ fuzzionMachine, fuzzionTicket, readFuzzionTicket }) =>
    fuzzionMachine.provide({
      actors: {
        recall: fromPromise(async () => storedFuzzion()),
        readOffer: fromPromise(({ input }) => readFuzzionOffer(input)),
        startMethod: fromPromise(({ input }) => startFuzzionMethod(input)),
        proveByPassword: fromPromise(({ input }) => proveFuzzionPassword(input)),
        finish: fromPromise(({ input }) => finishFuzzion(input)),
        // The code goes with the offer, the choice and the method's challenge (the entry's ticket).
        // A new code's ticket carries the method's new challenge.
        fuzzionCode: codeEntryChecking<FuzzionAnswer, FuzzionResend>(
          ({ ticket, code, captcha }) => proveFuzzionCode({ ...readFuzzionTicket(ticket), code, captcha }),
          async ({ request: { method, intent } }) => {
            const answer = await startFuzzionMethod(method);
            return {
              ticket: fuzzionTicket({ payload: method.payload, intent, challenge: answer.challenge }),
              sent: answer,
            };
          },
        ),
      },
      actions: {
        // The outcome is kept for Back and reload; the offer is spent.
        finished: (_, { result }) => {
          resultMemory.keep(result);
          offerMemory.keep(null);
        },
        show: (_, { screen }) => go(pathOf('fuzzion', screen)),
      },
    }),
  );
