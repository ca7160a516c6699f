// How the access grants' flow meets the real world: its machine (imported here, in its own chunk)
// and its API calls. Loaded when the root first starts it (see src/app/flows.ts).
import { fromPromise } from 'xstate';
import type { Go } from '../shell/bindings.ts';
import { listAccessGrants, revokeAccessGrant } from '../api/flowCalls.ts';

export const access = (_go: Go) =>
  import('../../machines/access.ts').then(({ accessMachine }) =>
    accessMachine.provide({
      actors: {
        listGrants: fromPromise(() => listAccessGrants()),
        revokeGrant: fromPromise(({ input }) => revokeAccessGrant(input)),
      },
    }),
  );
