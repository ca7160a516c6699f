// Signed in: the guard judges every location, and each flow's screens start it (the security area's
// in ./security.ts); a sensitive screen waits for a recent second factor (./stepUp.ts); forced
// enrolment and the recovery-key screen run their flows.
import { assign } from 'xstate';
import { HOME_PATH, pathOf, safeTarget, stepOf } from '../routes.ts';
import { afterRecovery } from '../afterCode.ts';
import { appLogoutInput, fuzzionInput, knownPhoneOf, mustEnrol, partnerInput, profileInput } from '../session.ts';
import {
  dropsStepUp,
  forgetSession,
  forwards,
  goTo,
  keepUser,
  guardSignedIn,
  keeps,
  mergeUntil,
  restarts,
  setLocation,
  signOut,
  signedOut,
  tellStep,
  whileSignedIn,
} from './actions.ts';
import { security } from './security.ts';
import { rootSetup } from './setup.ts';
import { afterStepUp, behindStepUp, codeScreens } from './stepUp.ts';

/** The flows a screen of theirs starts (reached by a link, a reload or a deep link), and the state
 * running each. */
const SIGNED_IN_FLOWS = {
  consent: 'consenting',
  access: 'access',
  notifications: 'notifications',
  partner: 'partnering',
  appLogout: 'signingOutOfApp',
  profile: 'profile',
  fuzzion: 'merging',
} as const;

export const signedIn = rootSetup.createStateConfig({
  entry: guardSignedIn,
  on: {
    // The session ended elsewhere (expiry, revocation, another tab's sign-out): on any screen, back
    // to sign-in with a notice; the anonymous guard sends there and remembers the screen. Running
    // flows stop with the state, their failed call unseen; a step-up's wait goes with the session
    // (anonymous, a kept second factor would resume as a sign-in).
    SESSION_ENDED: {
      target: '#root.anonymous',
      actions: [assign({ user: null, mfa: null, notice: 'session_ended' }), ...forgetSession],
    },
    USER_UPDATED: { actions: keepUser },
  },
  initial: 'idle',
  states: {
    // Judges the location (after every ROUTE too): a screen of a flow starts it. A security screen
    // opens like one reached by a link; the set-up starts for an account without a second factor and
    // goes home for the others; the recovery-key screen, which only a sign-in with a recovery key
    // opens, resumes by the method it carries (a reload) and signs out without one (spec §4).
    idle: {
      always: [
        // In the middle of a merge (spec §6 "duplicated-logged"): its offer, whatever the path.
        { guard: 'mergeElsewhere', target: 'merging', actions: goTo(pathOf('fuzzion', 'offer')) },
        // Back from a screen the set-up did not divert (the merge's): the set-up again.
        { guard: 'setUpFirst', target: 'enrolling', actions: goTo(pathOf('setupMfa', 'intro')) },
        { guard: 'atSecurity', target: 'security' },
        // The code screen an application's request sent the person to (a fresh or stronger proof).
        { guard: 'atAuthorisationStepUp', target: 'reauthenticating' },
        ...Object.entries(SIGNED_IN_FLOWS).map(([flow, target]) => ({
          guard: { type: 'atFlow' as const, params: { flow: flow as keyof typeof SIGNED_IN_FLOWS } },
          target,
        })),
        { guard: 'atSetupWithoutMethod', target: 'enrolling' },
        // From Security, a method of one's choosing is added on the set-up's own steps.
        { guard: 'atSetupAdding', target: 'enrolling' },
        { guard: { type: 'atFlow', params: { flow: 'setupMfa' } }, actions: goTo(HOME_PATH) },
        { guard: 'atTotpRecoveryWithMethod', target: 'recovering' },
        { guard: { type: 'atFlow', params: { flow: 'totpRecovery' } }, target: 'loggingOut' },
      ],
      on: { ROUTE: [signOut, { actions: [setLocation, guardSignedIn] }] },
    },
    // An application's request wants a fresh or a stronger proof than this session holds (the
    // authorisation server sent the browser to the code screen): the person proves it is them, then
    // the request goes on, back at the authorisation server.
    reauthenticating: {
      // Its code screen's way back is home: the request is left unanswered.
      tags: ['stepUpFor.application'],
      // The code screens move among themselves (their flow runs once the methods are known).
      on: { ROUTE: [{ guard: { type: 'routeInFlow', params: { flow: 'mfa' } } }, signOut, dropsStepUp] },
      initial: 'checking',
      states: {
        checking: {
          invoke: {
            id: 'mfaStatus',
            src: 'mfaStatus',
            onDone: {
              target: 'asking',
              actions: assign({ mfa: ({ event }) => ({ payload: '', methods: event.output.methods }) }),
            },
            // The methods cannot be read: home, where the person can start again from the application.
            onError: {
              target: '#root.signedIn.idle',
              actions: goTo(HOME_PATH),
            },
          },
        },
        asking: {
          on: { ROUTE: codeScreens },
          invoke: {
            id: 'stepUp',
            src: 'mfa',
            input: ({ context }) => ({ methods: context.mfa?.methods ?? [], loginPayload: null }),
            onDone: {
              target: 'proven',
              actions: [
                { type: 'decideAfterCode', params: { purpose: 'authorisation' } },
                assign({ mfa: null, recoveryKeysLeft: ({ event }) => event.output.recoveryKeysLeft }),
              ],
            },
          },
        },
        // The spec's order after a code: a recovery key shows the recovery screen first.
        proven: afterStepUp('#root.signedIn.idle'),
      },
    },
    // A partner application's consent: the flow answers the authorisation server and leaves the app
    // for it; leaving the screen otherwise leaves the request unanswered (it expires by itself).
    consenting: {
      on: { ROUTE: whileSignedIn(restarts('consent', 'consenting')) },
      invoke: {
        id: 'consent',
        src: 'consent',
        input: ({ context }) => ({ uid: new URLSearchParams(context.location.search).get('uid') }),
      },
    },
    // An application's sign-out (machines/appLogout.ts): its answer leaves the app for the
    // authorisation server, which ends on its success screen.
    signingOutOfApp: {
      on: { ROUTE: whileSignedIn(restarts('appLogout', 'signingOutOfApp')) },
      invoke: { id: 'appLogout', src: 'appLogout', input: ({ context }) => appLogoutInput(context) },
    },
    // A partner page (machines/partner.ts). A sensitive one (link-success) first checks for a recent
    // second factor as the security area does, then the page's flow runs.
    partnering: {
      on: { ROUTE: whileSignedIn(restarts('partner', 'partnering')) },
      ...behindStepUp(
        rootSetup.createStateConfig({
          invoke: { id: 'partner', src: 'partner', input: ({ context }) => partnerInput(context) },
        }),
      ),
    },
    // The profile (machines/profile.ts): its screens move within its flow, except the sensitive one
    // (edit-credentials), which starts it again behind the step-up.
    profile: {
      // A step-up's code screen here leads back to the profile.
      tags: ['stepUpFor.profile'],
      on: { ROUTE: whileSignedIn(restarts('profile', 'profile')) },
      ...behindStepUp(
        rootSetup.createStateConfig({
          on: {
            // Its other screens are the running flow's to show.
            ROUTE: {
              guard: { type: 'routeStaysIn', params: { flow: 'profile' } },
              actions: [setLocation, guardSignedIn, tellStep('profile', 'profile')],
            },
          },
          invoke: { id: 'profile', src: 'profile', input: ({ context }) => profileInput(context) },
        }),
      ),
    },
    enrolling: {
      // The spec's session key mirrors a mandatory set-up while it runs (spec §3, §4 "Forced MFA");
      // the server's profile stays the authority on a reload.
      entry: {
        type: 'storeSession',
        params: ({ context }) => ({ key: 'mfa_forced', value: mustEnrol(context.user) ? 'true' : null }),
      },
      exit: { type: 'storeSession', params: { key: 'mfa_forced', value: null } },
      on: {
        ROUTE: [
          forwards('setupMfa', 'setupMfa'),
          // The merge's and the code's screens do not divert (spec §4): there, and the set-up after.
          { guard: 'routeExemptFromSetup', target: 'idle', actions: [setLocation, guardSignedIn] },
          // Leaving the set-up while it is mandatory signs the user out; a customer leaving skips it.
          { guard: 'forced', target: 'loggingOut', actions: setLocation },
          { target: 'idle', actions: [setLocation, assign({ setupMfaSkipped: true }), guardSignedIn] },
        ],
      },
      invoke: {
        id: 'setupMfa',
        src: 'setupMfa',
        input: ({ context }) => ({
          forced: mustEnrol(context.user),
          customer: context.user?.mfa_customer === true,
          entry: stepOf(context.location.path, 'setupMfa') ?? 'intro',
          knownPhone: knownPhoneOf(context.user),
        }),
        onDone: [
          // The app was chosen: its own set-up follows (a sensitive screen, so a step-up first).
          {
            guard: { type: 'setupMfaIs', params: { outcome: 'authenticator' } },
            target: 'idle',
            actions: [goTo(pathOf('authenticator', 'scan'))],
          },
          {
            // Opened from Security: back there, the new method listed (or, when the step-up ran out,
            // the methods screen asks for it again).
            guard: 'setUpFromSecurity',
            target: 'idle',
            actions: [
              assign({
                user: ({ context, event }) =>
                  context.user && event.output.outcome === 'enrolled'
                    ? { ...context.user, mfa_enrolled: true }
                    : context.user,
                methodAdded: ({ event }) => event.output.outcome === 'enrolled',
              }),
              { type: 'persistAccount', params: ({ context }) => ({ user: context.user }) },
              goTo(pathOf('security', 'methods')),
            ],
          },
          {
            guard: { type: 'setupMfaIs', params: { outcome: 'enrolled' } },
            target: 'idle',
            actions: [
              assign({ user: ({ context }) => (context.user ? { ...context.user, mfa_enrolled: true } : null) }),
              { type: 'persistAccount', params: ({ context }) => ({ user: context.user }) },
              goTo(({ target }) => safeTarget(target) ?? HOME_PATH),
              assign({ target: null }),
            ],
          },
          // Skipped: on to the target kept before, or home.
          {
            target: 'idle',
            actions: [
              assign({ setupMfaSkipped: true }),
              goTo(({ target }) => safeTarget(target) ?? HOME_PATH),
              assign({ target: null }),
            ],
          },
        ],
      },
    },
    security,
    // The merge of a duplicated account (machines/fuzzion.ts): each of its screens starts it again,
    // from what the tab kept, and the flow shows the one that fits (the outcome only after one).
    // While the session's offer is open (spec §6 "duplicated-logged"), every other path shows the
    // offer; done, cancelled, expired or signed out, the session is free again.
    merging: {
      on: {
        ROUTE: [
          signOut,
          restarts('fuzzion', 'merging'),
          {
            guard: 'mergeOpen',
            target: 'merging',
            reenter: true,
            actions: [setLocation, goTo(pathOf('fuzzion', 'offer'))],
          },
          { target: 'idle', actions: [setLocation, guardSignedIn] },
        ],
        MERGE_OPENED: {
          target: '.duplicated',
          actions: mergeUntil(({ event }) => (event.type === 'MERGE_OPENED' ? event.until : undefined)),
        },
        MERGE_CLOSED: { target: '.settled', actions: mergeUntil(() => undefined) },
      },
      invoke: { id: 'fuzzion', src: 'fuzzion', input: ({ context }) => fuzzionInput(context.location) },
      initial: 'judging',
      states: {
        judging: { always: [{ guard: 'mergeOpen', target: 'duplicated' }, { target: 'settled' }] },
        // The spec's duplicated-logged state: the session has an open offer.
        duplicated: { tags: ['duplicatedLogged'] },
        // No offer open (none yet, or it closed): the merge's screens show what the flow has.
        settled: {},
      },
    },
    // The applications that hold access to the account: the list runs while its screen shows.
    access: {
      on: { ROUTE: whileSignedIn(keeps('access')) },
      invoke: { id: 'access', src: 'access' },
    },
    // What Tessera may send the account: the settings run while their screen shows.
    notifications: {
      on: { ROUTE: whileSignedIn(keeps('notifications')) },
      invoke: { id: 'notifications', src: 'notifications' },
    },
    recovering: {
      on: {
        ROUTE: [
          signOut,
          keeps('totpRecovery'),
          // Leaving the screen is skipping it.
          { target: 'idle', actions: [setLocation, assign({ recoveryKeysLeft: null }), guardSignedIn] },
        ],
      },
      invoke: {
        id: 'totpRecovery',
        src: 'totpRecovery',
        input: ({ context }) => ({ keysLeft: context.recoveryKeysLeft }),
        onDone: [
          {
            // Resetting the authenticator continues with the set-up of a new one (the location moves
            // with it: the recovery screen's own would open it again).
            guard: 'authenticatorReset',
            target: 'idle',
            actions: [assign({ recoveryKeysLeft: null }), goTo(`${pathOf('authenticator', 'scan')}?reset=true`)],
          },
          {
            // New keys: the authenticator's success page shows them (spec §4).
            guard: 'keysRegenerated',
            target: 'idle',
            actions: [
              assign(({ event }) => ({
                recoveryKeysLeft: null,
                regeneratedKeys: event.output.outcome === 'regenerated' ? event.output.keys : null,
              })),
              goTo(`${pathOf('authenticator', 'success')}?isRegenerated=true`),
            ],
          },
          {
            target: 'idle',
            actions: [
              goTo(({ location, target }) => afterRecovery(location.search, target)),
              assign({ recoveryKeysLeft: null, target: null }),
              { type: 'persistTarget', params: { target: null } },
            ],
          },
        ],
      },
    },
    loggingOut: {
      // Signing out already: the call's own answer decides, without the notice.
      on: { SESSION_ENDED: {} },
      invoke: {
        id: 'logout',
        src: 'logout',
        onDone: { target: '#root.anonymous', actions: signedOut },
        onError: [
          // The server no longer knows the token: the user is signed out all the same.
          { guard: 'isUnauthorised', target: '#root.anonymous', actions: signedOut },
          {
            target: 'idle',
            actions: [assign({ notice: 'logout_failed' }), { type: 'navigate', params: { to: HOME_PATH } }],
          },
        ],
      },
    },
  },
});
