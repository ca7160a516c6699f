// Signed in: the guard judges every location; the security area checks for a recent second
// factor before its sensitive screens; forced enrolment and the recovery-key screen run their flows.
import { assign, sendTo } from 'xstate';
import { HOME_PATH, LOGIN_PATH, pathOf, safeTarget, stepOf } from '../routes.ts';
import { afterRecovery } from '../afterCode.ts';
import { behindStepUp, followAfterCode, forgetSession, guardSignedIn, setLocation, steppingUp } from './actions.ts';
import { locationOf, mustEnrol, partnerInput, policyOf, profileInput, rootSetup } from './setup.ts';

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
    USER_UPDATED: {
      actions: [
        assign({ user: ({ event }) => event.user }),
        { type: 'persistAccount', params: ({ event }) => ({ user: event.user }) },
      ],
    },
  },
  initial: 'idle',
  states: {
    idle: {
      // Screens of a flow reached by reload or deep link: a security screen opens like one reached
      // by a link; the set-up starts for an account without a second factor and goes home for the
      // others; the recovery-key screen, which only a sign-in with a recovery key opens, signs out.
      always: [
        { guard: 'atSecurity', target: 'security' },
        // A partner application's consent screen (the authorisation server sent the browser there).
        { guard: { type: 'atFlow', params: { flow: 'consent' } }, target: 'consenting' },
        { guard: 'atAuthorisationStepUp', target: 'reauthenticating' },
        { guard: { type: 'atFlow', params: { flow: 'access' } }, target: 'access' },
        { guard: { type: 'atFlow', params: { flow: 'notifications' } }, target: 'notifications' },
        { guard: { type: 'atFlow', params: { flow: 'partner' } }, target: 'partnering' },
        { guard: { type: 'atFlow', params: { flow: 'profile' } }, target: 'profile' },
        { guard: 'atSetupWithoutMethod', target: 'enrolling' },
        // From Security, a method of one's choosing is added on the set-up's own steps.
        { guard: 'atSetupAdding', target: 'enrolling' },
        {
          guard: { type: 'atFlow', params: { flow: 'setupMfa' } },
          actions: [assign({ location: locationOf(HOME_PATH) }), { type: 'navigate', params: { to: HOME_PATH } }],
        },
        // The recovery screen resumes by the method it carries (a reload); without one it signs out.
        { guard: 'atTotpRecoveryWithMethod', target: 'recovering' },
        // Without the method it is for (spec §4 "TOTP recovery"): sign out.
        { guard: { type: 'atFlow', params: { flow: 'totpRecovery' } }, target: 'loggingOut' },
      ],
      on: {
        ROUTE: [
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          { guard: 'routeToSecurity', target: 'security', actions: [setLocation, guardSignedIn] },
          {
            guard: { type: 'routeInFlow', params: { flow: 'consent' } },
            target: 'consenting',
            actions: [setLocation, guardSignedIn],
          },
          {
            guard: { type: 'routeInFlow', params: { flow: 'partner' } },
            target: 'partnering',
            actions: [setLocation, guardSignedIn],
          },
          {
            guard: { type: 'routeInFlow', params: { flow: 'profile' } },
            target: 'profile',
            actions: [setLocation, guardSignedIn],
          },
          {
            guard: { type: 'routeInFlow', params: { flow: 'notifications' } },
            target: 'notifications',
            actions: [setLocation, guardSignedIn],
          },
          { actions: [setLocation, guardSignedIn] },
        ],
      },
    },
    // An application's request wants a fresh or a stronger proof than this session holds (the
    // authorisation server sent the browser to the code screen): the person proves it is them, then
    // the request goes on, back at the authorisation server.
    reauthenticating: {
      on: {
        ROUTE: [
          // The code screens move among themselves (their flow runs once the methods are known).
          { guard: { type: 'routeInFlow', params: { flow: 'mfa' } } },
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          { target: 'idle', actions: [assign({ location: ({ event }) => event.location, mfa: null }), guardSignedIn] },
        ],
      },
      initial: 'checking',
      states: {
        checking: {
          invoke: {
            id: 'secondFactorStatus',
            src: 'secondFactorStatus',
            onDone: {
              target: 'asking',
              actions: assign({ mfa: ({ event }) => ({ payload: '', methods: event.output.methods }) }),
            },
            // The methods cannot be read: home, where the person can start again from the application.
            onError: {
              target: '#root.signedIn.idle',
              actions: [assign({ location: locationOf(HOME_PATH) }), { type: 'navigate', params: { to: HOME_PATH } }],
            },
          },
        },
        asking: {
          on: {
            ROUTE: {
              guard: { type: 'routeInFlow', params: { flow: 'mfa' } },
              actions: sendTo('stepUp', ({ event }) => ({ type: 'ROUTE', step: stepOf(event.location.path, 'mfa')! })),
            },
          },
          invoke: {
            id: 'stepUp',
            src: 'mfaCode',
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
        proven: {
          always: [
            {
              guard: { type: 'afterCodeIs', params: { kind: 'totpRecovery' } },
              target: '#root.signedIn.recovering',
              actions: followAfterCode,
            },
            { target: '#root.signedIn.idle', actions: followAfterCode },
          ],
        },
      },
    },
    // A partner application's consent: the flow answers the authorisation server and leaves the app
    // for it; leaving the screen otherwise leaves the request unanswered (it expires by itself).
    consenting: {
      on: {
        ROUTE: [
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          {
            guard: { type: 'routeInFlow', params: { flow: 'consent' } },
            target: 'consenting',
            reenter: true,
            actions: [setLocation, guardSignedIn],
          },
          { target: 'idle', actions: [setLocation, guardSignedIn] },
        ],
      },
      invoke: {
        id: 'consent',
        src: 'consent',
        input: ({ context }) => ({ uid: new URLSearchParams(context.location.search).get('uid') }),
      },
    },
    // A partner page (machines/partner.ts). A sensitive one (link-success) first checks for a recent
    // second factor as the security area does (the same status call, the same step-up behind
    // /mfa/methods?single=true&redirect=…, the same order after the code), then the page's flow runs.
    partnering: {
      on: {
        ROUTE: [
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          {
            guard: { type: 'routeInFlow', params: { flow: 'partner' } },
            target: 'partnering',
            reenter: true,
            actions: [setLocation, guardSignedIn],
          },
          { target: 'idle', actions: [setLocation, guardSignedIn] },
        ],
      },
      ...behindStepUp(
        rootSetup.createStateConfig({
          invoke: { id: 'partner', src: 'partner', input: ({ context }) => partnerInput(context) },
        }),
      ),
    },
    // The profile (machines/profile.ts): its screens move within its flow, except the sensitive one
    // (edit-credentials), which starts it again behind the step-up.
    profile: {
      on: {
        ROUTE: [
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          // A sensitive screen (or any, before the flow runs) starts the area again.
          {
            guard: { type: 'routeInFlow', params: { flow: 'profile' } },
            target: 'profile',
            reenter: true,
            actions: [setLocation, guardSignedIn],
          },
          { target: 'idle', actions: [setLocation, guardSignedIn] },
        ],
      },
      ...behindStepUp(
        rootSetup.createStateConfig({
          on: {
            // Its other screens are the running flow's to show.
            ROUTE: {
              guard: { type: 'routeStaysIn', params: { flow: 'profile' } },
              actions: [
                setLocation,
                guardSignedIn,
                sendTo('profile', ({ event }) => ({ type: 'ROUTE', step: stepOf(event.location.path, 'profile')! })),
              ],
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
          {
            guard: { type: 'routeInFlow', params: { flow: 'setupMfa' } },
            actions: [
              setLocation,
              sendTo('forcedMfa', ({ event }) => ({ type: 'ROUTE', step: stepOf(event.location.path, 'setupMfa')! })),
            ],
          },
          // Leaving the set-up while it is mandatory signs the user out; a customer leaving skips it.
          { guard: 'forced', target: 'loggingOut', actions: setLocation },
          {
            target: 'idle',
            actions: [assign({ location: ({ event }) => event.location, enrolmentSkipped: true }), guardSignedIn],
          },
        ],
      },
      invoke: {
        id: 'forcedMfa',
        src: 'forcedMfa',
        input: ({ context }) => ({
          forced: mustEnrol(context.user),
          customer: context.user?.mfa_customer === true,
          entry: stepOf(context.location.path, 'setupMfa') ?? 'intro',
        }),
        onDone: [
          {
            // The app was chosen: its own set-up follows (a sensitive screen, so a step-up first).
            guard: 'choseAuthenticator',
            target: 'idle',
            actions: [
              assign({ location: locationOf(pathOf('authenticator', 'scan')) }),
              { type: 'navigate', params: { to: pathOf('authenticator', 'scan') } },
            ],
          },
          {
            // Opened from Security: back there, the new method listed (or, when the step-up ran out,
            // the methods screen asks for it again).
            guard: 'enrolledFromSecurity',
            target: 'idle',
            actions: [
              assign({
                user: ({ context, event }) =>
                  context.user && event.output.outcome === 'enrolled'
                    ? { ...context.user, mfa_enrolled: true }
                    : context.user,
              }),
              { type: 'persistAccount', params: ({ context }) => ({ user: context.user }) },
              assign({ location: locationOf(pathOf('security', 'methods')) }),
              { type: 'navigate', params: { to: pathOf('security', 'methods') } },
            ],
          },
          {
            guard: 'enrolled',
            target: 'idle',
            actions: [
              assign({ user: ({ context }) => (context.user ? { ...context.user, mfa_enrolled: true } : null) }),
              { type: 'persistAccount', params: ({ context }) => ({ user: context.user }) },
              assign({ location: ({ context }) => locationOf(safeTarget(context.target) ?? HOME_PATH) }),
              { type: 'navigate', params: ({ context }) => ({ to: context.location.path + context.location.search }) },
              assign({ target: null }),
            ],
          },
          {
            target: 'idle',
            actions: [
              assign({
                enrolmentSkipped: true,
                location: ({ context }) => locationOf(safeTarget(context.target) ?? HOME_PATH),
              }),
              { type: 'navigate', params: ({ context }) => ({ to: context.location.path + context.location.search }) },
              assign({ target: null }),
            ],
          },
        ],
      },
    },
    security: {
      on: {
        ROUTE: [
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          { guard: 'routeToSecurity', target: 'security', reenter: true, actions: [setLocation, guardSignedIn] },
          { target: 'idle', actions: [setLocation, guardSignedIn] },
        ],
      },
      initial: 'checking',
      states: {
        checking: {
          invoke: {
            id: 'secondFactorStatus',
            src: 'secondFactorStatus',
            onDone: [
              {
                guard: 'stepUpNeeded',
                target: 'steppingUp',
                actions: assign({ mfa: ({ event }) => ({ payload: '', methods: event.output.methods }) }),
              },
              { guard: 'onAuthenticatorPath', target: 'authenticator' },
              { target: 'open' },
            ],
            onError: { target: 'open' },
          },
        },
        // The sensitive screen waits behind /mfa/methods?single=true&redirect=…, then comes back.
        steppingUp,
        // The spec's order after a code, decided once: a recovery key first shows the recovery
        // screen, which then returns here; any other code returns to the sensitive screen.
        afterStepUp: {
          always: [
            {
              guard: { type: 'afterCodeIs', params: { kind: 'totpRecovery' } },
              target: '#root.signedIn.recovering',
              actions: followAfterCode,
            },
            { guard: 'onAuthenticatorPath', target: 'authenticator', actions: followAfterCode },
            { target: 'open', actions: followAfterCode },
          ],
        },
        // The screen shown is a state, tagged for the view: the view never reads the URL.
        open: {
          invoke: { id: 'mfaSettings', src: 'mfaSettings' },
          initial: 'choosing',
          states: {
            choosing: {
              always: [
                { guard: { type: 'atSecurityStep', params: { step: 'methods' } }, target: 'methods' },
                { guard: { type: 'atSecurityStep', params: { step: 'recovery' } }, target: 'recovery' },
                { guard: { type: 'atSecurityStep', params: { step: 'history' } }, target: 'history' },
                { guard: { type: 'atSecurityStep', params: { step: 'password' } }, target: 'password' },
                { target: 'overview' },
              ],
            },
            // The overview's devices and sessions run beside the settings; signing out everywhere
            // ends this session too, as a sign-out does.
            overview: {
              tags: ['security.overview'],
              invoke: {
                id: 'devices',
                src: 'devices',
                onDone: {
                  target: '#root.anonymous',
                  // Signed out at sign-in, remembering no screen to come back to.
                  actions: [
                    assign({ user: null, target: null, mfa: null, location: locationOf(LOGIN_PATH) }),
                    ...forgetSession,
                    { type: 'navigate', params: { to: LOGIN_PATH } },
                  ],
                },
              },
            },
            methods: { tags: ['security.methods'] },
            recovery: { tags: ['security.recovery'] },
            // The account's security events: their flow runs while the screen shows.
            history: { tags: ['security.history'], invoke: { id: 'securityHistory', src: 'securityHistory' } },
            // A new password: when this session ended with the others, the person signs in again
            // with it (the sign-in screen says so), nothing kept of this session.
            password: {
              tags: ['security.password'],
              invoke: {
                id: 'editPassword',
                src: 'editPassword',
                input: ({ context }) => ({ policy: policyOf(context.config) }),
                // Still signed in, the flow rests on its notice; signed out, the sign-in follows.
                onDone: {
                  guard: 'passwordEndedSession',
                  target: '#root.anonymous',
                  actions: [
                    assign({
                      user: null,
                      target: null,
                      mfa: null,
                      notice: 'password_renewed',
                      location: locationOf(LOGIN_PATH),
                    }),
                    ...forgetSession,
                    { type: 'navigate', params: { to: LOGIN_PATH } },
                  ],
                },
              },
            },
          },
        },
        authenticator: {
          on: {
            // The set-up moves between its two screens by itself.
            ROUTE: { guard: { type: 'routeInFlow', params: { flow: 'authenticator' } }, actions: setLocation },
          },
          invoke: {
            id: 'totpSetup',
            src: 'totpSetup',
            onDone: { actions: { type: 'navigate', params: { to: pathOf('security', 'overview') } } },
          },
        },
      },
    },
    // The applications that hold access to the account: the list runs while its screen shows.
    access: {
      on: {
        ROUTE: [
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          { guard: { type: 'routeInFlow', params: { flow: 'access' } }, actions: setLocation },
          { target: 'idle', actions: [setLocation, guardSignedIn] },
        ],
      },
      invoke: { id: 'accessGrants', src: 'accessGrants' },
    },
    // What Tessera may send the account: the settings run while their screen shows.
    notifications: {
      on: {
        ROUTE: [
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          { guard: { type: 'routeInFlow', params: { flow: 'notifications' } }, actions: setLocation },
          { target: 'idle', actions: [setLocation, guardSignedIn] },
        ],
      },
      invoke: { id: 'notifications', src: 'notifications' },
    },
    recovering: {
      on: {
        ROUTE: [
          { guard: 'routeIsLogout', target: 'loggingOut', actions: setLocation },
          // Leaving the screen is skipping it.
          {
            guard: { type: 'routeLeavesFlow', params: { flow: 'totpRecovery' } },
            target: 'idle',
            actions: [assign({ location: ({ event }) => event.location, recoveryKeysLeft: null }), guardSignedIn],
          },
          { actions: setLocation },
        ],
      },
      invoke: {
        id: 'totpRecovery',
        src: 'totpRecovery',
        input: ({ context }) => ({ keysLeft: context.recoveryKeysLeft }),
        onDone: [
          {
            // Resetting the authenticator continues with the set-up of a new one.
            guard: 'authenticatorReset',
            target: 'idle',
            // The location moves with it: the recovery screen's own would open it again.
            actions: [
              assign({ recoveryKeysLeft: null, location: locationOf(pathOf('authenticator', 'scan')) }),
              { type: 'navigate', params: { to: pathOf('authenticator', 'scan') } },
            ],
          },
          {
            target: 'idle',
            actions: [
              assign({
                recoveryKeysLeft: null,
                location: ({ context }) => locationOf(afterRecovery(context.location.search, context.target)),
              }),
              { type: 'navigate', params: ({ context }) => ({ to: context.location.path + context.location.search }) },
              assign({ target: null }),
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
        onDone: {
          target: '#root.anonymous',
          actions: [
            assign({ user: null, target: null, mfa: null }),
            ...forgetSession,
            { type: 'navigate', params: { to: LOGIN_PATH } },
          ],
        },
        onError: [
          // The server no longer knows the token: the user is signed out all the same.
          {
            guard: 'isUnauthorised',
            target: '#root.anonymous',
            actions: [
              assign({ user: null, target: null, mfa: null }),
              ...forgetSession,
              { type: 'navigate', params: { to: LOGIN_PATH } },
            ],
          },
          {
            target: 'idle',
            actions: [assign({ notice: 'logout_failed' }), { type: 'navigate', params: { to: HOME_PATH } }],
          },
        ],
      },
    },
  },
});
