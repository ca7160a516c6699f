// The Microsoft accounts linked to the account, on the security overview (docs/architecture.md
// "Microsoft sign-in", Security): the list (`GET /api/user/sso`), and unlinking one after a yes
// (`DELETE /api/user/sso/{id}`, sensitive: without a recent second factor the server answers
// `step_up_required`, and the screen offers the step-up). Without Microsoft sign-in on this server
// (404 `sso_unavailable`) there is nothing to show.
import { assign, fromPromise, setup } from 'xstate';
import { isApiFailure } from '../contract/api.ts';
import type { SsoIdentity, SsoIdentityList } from '../contract/sso.ts';
import { errorOf, problemCodeOf, type ProblemCode } from './failures.ts';

type Context = {
  identities: SsoIdentity[];
  ssoOnly: boolean;
  /** The identity waiting for the person's yes, then being unlinked. */
  pending: string | null;
  error: ProblemCode | null;
  notice: 'unlinked' | null;
};

export const ssoLinksMachine = setup({
  types: {
    context: {} as Context,
    events: {} as
      | { type: 'UNLINK'; id: string }
      | { type: 'CONFIRM' }
      | { type: 'CANCEL' }
      | { type: 'RETRY' }
      | { type: 'DISMISS' },
  },
  actors: {
    listIdentities: fromPromise<SsoIdentityList>(async () => {
      throw new Error('listIdentities is provided by the app');
    }),
    unlink: fromPromise<void, { id: string }>(async () => {
      throw new Error('unlink is provided by the app');
    }),
  },
  guards: {
    off: ({ event }) => {
      const error = errorOf(event);
      return isApiFailure(error) && error.status === 404 && error.code === 'sso_unavailable';
    },
    listed: ({ context, event }) =>
      event.type === 'UNLINK' && context.identities.some((identity) => identity.id === event.id),
    /** Already gone (unlinked from another tab): what the person wanted. */
    gone: ({ event }) => {
      const error = errorOf(event);
      return isApiFailure(error) && error.status === 404;
    },
  },
}).createMachine({
  id: 'ssoLinks',
  context: { identities: [], ssoOnly: false, pending: null, error: null, notice: null },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'listIdentities',
        src: 'listIdentities',
        onDone: {
          target: 'ready',
          actions: assign({
            identities: ({ event }) => event.output.data,
            ssoOnly: ({ event }) => event.output.sso_only,
          }),
        },
        onError: [
          { guard: 'off', target: 'off' },
          { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
        ],
      },
    },
    /** Microsoft sign-in is not offered here: the section does not show. */
    off: { type: 'final' },
    failed: { on: { RETRY: { target: 'loading', actions: assign({ error: null }) } } },
    ready: {
      on: {
        UNLINK: {
          guard: 'listed',
          target: 'confirming',
          actions: assign({ pending: ({ event }) => event.id, error: null, notice: null }),
        },
        DISMISS: { actions: assign({ error: null, notice: null }) },
      },
    },
    confirming: {
      on: {
        CONFIRM: 'unlinking',
        CANCEL: { target: 'ready', actions: assign({ pending: null }) },
      },
    },
    unlinking: {
      invoke: {
        id: 'unlink',
        src: 'unlink',
        input: ({ context }) => ({ id: context.pending! }),
        onDone: { target: 'loading', actions: assign({ pending: null, notice: 'unlinked' }) },
        onError: [
          { guard: 'gone', target: 'loading', actions: assign({ pending: null, notice: 'unlinked' }) },
          // step_up_required, sso_last_identity, or a failure: the list stays, the screen says why.
          { target: 'ready', actions: assign({ pending: null, error: ({ event }) => problemCodeOf(event) }) },
        ],
      },
    },
  },
});
