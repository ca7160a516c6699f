// The passkey offered on the dashboard right after a password sign-in (the account has none, and
// did not say "not now" to one). Where the password manager can make one quietly (WebAuthn's
// conditional create), it is asked at once, with no dialog, and the person is told when one was
// made; elsewhere the offer shows, once: "Add a passkey" or "Not now", which the server remembers.
// Leaving the dashboard stops the machine, and with it the browser's request. Pure: the calls are
// actors, bound by the app (src/dashboard) and by the tests.
import { assign, fromPromise, setup } from 'xstate';
import { passkeyProblemOf, type Problem } from './failures.ts';

/** Whether to offer a passkey, and how this browser can make one. */
export type PasskeyOfferStatus = { offer: boolean; canCreate: boolean; quietCreate: boolean };

type Context = { passwordSignIn: boolean; error: Problem | null };

export const passkeyOfferMachine = setup({
  types: {
    context: {} as Context,
    events: {} as { type: 'ADD' } | { type: 'LATER' },
    input: {} as { passwordSignIn: boolean },
  },
  actors: {
    /** GET /mfa/status's passkey_offer, with what the browser can do. */
    offerStatus: fromPromise<PasskeyOfferStatus>(async () => {
      throw new Error('offerStatus is provided by the app');
    }),
    /** The password manager makes one with no dialog (WebAuthn's conditional create), and the server adds it. */
    quietCreate: fromPromise<unknown>(async () => {
      throw new Error('quietCreate is provided by the app');
    }),
    /** The browser's dialog makes one, and the server adds it. */
    create: fromPromise<unknown>(async () => {
      throw new Error('create is provided by the app');
    }),
    /** POST /passkey/offer/later. */
    decline: fromPromise<unknown>(async () => {
      throw new Error('decline is provided by the app');
    }),
  },
  guards: {
    noOffer: ({ context, event }) =>
      !context.passwordSignIn || !('output' in event) || !(event.output as PasskeyOfferStatus).offer,
    quietly: ({ event }) => 'output' in event && (event.output as PasskeyOfferStatus).quietCreate,
    canCreate: ({ event }) => 'output' in event && (event.output as PasskeyOfferStatus).canCreate,
    cancelled: ({ event }) => passkeyProblemOf(event).code === 'passkey_cancelled',
  },
}).createMachine({
  id: 'passkeyOffer',
  context: ({ input }) => ({ passwordSignIn: input.passwordSignIn, error: null }),
  initial: 'checking',
  states: {
    checking: {
      invoke: {
        id: 'offerStatus',
        src: 'offerStatus',
        onDone: [
          { guard: 'noOffer', target: 'hidden' },
          { guard: 'quietly', target: 'quiet' },
          { guard: 'canCreate', target: 'offered' },
          { target: 'hidden' },
        ],
        // The offer is a kindness: a status that cannot be read shows nothing.
        onError: 'hidden',
      },
    },
    // Nothing shows unless the password manager made one; a refusal is as quiet as the request.
    quiet: {
      invoke: { id: 'quietCreate', src: 'quietCreate', onDone: 'made', onError: 'hidden' },
    },
    offered: {
      on: { ADD: 'creating', LATER: 'declining' },
    },
    creating: {
      entry: assign({ error: null }),
      invoke: {
        id: 'create',
        src: 'create',
        onDone: 'made',
        onError: [
          { guard: 'cancelled', target: 'offered' },
          { target: 'offered', actions: assign({ error: ({ event }) => passkeyProblemOf(event) }) },
        ],
      },
    },
    // "Not now" hides the offer at once; the server remembers it for the next sign-ins.
    declining: {
      invoke: { id: 'decline', src: 'decline', onDone: 'hidden', onError: 'hidden' },
    },
    made: { type: 'final' },
    hidden: { type: 'final' },
  },
});
