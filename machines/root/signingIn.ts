// After the password: the sign-in's further steps (a second factor, a weak password's renewal, after
// a reload too, from what the tab kept), then the profile's load, which decides where the person goes.
import { assign } from 'xstate';
import { CHOOSER_PATH } from '../../contract/constants.ts';
import { LOGIN_PATH, pathOf, stepOf } from '../routes.ts';
import { hasSeveralPlatforms, locationOf, noOwnTarget, policyOf } from '../session.ts';
import { followAfterCode, forwards, guardAnonymous, keepUser, keeps, setLocation } from './actions.ts';
import { rootSetup } from './setup.ts';

export const renewingPassword = rootSetup.createStateConfig({
  on: {
    ROUTE: [
      keeps('weakPassword'),
      // Leaving abandons the renewal: the account still cannot be used until it is done.
      {
        target: 'signingIn',
        actions: [
          setLocation,
          assign({ weakPayload: null, notice: null }),
          { type: 'storeSession', params: { key: 'loginPayload', value: null } },
          guardAnonymous,
        ],
      },
    ],
  },
  invoke: {
    id: 'weakPassword',
    src: 'weakPassword',
    input: ({ context }) => ({ payload: context.weakPayload ?? '', policy: policyOf(context.config) }),
    onDone: {
      target: 'signingIn',
      actions: [
        assign({ weakPayload: null, notice: 'password_renewed' }),
        { type: 'storeSession', params: { key: 'loginPayload', value: null } },
        { type: 'navigate', params: { to: LOGIN_PATH } },
      ],
    },
  },
});

export const mfa = rootSetup.createStateConfig({
  on: {
    ROUTE: [
      forwards('mfa', 'mfa'),
      {
        target: 'signingIn',
        actions: [
          setLocation,
          assign({ mfa: null }),
          { type: 'storeSession', params: { key: 'mfaPayload', value: null } },
          guardAnonymous,
        ],
      },
    ],
  },
  invoke: {
    id: 'mfa',
    src: 'mfa',
    input: ({ context }) => ({
      methods: context.mfa?.methods ?? [],
      loginPayload: context.mfa?.payload ?? null,
      entry: stepOf(context.location.path, 'mfa') ?? 'methods',
    }),
    onDone: {
      target: 'loadingUser',
      actions: [
        { type: 'decideAfterCode', params: { purpose: 'signIn' } },
        assign({ mfa: null, recoveryKeysLeft: ({ event }) => event.output.recoveryKeysLeft }),
        { type: 'storeSession', params: { key: 'mfaPayload', value: null } },
      ],
    },
  },
});

export const loadingUser = rootSetup.createStateConfig({
  invoke: {
    id: 'loadUser',
    src: 'fetchUser',
    onDone: [
      {
        guard: 'needsSetupMfa',
        target: '#root.signedIn.enrolling',
        actions: [
          // The guard entering signedIn judges the set-up screen, where the user is going.
          keepUser,
          assign({ location: locationOf(pathOf('setupMfa', 'intro')), afterCode: null }),
        ],
      },
      {
        guard: { type: 'afterCodeIs', params: { kind: 'totpRecovery' } },
        target: '#root.signedIn.recovering',
        actions: [keepUser, followAfterCode],
      },
      {
        target: '#root.signedIn',
        actions: [
          keepUser,
          // A sign-in without a target of its own, by a person with several platforms: the
          // website access chooser first (it can be skipped to the dashboard).
          assign({
            afterCode: ({ context, event }) =>
              noOwnTarget(context.afterCode) && hasSeveralPlatforms(event.output)
                ? { kind: 'target' as const, to: CHOOSER_PATH }
                : context.afterCode,
          }),
          // Where the user goes next is known now: the guard on entering signedIn must judge
          // that location, not the login screen the URL still shows.
          followAfterCode,
          assign({ target: null }),
          { type: 'persistTarget', params: { target: null } },
        ],
      },
    ],
    onError: [
      { guard: 'isMaintenance', target: '#root.maintenance' },
      { target: 'signingIn', actions: assign({ notice: null, afterCode: null }) },
    ],
  },
});
