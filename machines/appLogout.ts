// An application's sign-out (OpenID Connect RP-initiated logout) on our own screens. The
// authorisation server keeps the logout request and sends the browser to the confirmation,
// `/logout/confirm?ref=…`; the machine reads it (the application and the provider's form) and asks:
// "yes" posts the form with `logout=yes` (signed out of Tessera and its applications), "no" posts it
// without (signed out of that application only, still signed in to Tessera), both a full page
// load to the authorisation server. It answers, then shows our success, `/logout/done`
// (`?client_id=` when the person stayed signed in), unless the application gave its own address to
// come back to. A request that is gone (expired, answered, unknown) says so, and never asks.
import { assign, fromPromise, setup } from 'xstate';
import { isApiFailure } from '../contract/api.ts';
import type { LogoutRequestAnswer, PartnerClient } from '../contract/schemas.ts';
import { errorOf, problemCodeOf, type ProblemCode } from './failures.ts';
import type { StepOf } from './routes.ts';

export type AppLogoutStep = StepOf<'appLogout'>;
export type AppLogoutInput = { step: AppLogoutStep; search: string };

/** The provider's form, and the person's answer to it. */
export type LogoutAnswer = { action: string; xsrf: string; logout: boolean };

type Context = {
  step: AppLogoutStep;
  ref: string | null;
  client: PartnerClient | null;
  form: { action: string; xsrf: string } | null;
  /** The success: whether the person stayed signed in to Tessera (the provider names the application then). */
  stayed: boolean;
  error: ProblemCode | null;
};

/** A reference as the server gives it; anything else is gone at once. */
const REF = /^[\w-]{43}$/;

const isGone = (event: object) => {
  const error = errorOf(event);
  return isApiFailure(error) && (error.status === 404 || error.status === 400);
};

export const appLogoutMachine = setup({
  types: {
    context: {} as Context,
    input: {} as AppLogoutInput,
    events: {} as { type: 'SIGN_OUT' } | { type: 'STAY' } | { type: 'RETRY' },
  },
  actors: {
    readLogout: fromPromise<LogoutRequestAnswer, { ref: string }>(async () => {
      throw new Error('readLogout is provided by the app');
    }),
  },
  actions: {
    /** Posts the provider's form with the answer (a full page load to the authorisation server). */
    answer: (_, _params: LogoutAnswer) => {},
  },
  guards: {
    isDone: ({ context }) => context.step === 'done',
    hasRef: ({ context }) => context.ref !== null,
    gone: ({ event }) => isGone(event),
  },
}).createMachine({
  id: 'appLogout',
  context: ({ input }) => {
    const query = new URLSearchParams(input.search);
    const ref = query.get('ref');
    return {
      step: input.step,
      ref: ref && REF.test(ref) ? ref : null,
      client: null,
      form: null,
      stayed: query.has('client_id'),
      error: null,
    };
  },
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'isDone', target: 'done' }, { guard: 'hasRef', target: 'loading' }, { target: 'gone' }],
    },
    loading: {
      tags: ['busy'],
      invoke: {
        id: 'readLogout',
        src: 'readLogout',
        input: ({ context }) => ({ ref: context.ref! }),
        onDone: {
          target: 'asking',
          actions: assign({
            client: ({ event }) => event.output.client,
            form: ({ event }) => ({ action: event.output.action, xsrf: event.output.xsrf }),
            error: null,
          }),
        },
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
        SIGN_OUT: 'signingOut',
        STAY: 'staying',
      },
    },
    signingOut: {
      type: 'final',
      tags: ['busy'],
      entry: { type: 'answer', params: ({ context }) => ({ ...context.form!, logout: true }) },
    },
    staying: {
      type: 'final',
      tags: ['busy'],
      entry: { type: 'answer', params: ({ context }) => ({ ...context.form!, logout: false }) },
    },
    gone: { type: 'final' },
    done: { type: 'final' },
  },
});
