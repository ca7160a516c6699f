// The applications that hold access to the account (/user/access, spec §2 and §4 "Access grants
// are revoked from the access list"): the list, and revoking one after a yes. A revocation removes
// the application from the list at once and reloads it, with the success notice; a refusal keeps the
// list and says so. A list that could not load offers to try again.
import { assign, fromPromise, setup } from 'xstate';
import type { AccessGrant } from '../contract/schemas.ts';
import { isApiFailure } from '../contract/api.ts';
import { errorOf, problemCodeOf, type ProblemCode } from './failures.ts';

export type AccessNotice = 'revoked' | null;

type Context = {
  grants: AccessGrant[];
  /** The stable code of the last failure (the screen words it). */
  error: ProblemCode | null;
  notice: AccessNotice;
  /** The application whose revocation waits for the person's yes, then runs. */
  pending: string | null;
};

export const accessMachine = setup({
  types: {
    context: {} as Context,
    events: {} as
      | { type: 'REVOKE'; clientId: string }
      | { type: 'CONFIRM' }
      | { type: 'CANCEL' }
      | { type: 'DISMISS' }
      | { type: 'RETRY' },
  },
  actors: {
    listGrants: fromPromise<AccessGrant[]>(async () => {
      throw new Error('listGrants is provided by the app');
    }),
    revokeGrant: fromPromise<void, { clientId: string }>(async () => {
      throw new Error('revokeGrant is provided by the app');
    }),
  },
  guards: {
    knownGrant: ({ context, event }) =>
      event.type === 'REVOKE' && context.grants.some((g) => g.client_id === event.clientId),
    /** The access was already gone (revoked from another tab or device): what the person wanted. */
    alreadyGone: ({ event }) => {
      const error = errorOf(event);
      return isApiFailure(error) && error.status === 404;
    },
  },
  actions: {
    removePending: assign({
      grants: ({ context }) => context.grants.filter((g) => g.client_id !== context.pending),
      notice: 'revoked' as const,
      pending: null,
    }),
  },
}).createMachine({
  id: 'access',
  context: { grants: [], error: null, notice: null, pending: null },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'listGrants',
        src: 'listGrants',
        onDone: { target: 'ready', actions: assign({ grants: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    /** The list could not be read: nothing to show but the failure and a way to try again. */
    failed: {
      on: { RETRY: { target: 'loading', actions: assign({ error: null, notice: null }) } },
    },
    ready: {
      on: {
        REVOKE: {
          guard: 'knownGrant',
          target: 'confirming',
          actions: assign({ error: null, notice: null, pending: ({ event }) => event.clientId }),
        },
        DISMISS: { actions: assign({ error: null, notice: null }) },
      },
    },
    confirming: {
      on: {
        CONFIRM: { target: 'revoking' },
        CANCEL: { target: 'ready', actions: assign({ pending: null }) },
      },
    },
    revoking: {
      invoke: {
        id: 'revokeGrant',
        src: 'revokeGrant',
        input: ({ context }) => ({ clientId: context.pending! }),
        onDone: { target: 'loading', actions: 'removePending' },
        onError: [
          { guard: 'alreadyGone', target: 'loading', actions: 'removePending' },
          { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event), pending: null }) },
        ],
      },
    },
  },
});
