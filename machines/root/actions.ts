// The root machine's shared actions and transitions: the route guard applied to the current
// location, forgetting a signed-out session, following a right code, and the ROUTE handling every
// flow state shares (stay in the flow, or leave it; signed in, a sign-out first).
import type { ActionArgs, EventObject } from 'xstate';
import {
  HOME_PATH,
  LOGIN_PATH,
  allowedRedirect,
  guard,
  logoutReturnAt,
  stepOf,
  type Flow,
  type SessionState,
} from '../routes.ts';
import { locationOf } from '../session.ts';
import type { Context, RootEvent } from '../session.ts';
import { rootSetup } from './setup.ts';

/** Applies the route guard (spec §4) to the current location. */
const applyGuard = (session: SessionState) =>
  rootSetup.enqueueActions(({ context, enqueue }) => {
    // A sign-in kept from before a reload still waits for its second factor or its new password.
    const decision = guard(
      context.location,
      session === 'anonymous' && (context.mfa || context.weakPayload) ? 'signingIn' : session,
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
        session === 'signedIn' && context.location.path === HOME_PATH
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
  location: ({ context, event }) => (event.type === 'ROUTE' ? event.location : context.location),
});

/** Signed out (a sign-out, the devices' "everywhere", a new password that ended the session): to
 * sign-in, nothing kept of the session, no screen to come back to; or, for a sign-out asked from an
 * application's request ("Not you?"), back to that request, which asks for a sign-in again. */
export const signedOut = [
  rootSetup.assign({ user: null, target: null, mfa: null, passwordSignIn: false }),
  ...forgetSession,
  {
    type: 'navigate' as const,
    params: ({ context }: { context: Context }) => ({ to: logoutReturnAt(context.location) ?? LOGIN_PATH }),
  },
];

/** An action that reads only the context, or the event by its type: any transition may carry it, a
 * child's end included (XState types each transition's event apart). */
const onAnyEvent = (action: unknown) =>
  action as <E extends EventObject>(args: ActionArgs<Context, E, RootEvent>, params: unknown) => void;

/** Goes to a screen of ours: the location the guard judges next, and the router's. */
export const goTo = (to: string | ((context: Context) => string)) =>
  onAnyEvent(
    rootSetup.enqueueActions(({ context, enqueue }) => {
      const path = typeof to === 'string' ? to : to(context);
      enqueue.assign({ location: locationOf(path) });
      enqueue({ type: 'navigate', params: { to: path } });
    }),
  );

/** The merge opened an offer until a time, or closed it (spec §6 "duplicated-logged"): the profile's
 * copy says so until the server's next answer does. */
export const mergeUntil = (until: (args: { event: RootEvent }) => string | undefined) =>
  rootSetup.enqueueActions(({ context, event, enqueue }) => {
    if (!context.user) return;
    const { fuzzion_until: _, ...rest } = context.user;
    const value = until({ event });
    const user = value ? { ...rest, fuzzion_until: value } : rest;
    enqueue.assign({ user });
    enqueue({ type: 'persistAccount', params: { user } });
  });

/** Keeps the profile an event brings (its load, a flow's change), and its local copy. */
export const keepUser = onAnyEvent(
  rootSetup.enqueueActions(({ event, enqueue }) => {
    const user =
      event.type === 'USER_UPDATED'
        ? event.user
        : event.type === 'xstate.done.actor.restoreUser' || event.type === 'xstate.done.actor.loadUser'
          ? event.output
          : null;
    if (!user) return;
    enqueue.assign({ user });
    enqueue({ type: 'persistAccount', params: { user } });
  }),
);

/** Follows where the right code leads (context.afterCode): a screen of ours (the location the guard
 * judges next), a partner, or Back. */
export const followAfterCode = onAnyEvent(
  rootSetup.enqueueActions(({ context, enqueue }) => {
    const next = context.afterCode;
    if (!next) return;
    if (next.kind === 'partner') enqueue({ type: 'leaveTo', params: { url: next.url } });
    else if (next.kind === 'back') enqueue({ type: 'goBack', params: { steps: next.steps } });
    else {
      enqueue.assign({ location: locationOf(next.to) });
      enqueue({ type: 'navigate', params: { to: next.to } });
    }
    enqueue.assign({ afterCode: null });
  }),
);

// ROUTE while a flow runs: the moves that keep it, then leaving it for the state that judges anew.

/** The flow's own screens: the location follows, the flow's screen shows. */
export const keeps = (flow: Flow) => ({
  guard: { type: 'routeInFlow' as const, params: { flow } },
  actions: setLocation,
});

/** The flow's own screens, each told to its running flow (which decides what shows). */
export const forwards = (flow: Flow, child: string) => ({
  guard: { type: 'routeInFlow' as const, params: { flow } },
  actions: [setLocation, tellStep(flow, child)],
});

/** Tells the running flow the step a ROUTE event's location shows. */
export const tellStep = (flow: Flow, child: string) =>
  rootSetup.sendTo(child, ({ event }) => ({
    type: 'ROUTE',
    step: event.type === 'ROUTE' ? stepOf(event.location.path, flow) : null,
  }));

/** Each of the flow's screens starts it again on that screen (a signed-in one, judged by the guard). */
export const restarts = (flow: Flow, state: string, session: 'signedIn' | 'anonymous' = 'signedIn') => ({
  guard: { type: 'routeInFlow' as const, params: { flow } },
  target: state,
  reenter: true,
  actions: [setLocation, session === 'signedIn' ? guardSignedIn : guardAnonymous],
});

/** Signed in, the sign-out screen signs out. */
export const signOut = { guard: 'routeIsLogout' as const, target: '#root.signedIn.loggingOut', actions: setLocation };

/** Signed in: a sign-out signs out; any other screen goes to idle, which judges it. */
export const whileSignedIn = <T extends object>(...stays: T[]) => [
  signOut,
  ...stays,
  { target: '#root.signedIn.idle', actions: [setLocation, guardSignedIn] },
];

/** Leaving a step-up's code screens for another: the wait for the code goes. */
export const dropsStepUp = {
  target: '#root.signedIn.idle',
  actions: [setLocation, rootSetup.assign({ mfa: null }), guardSignedIn],
};

/** Signed out: any other screen goes back to signing in, which judges it. */
export const whileAnonymous = <T extends object>(...stays: T[]) => [
  ...stays,
  { target: '#root.anonymous.signingIn', actions: [setLocation, guardAnonymous] },
];
