// A partner application's consent (spec §2 `/approve`): the authorisation server sent the browser
// here with its request's uid. The machine reads the request (the application, the scopes it asks
// for and those it holds already); the person accepts or refuses; the answer goes to the server.
// An acceptance goes back through the authorisation server to the application, which gets its
// code. A refusal ends the request on the server at once; the screen then shows the spec's warning,
// with the way back to the application (its error redirect: `access_denied`) and the way home. A
// request that is gone (expired, answered elsewhere, someone else's) says so, and never asks.
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { AuthorizeAnswer, PartnerClient } from '../contract/schemas.ts';
import { errorOf, problemCodeOf, type ProblemCode } from './failures.ts';
import { isApiFailure } from '../contract/api.ts';

type Context = {
  uid: string | null;
  client: PartnerClient | null;
  /** What the application asks for now, and what it holds from before. */
  scopes: string[];
  granted: string[];
  /** Where the browser goes on: the authorisation server, which answers the application, or (after a
   * refusal) the application's own error redirect. */
  target: string | null;
  error: ProblemCode | null;
};

export type ConsentInput = { uid: string | null };

/** The request cannot be answered any more (expired, answered, not this person's), or never could. */
const isGone = (event: object) => {
  const error = errorOf(event);
  return isApiFailure(error) && (error.status === 410 || error.status === 400 || error.status === 404);
};

export const consentMachine = setup({
  types: {
    context: {} as Context,
    input: {} as ConsentInput,
    events: {} as
      | { type: 'ACCEPT' }
      | { type: 'REFUSE' }
      | { type: 'RETRY' }
      | { type: 'RETURN' }
      | DoneActorEvent<AuthorizeAnswer, 'readRequest'>,
  },
  actors: {
    readRequest: fromPromise<AuthorizeAnswer, { uid: string }>(async () => {
      throw new Error('readRequest is provided by the app');
    }),
    sendApproval: fromPromise<{ target: string }, { uid: string; approve: boolean }>(async () => {
      throw new Error('sendApproval is provided by the app');
    }),
  },
  actions: {
    /** Leaves the app for the authorisation server or the application (a full page load). */
    leaveTo: (_, _params: { url: string }) => {},
  },
  guards: {
    hasUid: ({ context }) => context.uid !== null,
    answered: ({ event }) => event.type === 'xstate.done.actor.readRequest' && typeof event.output.target === 'string',
    gone: ({ event }) => isGone(event),
  },
}).createMachine({
  id: 'consent',
  context: ({ input }) => ({ uid: input.uid, client: null, scopes: [], granted: [], target: null, error: null }),
  initial: 'starting',
  states: {
    starting: { always: [{ guard: 'hasUid', target: 'loading' }, { target: 'gone' }] },
    loading: {
      tags: ['busy'],
      invoke: {
        id: 'readRequest',
        src: 'readRequest',
        input: ({ context }) => ({ uid: context.uid! }),
        onDone: [
          // Nothing left to ask (answered in another tab, or the server has the next step): go on.
          {
            guard: 'answered',
            target: 'leaving',
            actions: assign({
              target: ({ event }) => event.output.target!,
              client: ({ event }) => event.output.client,
            }),
          },
          {
            target: 'asking',
            actions: assign({
              client: ({ event }) => event.output.client,
              scopes: ({ event }) => event.output.approvalType ?? [],
              granted: ({ event }) => event.output.granted,
              error: null,
            }),
          },
        ],
        onError: [
          { guard: 'gone', target: 'gone' },
          { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
        ],
      },
    },
    // The read failed (network, server): nothing was answered, so it can be tried again.
    failed: { on: { RETRY: { target: 'loading', actions: assign({ error: null }) } } },
    asking: {
      on: {
        ACCEPT: { target: 'accepting', actions: assign({ error: null }) },
        REFUSE: { target: 'refusing', actions: assign({ error: null }) },
      },
    },
    accepting: {
      tags: ['busy'],
      invoke: {
        id: 'sendApproval',
        src: 'sendApproval',
        input: ({ context }) => ({ uid: context.uid!, approve: true }),
        onDone: { target: 'leaving', actions: assign({ target: ({ event }) => event.output.target }) },
        onError: [
          { guard: 'gone', target: 'gone' },
          { target: 'asking', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
        ],
      },
    },
    refusing: {
      tags: ['busy'],
      invoke: {
        id: 'sendApproval',
        src: 'sendApproval',
        input: ({ context }) => ({ uid: context.uid!, approve: false }),
        onDone: { target: 'refused', actions: assign({ target: ({ event }) => event.output.target }) },
        onError: [
          { guard: 'gone', target: 'gone' },
          { target: 'asking', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
        ],
      },
    },
    // The spec's warning, the request ended already; the way back follows its error redirect.
    refused: { on: { RETURN: 'leaving' } },
    gone: { type: 'final' },
    leaving: {
      type: 'final',
      tags: ['busy'],
      entry: { type: 'leaveTo', params: ({ context }) => ({ url: context.target! }) },
    },
  },
});
