// The security area (spec §4 "Route guard"): its sensitive screens wait for a recent second factor;
// the screen shown is a state, tagged for the view; the authenticator's set-up has a state of its own.
import { assign } from 'xstate';
import { HOME_PATH, LOGIN_PATH, pathOf, safeTarget } from '../routes.ts';
import { locationOf, policyOf } from '../session.ts';
import { followAfterCode, goTo, guardSignedIn, setLocation, signedOut, keeps, whileSignedIn } from './actions.ts';
import { rootSetup } from './setup.ts';
import { checkingStepUp, steppingUp } from './stepUp.ts';

export const security = rootSetup.createStateConfig({
  on: {
    ROUTE: whileSignedIn({
      guard: 'routeToSecurity' as const,
      target: 'security',
      reenter: true,
      actions: [setLocation, guardSignedIn],
    }),
  },
  initial: 'checking',
  states: {
    // The authenticator's set-up has a state of its own; every other screen is `open`'s.
    checking: checkingStepUp('open', { guard: 'onAuthenticatorPath', target: 'authenticator' }),
    steppingUp,
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
      invoke: {
        id: 'security',
        src: 'security',
        input: ({ context }) => ({ notice: context.methodAdded ? ('added' as const) : null }),
      },
      // Said once: a later visit of the settings does not say it again.
      exit: assign({ methodAdded: false }),
      initial: 'choosing',
      states: {
        choosing: {
          always: [
            ...(['methods', 'recovery', 'history', 'password'] as const).map((step) => ({
              guard: { type: 'atSecurityStep' as const, params: { step } },
              target: step,
            })),
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
              // The sign-in says it was everywhere, this device included, as asked.
              actions: [assign({ location: locationOf(LOGIN_PATH), notice: 'signed_out_everywhere' }), ...signedOut],
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
              actions: [assign({ notice: 'password_renewed', location: locationOf(LOGIN_PATH) }), ...signedOut],
            },
          },
        },
      },
    },
    authenticator: {
      exit: assign({ regeneratedKeys: null }),
      // The set-up moves between its two screens by itself.
      on: { ROUTE: keeps('authenticator') },
      invoke: {
        id: 'authenticator',
        src: 'authenticator',
        // After the recovery screen's reset (spec §4): the authenticator still there is replaced;
        // after its new keys: they show here, once.
        input: ({ context }) => ({
          reset: new URLSearchParams(context.location.search).get('reset') === 'true',
          regeneratedKeys: context.regeneratedKeys,
        }),
        onDone: [
          // The recovery screen's way on: the target kept, or home.
          {
            guard: 'keysShown',
            actions: [goTo(({ target }) => safeTarget(target) ?? HOME_PATH), assign({ target: null })],
          },
          { actions: { type: 'navigate', params: { to: pathOf('security', 'overview') } } },
        ],
      },
    },
  },
});
