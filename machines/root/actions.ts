// The root machine's shared actions: the route guard applied to the current location, and
// forgetting a signed-out session.
import { assign, sendTo, type ActionArgs, type EventObject } from 'xstate';
import { locationOf, rootSetup, stepUpSearch, type Context, type RootEvent } from './setup.ts';
import {
  HOME_PATH,
  LOGIN_PATH,
  allowedRedirect,
  guard,
  pathOf,
  stepOf,
  type Location,
  type SessionState,
} from '../routes.ts';

/** Applies the route guard (spec §4) to the current location. */
export const applyGuard = (session: SessionState) =>
  rootSetup.enqueueActions(({ context, enqueue }) => {
    const signedIn = session === 'signedIn';
    // A sign-in kept from before a reload still waits for its second factor or its new password.
    const decision = guard(
      context.location,
      session === 'anonymous' && (context.mfa || context.weakPayload) ? 'secondFactor' : session,
    );
    if (decision.kind === 'redirect') {
      enqueue({ type: 'navigate', params: { to: decision.to } });
    } else if (decision.kind === 'login') {
      enqueue.assign({ target: decision.target });
      enqueue({ type: 'persistTarget', params: { target: decision.target } });
      enqueue({ type: 'navigate', params: { to: LOGIN_PATH } });
    } else if (decision.kind === 'logout') {
      enqueue.raise({ type: 'ROUTE', location: context.location });
    } else {
      enqueue({ type: 'trackPageView', params: { path: context.location.path } });
      const away =
        signedIn && context.location.path === HOME_PATH
          ? allowedRedirect(context.location.search, context.config?.redirectTargets ?? [])
          : null;
      if (away) enqueue({ type: 'leaveTo', params: { url: away } });
    }
  });

/** The guard for a signed-in person and for a visitor, each made once (the states share them). */
export const guardSignedIn = applyGuard('signedIn');
export const guardAnonymous = applyGuard('anonymous');

/** Forgets everything about the signed-out user: local copy and session storage (context is reset beside it). */
export const forgetSession = [{ type: 'persistAccount', params: { user: null } }, 'clearSession'] as const;

/** Keeps the location a ROUTE event brings. */
export const setLocation = rootSetup.assign({
  location: ({ event }) => (event as Extract<RootEvent, { type: 'ROUTE' }>).location,
});

/** Where a step-up's code is asked for: the methods, with the way back to the sensitive screen. */
export const stepUpPath = (location: Location) => `${pathOf('mfa', 'methods')}${stepUpSearch(location)}`;

/** A sensitive screen's step-up (the security area's, a partner page's): the screen waits behind
 * /mfa/methods?single=true&redirect=…, whose code entry runs here; the right code is decided on
 * in the sibling state `afterStepUp`, leaving for another screen drops the wait. */
export const steppingUp = rootSetup.createStateConfig({
  entry: { type: 'navigate', params: ({ context }) => ({ to: stepUpPath(context.location) }) },
  on: {
    ROUTE: [
      {
        guard: { type: 'routeInFlow', params: { flow: 'mfa' } },
        actions: sendTo('stepUp', ({ event }) => ({
          type: 'ROUTE',
          step: stepOf((event as Extract<RootEvent, { type: 'ROUTE' }>).location.path, 'mfa')!,
        })),
      },
      { guard: 'routeIsLogout', target: '#root.signedIn.loggingOut', actions: setLocation },
      { target: '#root.signedIn.idle', actions: [setLocation, assign({ mfa: null }), guardSignedIn] },
    ],
  },
  invoke: {
    id: 'stepUp',
    src: 'mfaCode',
    input: ({ context }) => ({ methods: context.mfa?.methods ?? [], loginPayload: null }),
    onDone: {
      target: 'afterStepUp',
      actions: [
        { type: 'decideAfterCode', params: { purpose: 'stepUp' } },
        assign({ mfa: null, recoveryKeysLeft: ({ event }) => event.output.recoveryKeysLeft }),
      ],
    },
  },
});

/** Follows where the right code leads (context.afterCode): a screen of ours (the location the guard
 * judges next), a partner, or Back. It reads only the context, so any event may carry it (a flow's
 * end, a user's load). */
export const followAfterCode = rootSetup.enqueueActions(({ context, enqueue }) => {
  const next = context.afterCode;
  if (!next) return;
  if (next.kind === 'partner') enqueue({ type: 'leaveTo', params: { url: next.url } });
  else if (next.kind === 'back') enqueue({ type: 'goBack', params: { steps: next.steps } });
  else {
    enqueue.assign({ location: locationOf(next.to) });
    enqueue({ type: 'navigate', params: { to: next.to } });
  }
  enqueue.assign({ afterCode: null });
}) as unknown as <E extends EventObject>(args: ActionArgs<Context, E, RootEvent>, params: unknown) => void;

/** The states of an area whose sensitive screens (the route table's `sensitive`) wait for a recent
 * second factor: the status is asked, the step-up runs when it is not recent, and the right code
 * leads on in the spec's order; then `open`, the area's own state, runs. Its other screens open at
 * once. A status that cannot be read opens the screen: the server refuses a change all the same. */
export const behindStepUp = (open: ReturnType<typeof rootSetup.createStateConfig>) => ({
  initial: 'choosing' as const,
  states: {
    choosing: rootSetup.createStateConfig({
      always: [{ guard: 'atSensitive', target: 'checking' }, { target: 'open' }],
    }),
    checking: rootSetup.createStateConfig({
      invoke: {
        id: 'secondFactorStatus',
        src: 'secondFactorStatus',
        onDone: [
          {
            guard: 'stepUpNeeded',
            target: 'steppingUp',
            actions: assign({ mfa: ({ event }) => ({ payload: '', methods: event.output.methods }) }),
          },
          { target: 'open' },
        ],
        onError: { target: 'open' },
      },
    }),
    steppingUp,
    afterStepUp: rootSetup.createStateConfig({
      always: [
        {
          guard: { type: 'afterCodeIs', params: { kind: 'totpRecovery' } },
          target: '#root.signedIn.recovering',
          actions: followAfterCode,
        },
        { target: 'open', actions: followAfterCode },
      ],
    }),
    open,
  },
});
