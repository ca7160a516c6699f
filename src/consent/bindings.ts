// How a partner application's consent meets the real world: its machine (imported here, in its own
// chunk), its API calls and the way back to the authorisation server. Loaded when the root first
// starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import type { Go } from '../shell/bindings.ts';
import { readAuthorization, sendApproval } from '../api/flowCalls.ts';

export const consent = (_go: Go) =>
  import('../../machines/consent.ts').then(({ consentMachine }) =>
    consentMachine.provide({
      actors: {
        readRequest: fromPromise(({ input }) => readAuthorization(input)),
        sendApproval: fromPromise(({ input }) => sendApproval(input)),
      },
      // Back through the authorisation server, or to the application itself: not a page of the app.
      actions: {
        leaveTo: (_, { url }) => {
          window.location.assign(url);
        },
      },
    }),
  );
