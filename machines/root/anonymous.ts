// Signed out: signing in (the login flow, and what follows it in ./signingIn.ts: a second factor,
// a weak password's renewal, the profile's load) and the flows an anonymous visitor starts from
// their paths (onboarding, forgotten password or username). The route table says which flow a path
// belongs to.
import { assign, sendTo } from 'xstate';
import type { LoginOutput } from '../login.ts';
import type { OnboardingOutput } from '../onboarding.ts';
import { HOME_PATH, LOGIN_PATH, pathOf, safeTarget, startsFlow, stepOf } from '../routes.ts';
import {
  appLogoutInput,
  forgotModeOf,
  loginModeOf,
  opensToVisitor,
  partnerInput,
  policyOf,
  resumedFlow,
  usernameFor,
} from '../session.ts';
import { forwards, guardAnonymous, restarts, setLocation, tellStep, whileAnonymous } from './actions.ts';
import { rootSetup } from './setup.ts';
import { loadingUser, renewingPassword, mfa } from './signingIn.ts';

/** The second factor due when onboarding's account signed in, as a sign-in's answer carries it. */
const onboardingMfaOf = ({ signIn }: OnboardingOutput) =>
  signIn.kind === 'second_factor' ? { kind: 'mfa' as const, ...signIn.mfa } : null;

/** The ticket of a sign-in that must renew its weak password. */
const weakPayloadOf = (output: LoginOutput) => (output.kind === 'weakPassword' ? output.payload : null);

/** The flows an anonymous visitor starts by arriving on one of their paths, and the state running each. */
export const ANONYMOUS_FLOWS = {
  onboarding: 'onboarding',
  forgotUsername: 'findingUsername',
  forgotPassword: 'recoveringPassword',
} as const;
const ANONYMOUS_FLOW_NAMES = Object.keys(ANONYMOUS_FLOWS) as Array<keyof typeof ANONYMOUS_FLOWS>;

export const anonymous = rootSetup.createStateConfig({
  entry: [
    guardAnonymous,
    // Arriving on a forgotten-password or -username or an onboarding screen (deep link, reload) starts that flow.
    rootSetup.enqueueActions(({ context, enqueue }) => {
      const path = context.location.path;
      if (
        ANONYMOUS_FLOW_NAMES.some((flow) => startsFlow(path, flow)) ||
        opensToVisitor(path, 'partner') ||
        opensToVisitor(path, 'appLogout') ||
        resumedFlow(context, path)
      ) {
        enqueue.raise({ type: 'ROUTE', location: context.location });
      }
    }),
  ],
  on: {
    ROUTE: { actions: [setLocation, guardAnonymous] },
  },
  initial: 'signingIn',
  states: {
    signingIn: {
      on: {
        ROUTE: [
          { guard: { type: 'resumes', params: { flow: 'mfa' } }, target: 'mfa', actions: setLocation },
          {
            guard: { type: 'resumes', params: { flow: 'weakPassword' } },
            target: 'renewingPassword',
            actions: setLocation,
          },
          // A path that starts a flow starts it (the route table says which flow owns the path).
          ...ANONYMOUS_FLOW_NAMES.map((flow) => ({
            guard: { type: 'routeStartsFlow' as const, params: { flow } },
            target: ANONYMOUS_FLOWS[flow],
            actions: [setLocation, guardAnonymous],
          })),
          // A partner page a visitor may see (the landing, the choices without an account); the
          // others need a session, and the guard sends to sign-in first.
          {
            guard: { type: 'routeOpensToVisitor', params: { flow: 'partner' } },
            target: 'partnering',
            actions: [setLocation, guardAnonymous],
          },
          // An application's sign-out: its confirmation and success show to anyone.
          {
            guard: { type: 'routeOpensToVisitor', params: { flow: 'appLogout' } },
            target: 'signingOutOfApp',
            actions: [setLocation, guardAnonymous],
          },
          {
            actions: [
              setLocation,
              guardAnonymous,
              sendTo('login', ({ event }) => ({ type: 'SET_MODE', mode: loginModeOf(event.location.path) })),
            ],
          },
        ],
      },
      invoke: {
        id: 'login',
        src: 'login',
        input: ({ context }) => ({
          mode: loginModeOf(context.location.path),
          username: usernameFor(loginModeOf(context.location.path), context.username),
        }),
        onDone: [
          // Without a second factor, the spec's fourth rule after a code holds alone: the target, or home.
          {
            guard: 'loginSucceeded',
            target: 'loadingUser',
            actions: assign({
              notice: null,
              afterCode: ({ context }) => ({ kind: 'target' as const, to: safeTarget(context.target) ?? HOME_PATH }),
              passwordSignIn: ({ event }) => event.output.kind === 'success' && event.output.by === 'password',
            }),
          },
          {
            guard: 'loginNeedsMfa',
            target: 'mfa',
            actions: [
              {
                type: 'storeSession',
                params: ({ event }) => ({ key: 'mfaPayload', value: JSON.stringify(event.output) }),
              },
              assign({
                mfa: ({ event }) =>
                  event.output.kind === 'mfa' ? { payload: event.output.payload, methods: event.output.methods } : null,
                passwordSignIn: true,
              }),
            ],
          },
          {
            guard: 'loginWeakPassword',
            target: 'renewingPassword',
            actions: [
              {
                type: 'storeSession',
                params: ({ event }) => ({ key: 'loginPayload', value: weakPayloadOf(event.output) }),
              },
              assign({ notice: 'weak_password', weakPayload: ({ event }) => weakPayloadOf(event.output) }),
              { type: 'navigate', params: { to: pathOf('weakPassword', 'renew') } },
            ],
          },
          { target: '#root.maintenance' },
        ],
      },
    },
    // Activating a card or an invitation (spec §4 Onboarding): the flow decides which step may
    // show; every location change inside it goes to the flow as the step asked for.
    onboarding: {
      on: {
        ROUTE: whileAnonymous({
          guard: { type: 'routeStartsFlow' as const, params: { flow: 'onboarding' as const } },
          actions: [setLocation, guardAnonymous, tellStep('onboarding', 'onboarding')],
        }),
      },
      invoke: {
        id: 'onboarding',
        src: 'onboarding',
        input: ({ context }) => ({
          entry: stepOf(context.location.path, 'onboarding') ?? 'onboarding',
          policy: policyOf(context.config),
        }),
        // The new account was signed in as a password sign-in is (server/identity/signInDecision.ts): on as
        // after a password, to its second factor or to the profile's load, which sends a forced
        // account to set one up; the dashboard then offers a passkey, as after a password.
        onDone: [
          {
            guard: ({ event }) => event.output.signIn.kind === 'second_factor',
            target: 'mfa',
            actions: [
              {
                type: 'storeSession',
                params: ({ event }) => ({ key: 'mfaPayload', value: JSON.stringify(onboardingMfaOf(event.output)) }),
              },
              assign({ mfa: ({ event }) => onboardingMfaOf(event.output), passwordSignIn: true }),
            ],
          },
          {
            target: 'loadingUser',
            actions: assign({
              notice: null,
              afterCode: ({ context }) => ({ kind: 'target' as const, to: safeTarget(context.target) ?? HOME_PATH }),
              passwordSignIn: true,
            }),
          },
        ],
      },
    },
    // A partner page (machines/partner.ts): each partner path starts the flow again on its page.
    partnering: {
      on: {
        ROUTE: whileAnonymous({
          ...restarts('partner', 'partnering', 'anonymous'),
          guard: { type: 'routeOpensToVisitor' as const, params: { flow: 'partner' as const } },
        }),
      },
      invoke: { id: 'partner', src: 'partner', input: ({ context }) => partnerInput(context) },
    },
    // An application's sign-out (machines/appLogout.ts).
    signingOutOfApp: {
      on: {
        ROUTE: whileAnonymous({
          ...restarts('appLogout', 'signingOutOfApp', 'anonymous'),
          guard: { type: 'routeOpensToVisitor' as const, params: { flow: 'appLogout' as const } },
        }),
      },
      invoke: { id: 'appLogout', src: 'appLogout', input: ({ context }) => appLogoutInput(context) },
    },
    findingUsername: {
      on: {
        ROUTE: whileAnonymous(forwards('forgotUsername', 'forgotUsername')),
      },
      invoke: { id: 'forgotUsername', src: 'forgotUsername' },
    },
    recoveringPassword: {
      on: {
        // Every step of the flow, Back and Forward included, goes to the flow, which decides.
        ROUTE: whileAnonymous(forwards('forgotPassword', 'forgotPassword')),
      },
      invoke: {
        id: 'forgotPassword',
        src: 'forgotPassword',
        input: ({ context }) => ({
          mode: forgotModeOf(context.location.path),
          policy: policyOf(context.config),
          entry: stepOf(context.location.path, 'forgotPassword') ?? undefined,
          username: usernameFor(forgotModeOf(context.location.path), context.username),
        }),
        onDone: {
          target: 'signingIn',
          actions: [assign({ notice: 'password_renewed' }), { type: 'navigate', params: { to: LOGIN_PATH } }],
        },
      },
    },
    renewingPassword,
    mfa,
    loadingUser,
  },
});
