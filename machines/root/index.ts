// The root machine: owns the session (anonymous / signed in), the route guard of spec §4, and
// starts the flows the route table assigns to each path. The URL reflects it: the app sends ROUTE
// on every location change and the machine answers with `navigate` (the only way the app changes
// screens). Its parts: setup.ts (children, guards), actions.ts (what the states share), anonymous.ts
// and signingIn.ts (signing in, the anonymous flows), signedIn.ts, security.ts and stepUp.ts (the
// signed-in flows); its context and events are ../session.ts.
import { assign } from 'xstate';
import { HOME_PATH, MAINTENANCE_PATH, authorisationReturnAt, pathOf } from '../routes.ts';
import { anonymous } from './anonymous.ts';
import { signedIn } from './signedIn.ts';
import { keepUser, setLocation } from './actions.ts';
import { locationOf } from '../session.ts';
import { rootSetup } from './setup.ts';

export type { Context as RootContext, Notice, RootEvent, RootInput } from '../session.ts';
export { ANONYMOUS_FLOWS } from './anonymous.ts';

export const rootMachine = rootSetup.createMachine({
  id: 'root',
  context: ({ input }) => ({
    config: null,
    user: input.storedAccount,
    // Sent to sign in by the authorisation server: back there afterwards, whatever was kept before.
    target: authorisationReturnAt(input.location) ?? input.storedTarget,
    location: input.location,
    notice: null,
    mfa: input.storedSignIn ?? null,
    recoveryKeysLeft: null,
    regeneratedKeys: null,
    methodAdded: false,
    setupMfaSkipped: false,
    passwordSignIn: false,
    weakPayload: input.storedRenewal ?? null,
    afterCode: null,
    // The application's hint, when it gave one; then what the person typed (USERNAME).
    username: input.loginHint ?? '',
    loginTicket: input.loginTicket ?? null,
    partnerLogin: input.signingInTo ? !input.signingInTo.first_party : false,
  }),
  initial: 'booting',
  on: {
    DISMISS_NOTICE: { actions: assign({ notice: null }) },
    USERNAME: { actions: assign({ username: ({ event }) => event.value.trim() }) },
  },
  states: {
    booting: {
      // The tab keeps the target, so a reload on the way (a second factor's screen) still returns there.
      entry: { type: 'persistTarget', params: ({ context }) => ({ target: context.target }) },
      on: { ROUTE: { actions: setLocation } },
      invoke: {
        id: 'loadConfig',
        src: 'loadConfig',
        onDone: [
          {
            guard: 'hasLoginTicket',
            target: 'exchangingTicket',
            actions: assign({ config: ({ event }) => event.output }),
          },
          { target: 'restoring', actions: assign({ config: ({ event }) => event.output }) },
        ],
        onError: [
          { guard: 'isMaintenance', target: 'maintenance' },
          // Without the config the app still works with the host's defaults.
          { guard: 'hasLoginTicket', target: 'exchangingTicket' },
          { target: 'restoring' },
        ],
      },
    },
    // Sign-in by URL hash (spec §4): the ticket is spent first, then the session it opened is read
    // as any other; a refused ticket leaves whatever session there was, and says so at sign-in.
    exchangingTicket: {
      on: { ROUTE: { actions: setLocation } },
      invoke: {
        id: 'exchangeTicket',
        src: 'exchangeTicket',
        input: ({ context }) => context.loginTicket!,
        onDone: { target: 'restoring', actions: assign({ loginTicket: null }) },
        onError: [
          { guard: 'isMaintenance', target: 'maintenance' },
          { target: 'restoring', actions: assign({ loginTicket: null, notice: 'ticket_invalid' }) },
        ],
      },
    },
    restoring: {
      on: { ROUTE: { actions: setLocation } },
      invoke: {
        id: 'restoreUser',
        src: 'fetchUser',
        onDone: [
          {
            guard: 'needsSetupMfa',
            target: 'signedIn.enrolling',
            actions: [keepUser, assign({ location: locationOf(pathOf('setupMfa', 'intro')) })],
          },
          {
            target: 'signedIn',
            actions: [keepUser],
          },
        ],
        onError: [
          { guard: 'isMaintenance', target: 'maintenance' },
          // A stored account whose session the server no longer knows: it ended (expiry, revocation).
          {
            guard: 'isUnauthorised',
            target: 'anonymous',
            actions: [
              assign({
                user: null,
                notice: ({ context }) => context.notice ?? (context.user ? 'session_ended' : null),
              }),
              { type: 'persistAccount', params: { user: null } },
            ],
          },
          // Offline or failing: keep the local copy if there is one.
          { guard: 'hasStoredUser', target: 'signedIn' },
          { target: 'anonymous' },
        ],
      },
    },
    anonymous,
    signedIn,
    // The page checks by itself every minute (and when asked); once the API answers, the app starts
    // again from home, where the guard sends each person on.
    maintenance: {
      entry: { type: 'navigate', params: { to: MAINTENANCE_PATH } },
      on: {
        ROUTE: {
          guard: ({ event }) => event.location.path !== MAINTENANCE_PATH,
          actions: { type: 'navigate', params: { to: MAINTENANCE_PATH } },
        },
      },
      initial: 'waiting',
      states: {
        waiting: {
          after: { MAINTENANCE_RETRY: 'checking' },
          on: { RETRY: 'checking' },
        },
        checking: {
          invoke: {
            id: 'checkAgain',
            src: 'loadConfig',
            onDone: {
              target: '#root.booting',
              // A fresh start: what was under way before the outage is asked of the server again.
              actions: [
                assign({
                  location: locationOf(HOME_PATH),
                  notice: null,
                  mfa: null,
                  weakPayload: null,
                  target: null,
                  afterCode: null,
                  recoveryKeysLeft: null,
                }),
                { type: 'navigate', params: { to: HOME_PATH } },
              ],
            },
            onError: 'waiting',
          },
        },
      },
    },
  },
});
