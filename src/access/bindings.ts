// How the access grants' flow meets the real world: its machine (imported here, in its own chunk)
// and its API calls. Loaded when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import type { Go } from '../shell/bindings.ts';
import { listAccessGrants, revokeAccessGrant } from '../api/flowCalls.ts';

export const accessGrants = (_go: Go) =>
  import('../../machines/accessGrants.ts').then(({ accessGrantsMachine }) =>
    accessGrantsMachine.provide({
      actors: {
        listGrants: fromPromise(() => listAccessGrants()),
        revokeGrant: fromPromise(({ input }) => revokeAccessGrant(input)),
      },
    }),
  );
