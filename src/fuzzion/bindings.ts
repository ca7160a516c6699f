// How the merge of a duplicated account meets the real world: its machine (imported here, in its own
// chunk), its API calls, what this tab keeps of it (session storage, src/shell/mergeMemory.ts) and
// its two screens. Loaded when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import type { FuzzionAnswer } from '../../contract/merge.ts';
import { pathOf } from '../../machines/routes.ts';
import type { Go } from '../shell/bindings.ts';
import { codeEntryChecking } from '../shell/bindings.ts';
import { offerMemory, resultMemory, storedMerge } from '../shell/mergeMemory.ts';
import {
  finishFuzzion,
  proveFuzzionCode,
  proveFuzzionPassword,
  readFuzzionOffer,
  startFuzzionMethod,
} from '../api/flowCalls.ts';

export const fuzzion = (go: Go) =>
  import('../../machines/fuzzion.ts').then(({ fuzzionMachine, readFuzzionTicket }) =>
    fuzzionMachine.provide({
      actors: {
        recall: fromPromise(async () => storedMerge()),
        readOffer: fromPromise(({ input }) => readFuzzionOffer(input)),
        startMethod: fromPromise(({ input }) => startFuzzionMethod(input)),
        proveByPassword: fromPromise(({ input }) => proveFuzzionPassword(input)),
        finish: fromPromise(({ input }) => finishFuzzion(input)),
        // The code goes with the offer, the choice and the method's challenge (the entry's ticket).
        fuzzionCode: codeEntryChecking<FuzzionAnswer>(({ ticket, code, captcha }) =>
          proveFuzzionCode({ ...readFuzzionTicket(ticket), code, captcha }),
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
